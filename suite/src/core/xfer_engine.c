/*
 * The IOR transfer engine (see include/ioscore/xfer.h): open, [barrier], transfers under the
 * stonewall with wear-out, [fsync], [barrier], close. One implementation for the IO500 phases
 * and the ior subcommand, so a fix in the timing or the error handling reaches both.
 */
#include "ioscore/xfer.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct xfer_state {
    struct ios_phase_ctx *ctx;
    struct ios_xfer_job *job;
    void *buf;
};

/* One transfer number i; 0, or -1 after recording the error. */
static int transfer_op(void *state, uint64_t i)
{
    struct xfer_state *st = state;
    struct ios_phase_ctx *ctx = st->ctx;
    struct ios_xfer_job *job = st->job;
    uint64_t off = job->offset(job, i);
    ssize_t n;
    if (job->write) {
        if (ios_packet_varies_per_item(job->packet))
            ios_pattern_update(st->buf, job->xfer, ctx->seed, ctx->run->rank, job->packet, off);
        n = ctx->be.ops->pwrite(&ctx->be, job->handle, st->buf, job->xfer, (off_t)off);
    } else {
        n = ctx->be.ops->pread(&ctx->be, job->handle, st->buf, job->xfer, (off_t)off);
    }
    const char *what = job->write ? "write" : "read";
    if (n < 0) {
        ios_phase_error(ctx, (int)n, "%s %s at offset %" PRIu64, what, job->path, off);
        return -1;
    }
    if ((uint64_t)n != job->xfer) {
        ios_phase_error(ctx, -EIO,
                        "short %s of %s at offset %" PRIu64 ": %zd of %" PRIu64
                        " bytes (end of file?)",
                        what, job->path, off, n, job->xfer);
        return -1;
    }
    if (job->verify &&
        !ios_pattern_matches(st->buf, job->xfer, ctx->seed, job->target, job->packet, off)) {
        if (ctx->mine.verify_errors == 0)
            fprintf(stderr,
                    "ioscore-suite: %s: rank %d: data mismatch in %s at offset %" PRIu64
                    " (written by rank %d, signature %d)\n",
                    ctx->phase->name, ctx->run->rank, job->path, off, job->target, ctx->seed);
        ctx->mine.verify_errors += 1;
    }
    ctx->mine.items += 1;
    ctx->mine.bytes += (double)job->xfer;
    return 0;
}

/*
 * A writer starts from an empty file, as IOR does: a longer file of an earlier run would leave
 * a stale tail. The owner removes a private file; rank 0 a shared one before anyone opens it.
 */
static void remove_old_file(struct ios_phase_ctx *ctx, const struct ios_xfer_job *job)
{
    if (!job->shared || ctx->run->rank == 0) {
        int rc = ctx->be.ops->unlink(&ctx->be, job->path);
        if (rc != 0 && rc != -ENOENT)
            ios_phase_error(ctx, rc, "remove the old %s", job->path);
    }
    if (job->shared)
        MPI_Barrier(MPI_COMM_WORLD);
}

void ios_xfer_run(struct ios_phase_ctx *ctx, struct ios_xfer_job *job)
{
    struct ios_run *run = ctx->run;
    struct xfer_state st = {.ctx = ctx, .job = job};
    st.buf = ios_alloc_buffer(&ctx->be, job->xfer);
    if (job->write)
        ios_pattern_fill(st.buf, job->xfer, ctx->seed, run->rank, job->packet, 0);
    if (job->write && job->remove_first)
        remove_old_file(ctx, job);
    /* collective calls on one shared file: every rank must make each call */
    ctx->lockstep = (ios_backend_modes(&ctx->be) & IOS_MODE_COLLECTIVE) && job->shared;

    ctx->mine.data_of = job->target + 1;
    ctx->mine.start = ios_wtime();
    int flags = job->write ? IOS_OPEN_WRITE | IOS_OPEN_CREATE : IOS_OPEN_READ;
    if (job->shared)
        flags |= IOS_OPEN_SHARED;
    int rc = ctx->be.ops->open(&ctx->be, job->path, flags, &job->handle);
    if (rc != 0)
        ios_phase_error(ctx, rc, "open %s", job->path);
    job->open_ok = rc == 0;
    job->open_done = ios_wtime();
    if (job->open_ok && job->opened)
        job->opened(ctx, job);
    if (job->barriers)
        MPI_Barrier(MPI_COMM_WORLD);

    ctx->mine.loop_start = ios_wtime();
    ios_instrument_progress_start(&ctx->instr, 1, job->deadline, job->progress_total,
                                  &ctx->mine.items, &ctx->mine.bytes);
    int ok = ctx->mine.io_error == 0;
    uint64_t j = ios_run_ops(ctx, transfer_op, &st, 0, job->count, job->deadline, &ok);
    ctx->mine.first_done = ios_wtime();
    ctx->mine.items_at_deadline = (double)j;
    ctx->mine.bytes_at_deadline = (double)j * (double)job->xfer;
    if (job->deadline > 0) {
        unsigned long long mine = j;
        MPI_Allreduce(&mine, &job->max_pairs, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
        if (job->wearout) /* every rank continues to the busiest rank's count */
            j = ios_run_ops(ctx, transfer_op, &st, j, job->max_pairs, 0, &ok);
        ctx->res->stonewall_time = ctx->mine.first_done - ctx->mine.loop_start;
        ctx->res->has_stonewall = 1;
        ctx->res->deadline_s = job->deadline;
        if (job->stonewalled)
            job->stonewalled(ctx, job);
    }
    /* MPI_File_sync of a shared file is collective: a rank that failed still takes part */
    int collective_open = job->shared && (ctx->be.ops->caps & IOS_CAP_COLLECTIVE);
    if (job->write && job->fsync && job->open_ok && (ok || collective_open)) {
        rc = ctx->be.ops->fsync(&ctx->be, job->handle);
        if (rc != 0)
            ios_phase_error(ctx, rc, "fsync %s", job->path);
    }
    ctx->mine.loop_end = ios_wtime();
    if (job->barriers)
        MPI_Barrier(MPI_COMM_WORLD);
    job->close_start = ios_wtime();
    if (job->open_ok) {
        rc = ctx->be.ops->close(&ctx->be, job->handle);
        if (rc != 0)
            ios_phase_error(ctx, rc, "close %s", job->path);
    }
    ctx->mine.end = ios_wtime();
    ctx->mine.end_before_barrier = ctx->mine.end;
    free(st.buf);
}
