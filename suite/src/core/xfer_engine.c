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

/* Checks and counts a finished transfer (n: bytes or -errno) at offset off; 0, or -1 after
 * recording the error. */
static int transfer_done(struct xfer_state *st, const void *buf, uint64_t off, ssize_t n)
{
    struct ios_phase_ctx *ctx = st->ctx;
    struct ios_xfer_job *job = st->job;
    const char *what = job->write ? "write" : "read";
    if (n < 0) {
        ios_phase_error(ctx, (int)n, "%s %s at offset %" PRIu64, what, job->path, off);
        return -1;
    }
    for (int k = 0; job->write && k < job->fsync_per_write && (uint64_t)n == job->xfer; k++) {
        int rc = ctx->be.ops->fsync(&ctx->be, job->handle);
        if (rc != 0) {
            ios_phase_error(ctx, rc, "fsync %s", job->path);
            return -1;
        }
    }
    if ((uint64_t)n != job->xfer) {
        ios_phase_error(ctx, -EIO,
                        "short %s of %s at offset %" PRIu64 ": %zd of %" PRIu64
                        " bytes (end of file?)",
                        what, job->path, off, n, job->xfer);
        return -1;
    }
    if (job->verify &&
        !ios_pattern_matches(buf, job->xfer, ctx->seed, job->target, job->packet, off)) {
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

/* Stamps a write buffer for the transfer at offset off. */
static void transfer_prepare(struct xfer_state *st, void *buf, uint64_t off)
{
    struct ios_xfer_job *job = st->job;
    if (job->write && ios_packet_varies_per_item(job->packet))
        ios_pattern_update(buf, job->xfer, st->ctx->seed, st->ctx->run->rank, job->packet, off);
}

/* One transfer number i; 0, or -1 after recording the error. */
static int transfer_op(void *state, uint64_t i)
{
    struct xfer_state *st = state;
    struct ios_phase_ctx *ctx = st->ctx;
    struct ios_xfer_job *job = st->job;
    uint64_t off = job->offset(job, job->count > 0 ? i % job->count : i); /* passes repeat */
    ssize_t n;
    transfer_prepare(st, st->buf, off);
    if (job->write)
        n = ctx->be.ops->pwrite(&ctx->be, job->handle, st->buf, job->xfer, (off_t)off);
    else
        n = ctx->be.ops->pread(&ctx->be, job->handle, st->buf, job->xfer, (off_t)off);
    return transfer_done(st, st->buf, off, n);
}

/*
 * Transfers from .. to-1 with up to the backend's depth in flight (IOS_CAP_ASYNC), as
 * ios_run_ops does them one by one: each transfer's latency runs from its queueing to its
 * completion, it counts in the time series when it completes, the deadline is looked at after
 * each completion, and a failure stops the queueing. What is in flight is always waited for.
 * Returns the number of transfers queued (all completed, unless one failed).
 */
static uint64_t run_queued(struct xfer_state *st, uint64_t from, uint64_t to, double deadline,
                           int *ok)
{
    struct ios_phase_ctx *ctx = st->ctx;
    struct ios_xfer_job *job = st->job;
    struct ios_backend *be = &ctx->be;
    struct ios_instrument *in = &ctx->instr;
    int timed = in->cfg && in->cfg->enabled;
    int depth = be->ops->depth(be);
    void **bufs = calloc((size_t)depth, sizeof *bufs);
    uint64_t *t0 = calloc((size_t)depth, sizeof *t0), *offs = calloc((size_t)depth, sizeof *offs);
    uint64_t *tags = calloc((size_t)depth, sizeof *tags);
    ssize_t *res = calloc((size_t)depth, sizeof *res);
    int *free_slots = calloc((size_t)depth, sizeof *free_slots);
    if (!bufs || !t0 || !offs || !tags || !res || !free_slots)
        ios_fatal("out of memory (transfer queue)");
    int n_free = depth;
    for (int k = 0; k < depth; k++) {
        bufs[k] = ios_alloc_buffer(be, job->xfer);
        if (job->write)
            memcpy(bufs[k], st->buf, job->xfer);
        free_slots[k] = depth - 1 - k;
    }
    uint64_t next = from;
    int stop = 0;
    struct ios_loop_clock clock = ios_loop_clock_start();
    while (n_free < depth || (*ok && !stop && next < to)) {
        while (*ok && !stop && next < to && n_free > 0) {
            int k = free_slots[--n_free];
            offs[k] = job->offset(job, job->count > 0 ? next % job->count : next);
            transfer_prepare(st, bufs[k], offs[k]);
            t0[k] = timed ? ios_now_ns() : 0;
            int rc = be->ops->queue(be, job->handle, job->write, bufs[k], job->xfer, (off_t)offs[k],
                                    (uint64_t)k);
            if (rc != 0) {
                free_slots[n_free++] = k;
                ios_phase_error(ctx, rc, "queue a transfer of %s", job->path);
                *ok = 0;
                break;
            }
            next++;
        }
        if (n_free == depth)
            break;
        int got = be->ops->reap(be, 1, tags, res, depth);
        if (got < 0) { /* the ring itself failed: nothing more completes */
            ios_phase_error(ctx, got, "wait for transfers of %s", job->path);
            *ok = 0;
            break;
        }
        for (int c = 0; c < got; c++) {
            int k = (int)tags[c];
            free_slots[n_free++] = k;
            uint64_t now_ns = timed ? ios_now_ns() : 0;
            if (timed)
                ios_latency_add(&in->lat, now_ns - t0[k]);
            if (transfer_done(st, bufs[k], offs[k], res[c]) != 0) {
                *ok = 0;
                if (in->trace)
                    ios_instrument_trace(in, -1, now_ns - t0[k]);
                continue;
            }
            double now = ios_loop_wtime(&clock, now_ns);
            ios_timeseries_add(&ctx->ts, now);
            if (timed) {
                int sec = (int)(now - ctx->ts.t0);
                ios_lat_series_add(&in->series, sec, now_ns - t0[k]);
                if (in->trace)
                    ios_instrument_trace(in, sec, now_ns - t0[k]);
                if (in->t0_ns)
                    ios_instrument_tick(in, now_ns);
            }
            if (deadline > 0 && now - ctx->mine.loop_start > deadline && !stop) {
                stop = 1;
                ctx->mine.hit_deadline = 1;
            }
        }
    }
    for (int k = 0; k < depth; k++)
        free(bufs[k]);
    free(bufs);
    free(t0);
    free(offs);
    free(tags);
    free(res);
    free(free_slots);
    return next;
}

/* The transfers from .. to-1, queued when the backend can, else one by one. */
static uint64_t run_transfers(struct xfer_state *st, uint64_t from, uint64_t to, double deadline,
                              int *ok)
{
    struct ios_phase_ctx *ctx = st->ctx;
    if ((ctx->be.ops->caps & IOS_CAP_ASYNC) && !ctx->lockstep && ctx->be.ops->depth(&ctx->be) > 1)
        return run_queued(st, from, to, deadline, ok);
    return ios_run_ops(ctx, transfer_op, st, from, to, deadline, ok);
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
        MPI_Barrier(ios_test_comm);
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
        MPI_Barrier(ios_test_comm);

    ctx->mine.loop_start = ios_wtime();
    ios_instrument_progress_start(&ctx->instr, 1, job->deadline, job->progress_total,
                                  &ctx->mine.items, &ctx->mine.bytes);
    int ok = ctx->mine.io_error == 0;
    uint64_t j = run_transfers(&st, 0, job->count, job->deadline, &ok);
    /* IOR -O minTimeDuration: the accesses start again from the first transfer until the
     * loop has run that long (each rank by its own clock, rank 0's in lockstep) */
    for (uint64_t end = job->count; job->min_time > 0 && job->count > 0 && j == end;) {
        int again =
            ok && !ctx->mine.hit_deadline && ios_wtime() - ctx->mine.loop_start < job->min_time;
        if (ctx->lockstep)
            MPI_Bcast(&again, 1, MPI_INT, 0, ios_test_comm);
        if (!again)
            break;
        end = j + job->count;
        j = run_transfers(&st, j, end, job->deadline, &ok);
    }
    ctx->mine.first_done = ios_wtime();
    ctx->mine.items_at_deadline = (double)j;
    ctx->mine.bytes_at_deadline = (double)j * (double)job->xfer;
    if (job->deadline > 0) {
        unsigned long long mine = j;
        MPI_Allreduce(&mine, &job->max_pairs, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, ios_test_comm);
        if (job->wearout) /* every rank continues to the busiest rank's count */
            j = run_transfers(&st, j, job->max_pairs, 0, &ok);
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
        MPI_Barrier(ios_test_comm);
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
