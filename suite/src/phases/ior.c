/*
 * The IOR-style phases (BENCHMARK-RULES §1.3.1, §1.3.2, §1.3.7, §2.2): ior-easy-write/-read,
 * ior-hard-write/-read and ior-rnd4K-easy-read. One engine, parameterised by layout:
 *   easy, file per process:  <datadir>/ior-easy/ior_file_easy.%08d, transfer j at j*t
 *   easy, shared file:       <datadir>/ior-easy/ior_file_easy, rank p's block at p*blockSize
 *   hard:                    <datadir>/ior-hard/file, record j of rank p at (j*N + p)*47008
 * Writes run under the stonewall with wear-out and end with fsync inside the timed window;
 * reads handle exactly the status file's count of the writer shifted by ios_ior_shift().
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ioscore/phases.h"
#include "ioscore/xfer.h"

#define IOR_HARD_RECORD 47008
#define RND4K_BLOCK 4096
#define RND4K_MAX_READS 10000000ull

enum ior_layout { LAYOUT_EASY_FPP, LAYOUT_EASY_SHARED, LAYOUT_HARD };
enum ior_access { ACCESS_WRITE, ACCESS_READ, ACCESS_RANDOM_READ };

struct ior_job {
    enum ior_layout layout;
    enum ior_access access;
    uint64_t xfer;          /* bytes per transfer */
    uint64_t block;         /* easy: bytes per rank; hard: = xfer */
    uint64_t max_transfers; /* per rank */
    const char *status;     /* status file name, NULL for rnd4K */
};

static void easy_params(const struct ios_run *run, uint64_t *xfer, uint64_t *block, int *fpp,
                        int *unique)
{
    *xfer = run->cfg.opt.ior_easy.transfer_size;
    *block = run->cfg.opt.ior_easy.block_size;
    *fpp = run->cfg.opt.ior_easy.file_per_proc;
    *unique = run->cfg.opt.ior_easy.unique_dir;
}

/* Path of the file holding rank p's data. */
static void data_path(const struct ios_run *run, enum ior_layout layout, int p, char *buf,
                      size_t len)
{
    if (layout == LAYOUT_HARD) {
        ios_path(buf, len, "%s/ior-hard/file", run->datadir);
    } else if (layout == LAYOUT_EASY_SHARED) {
        ios_path(buf, len, "%s/ior-easy/ior_file_easy", run->datadir);
    } else if (run->cfg.opt.ior_easy.unique_dir) {
        ios_path(buf, len, "%s/ior-easy/%d/ior_file_easy.%08d", run->datadir, p, p);
    } else {
        ios_path(buf, len, "%s/ior-easy/ior_file_easy.%08d", run->datadir, p);
    }
}

static uint64_t offset_of(const struct ior_job *job, int nranks, int p, uint64_t j)
{
    switch (job->layout) {
    case LAYOUT_EASY_FPP:
        return j * job->xfer;
    case LAYOUT_EASY_SHARED:
        return (uint64_t)p * job->block + j * job->xfer;
    case LAYOUT_HARD:
        return (j * (uint64_t)nranks + (uint64_t)p) * job->xfer;
    }
    return 0;
}

/* Rank 0 creates the phase's top directory (validate step of the reference). */
static int ensure_top_dir(struct ios_phase_ctx *ctx, const char *name)
{
    int rc = 0;
    if (ctx->run->rank == 0) {
        char path[IOS_PATH_MAX];
        ios_path(path, sizeof path, "%s/%s", ctx->run->datadir, name);
        rc = ctx->be.ops->mkdir(&ctx->be, path, 0700);
        if (rc == -EEXIST)
            rc = 0;
        if (rc != 0)
            ios_phase_error(ctx, rc, "mkdir %s", path);
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, ios_test_comm);
    return rc;
}

/* splitmix64 for random offsets (rnd4K is not verified, any good generator will do). */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* What the offsets of a job need beside the engine's job (rnd4K: the file and its draws). */
struct io_state {
    struct ios_xfer_job x; /* first: the engine's callbacks get it back */
    const struct ior_job *job;
    int nranks;
    uint64_t file_blocks; /* rnd4K: blocks in the target file */
    uint64_t rng;
};

static uint64_t offset_op(const struct ios_xfer_job *x, uint64_t j)
{
    struct io_state *st = x->arg;
    if (st->job->access == ACCESS_RANDOM_READ)
        return (next_random(&st->rng) % st->file_blocks) * RND4K_BLOCK;
    return offset_of(st->job, st->nranks, x->target, j);
}

/* rnd4K: the target file's size bounds the random offsets (inside the timing, as IOR's). */
static void rnd4k_opened(struct ios_phase_ctx *ctx, struct ios_xfer_job *x)
{
    struct io_state *st = x->arg;
    int64_t size = 0;
    int rc = ctx->be.ops->stat_size(&ctx->be, x->path, &size);
    if (rc != 0)
        ios_phase_error(ctx, rc, "stat %s", x->path);
    st->file_blocks = (uint64_t)(size > 0 ? size : 0) / RND4K_BLOCK;
    if (!(ctx->be.ops->caps & IOS_CAP_STORES_DATA))
        st->file_blocks = 1;
    if (rc == 0 && st->file_blocks == 0)
        ios_phase_error(ctx, -EINVAL, "%s is smaller than one 4 KiB block", x->path);
    st->rng = (uint64_t)(ios_wtime() * 1e6) ^ ((uint64_t)ctx->run->rank << 40);
}

/* After the wear-out, inside the timing: the status file and the stonewall keys. */
static void write_stonewalled(struct ios_phase_ctx *ctx, struct ios_xfer_job *x)
{
    struct io_state *st = x->arg;
    struct ios_run *run = ctx->run;
    if (st->job->status)
        ios_status_write(run, st->job->status, (int64_t)x->max_pairs);
    double sw_bytes = ctx->mine.bytes_at_deadline, sw_sum = 0;
    MPI_Reduce(&sw_bytes, &sw_sum, 1, MPI_DOUBLE, MPI_SUM, 0, ios_test_comm);
    if (st->job->access == ACCESS_WRITE) {
        if (run->verbosity > 1)
            ios_phase_key(ctx, "accessed-pairs", "%llu", x->max_pairs);
        double t = ctx->res->stonewall_time > 0 ? ctx->res->stonewall_time : 1e-9;
        ios_phase_key(ctx, "throughput-stonewall", "%.2f", sw_sum / t / 1073741824.0);
    }
}

/* One IO500 IOR phase on the shared engine: which file, which transfers, how many. */
static void run_job(struct ios_phase_ctx *ctx, const struct ior_job *job)
{
    struct ios_run *run = ctx->run;
    struct io_state st;
    memset(&st, 0, sizeof st);
    struct ios_xfer_job *x = &st.x;
    st.job = job;
    st.nranks = run->size;
    int shift = ios_ior_shift(run);
    if (job->access == ACCESS_WRITE)
        x->target = run->rank;
    else if (job->access == ACCESS_RANDOM_READ)
        x->target =
            job->layout == LAYOUT_EASY_FPP ? (run->rank + 2 * shift) % run->size : run->rank;
    else
        x->target = (run->rank + shift) % run->size;
    data_path(run, job->layout, x->target, x->path, sizeof x->path);

    uint64_t limit = job->max_transfers;
    if (job->access == ACCESS_READ) {
        int64_t pairs = ios_status_read_bcast(run, job->status);
        if (pairs > 0 && (uint64_t)pairs < limit)
            limit = (uint64_t)pairs;
    }
    x->write = job->access == ACCESS_WRITE;
    x->shared = job->layout != LAYOUT_EASY_FPP;
    x->xfer = job->xfer;
    x->count = limit;
    x->deadline = job->access == ACCESS_READ ? 0 : (double)run->stonewall;
    x->wearout = 1;
    x->fsync = 1;    /* -e: inside the timed window */
    x->barriers = 1; /* -g */
    x->remove_first = 1;
    x->verify = job->access == ACCESS_READ && (ctx->be.ops->caps & IOS_CAP_STORES_DATA);
    x->progress_total = job->access == ACCESS_READ ? (double)limit * run->size : 0;
    x->packet = run->packet;
    x->offset = offset_op;
    x->arg = &st;
    x->opened = job->access == ACCESS_RANDOM_READ ? rnd4k_opened : NULL;
    x->stonewalled = write_stonewalled;
    ios_xfer_run(ctx, x);
}

static void exe_key(struct ios_phase_ctx *ctx, const struct ior_job *job, const char *access,
                    int stonewalled)
{
    struct ios_run *run = ctx->run;
    int collective = (ios_backend_modes(&ctx->be) & IOS_MODE_COLLECTIVE) != 0;
    char extra[128];
    snprintf(extra, sizeof extra, "%s", access);
    if (stonewalled)
        snprintf(extra, sizeof extra, "%s -D %d -O stoneWallingWearOut=1", access, run->stonewall);
    char file[IOS_PATH_MAX];
    if (job->layout == LAYOUT_HARD)
        ios_path(file, sizeof file, "%s/ior-hard/file", run->datadir);
    else
        ios_path(file, sizeof file, "%s/ior-easy/ior_file_easy", run->datadir);
    ios_phase_key(ctx, "exe",
                  "ioscore-ior --dataPacketType=%s -g -G %d -k -e -o %s -t %" PRIu64 " -b %" PRIu64
                  " -s %" PRIu64 "%s%s %s -a %s",
                  run->cfg.opt.global.data_packet_type, ctx->seed, file, job->xfer,
                  job->layout == LAYOUT_HARD ? job->xfer : job->block,
                  job->layout == LAYOUT_HARD ? job->max_transfers : 1,
                  job->layout == LAYOUT_EASY_FPP ? " -F" : "", collective ? " -c" : "", extra,
                  ctx->be.api);
}

static void easy_job(const struct ios_run *run, struct ior_job *job, enum ior_access access)
{
    uint64_t xfer, block;
    int fpp, unique;
    easy_params(run, &xfer, &block, &fpp, &unique);
    job->layout = fpp ? LAYOUT_EASY_FPP : LAYOUT_EASY_SHARED;
    job->access = access;
    job->xfer = xfer;
    job->block = block;
    job->max_transfers = block / xfer;
    job->status = "ior-easy";
}

static void hard_job(const struct ios_run *run, struct ior_job *job, enum ior_access access)
{
    job->layout = LAYOUT_HARD;
    job->access = access;
    job->xfer = IOR_HARD_RECORD;
    job->block = IOR_HARD_RECORD;
    job->max_transfers = (uint64_t)run->cfg.opt.ior_hard.segment_count;
    job->status = "ior-hard";
}

static void ior_easy_write(struct ios_phase_ctx *ctx)
{
    struct ior_job job;
    easy_job(ctx->run, &job, ACCESS_WRITE);
    exe_key(ctx, &job, "-w", 1);
    if (ensure_top_dir(ctx, "ior-easy") != 0)
        return;
    if (job.layout == LAYOUT_EASY_FPP && ctx->run->cfg.opt.ior_easy.unique_dir) {
        char dir[IOS_PATH_MAX];
        ios_path(dir, sizeof dir, "%s/ior-easy/%d", ctx->run->datadir, ctx->run->rank);
        int rc = ctx->be.ops->mkdir(&ctx->be, dir, 0700);
        if (rc != 0 && rc != -EEXIST)
            ios_phase_error(ctx, rc, "mkdir %s", dir);
    }
    run_job(ctx, &job);
}

static void ior_easy_read(struct ios_phase_ctx *ctx)
{
    struct ior_job job;
    easy_job(ctx->run, &job, ACCESS_READ);
    exe_key(ctx, &job, "-r -R", 0);
    run_job(ctx, &job);
}

static void ior_hard_write(struct ios_phase_ctx *ctx)
{
    struct ior_job job;
    hard_job(ctx->run, &job, ACCESS_WRITE);
    exe_key(ctx, &job, "-w", 1);
    if (ensure_top_dir(ctx, "ior-hard") != 0)
        return;
    run_job(ctx, &job);
}

static void ior_hard_read(struct ios_phase_ctx *ctx)
{
    struct ior_job job;
    hard_job(ctx->run, &job, ACCESS_READ);
    exe_key(ctx, &job, "-r -R", 0);
    run_job(ctx, &job);
}

static void ior_rnd4k_read(struct ios_phase_ctx *ctx)
{
    struct ior_job job;
    easy_job(ctx->run, &job, ACCESS_RANDOM_READ);
    job.xfer = RND4K_BLOCK;
    job.block = RND4K_BLOCK;
    job.max_transfers = RND4K_MAX_READS;
    job.status = NULL;
    exe_key(ctx, &job, "-r -z", 1);
    run_job(ctx, &job);
}

static void describe_easy(const struct ios_run *run, FILE *out, const char *what)
{
    uint64_t xfer, block;
    int fpp, unique;
    easy_params(run, &xfer, &block, &fpp, &unique);
    fprintf(out,
            "  %s: %s, transferSize %" PRIu64 " B, blockSize %" PRIu64 " B "
            "(<= %" PRIu64 " transfers per rank, <= %.3f GiB in total)\n",
            what,
            fpp ? (unique ? "one file per rank in its own directory" : "one file per rank")
                : "one shared file, rank r's block at r*blockSize",
            xfer, block, block / xfer, (double)block * run->size / 1073741824.0);
}

static void describe_easy_write(const struct ios_run *run, FILE *out)
{
    describe_easy(run, out, "sequential write");
    fprintf(out,
            "  stonewall %d s with wear-out; fsync at the end; status file %s/ior-easy."
            "stonewall\n",
            run->stonewall, run->resdir);
}

static void describe_easy_read(const struct ios_run *run, FILE *out)
{
    describe_easy(run, out, "sequential read + verify");
    fprintf(out, "  rank r reads the data of rank (r + %d) mod %d, exactly the written count\n",
            ios_ior_shift(run), run->size);
}

static void describe_hard(const struct ios_run *run, FILE *out, int write)
{
    int64_t seg = run->cfg.opt.ior_hard.segment_count;
    fprintf(out,
            "  %s: one shared file %s/ior-hard/file, 47008-byte records interleaved, "
            "record j of rank p at (j*%d + p)*47008; <= %" PRId64 " records per rank\n",
            write ? "write" : "read + verify", run->datadir, run->size, seg);
    struct ios_backend be;
    char err[IOS_MSG_MAX];
    const char *phase = write ? "ior-hard-write" : "ior-hard-read";
    if (ios_backend_for_phase(&run->cfg, phase, "ior-hard", &be, err, sizeof err) == 0 &&
        (ios_backend_modes(&be) & IOS_MODE_COLLECTIVE))
        fprintf(out, "  collective MPI-IO: MPI_File_%s_at_all, every rank in lockstep\n",
                write ? "write" : "read");
    if (write)
        fprintf(out, "  stonewall %d s with wear-out; fsync at the end\n", run->stonewall);
    else
        fprintf(out, "  rank r reads the records of rank (r + %d) mod %d\n", ios_ior_shift(run),
                run->size);
}

static void describe_hard_write(const struct ios_run *run, FILE *out)
{
    describe_hard(run, out, 1);
}
static void describe_hard_read(const struct ios_run *run, FILE *out)
{
    describe_hard(run, out, 0);
}

static void describe_rnd4k(const struct ios_run *run, FILE *out)
{
    fprintf(out,
            "  random 4096-byte reads of the ior-easy data (rank r reads the file of rank "
            "(r + %d) mod %d), deadline %d s with wear-out, <= 10000000 reads per rank; not "
            "verified, not scored\n",
            2 * ios_ior_shift(run) % run->size, run->size, run->stonewall);
}

/* ---- what the phases leave behind: removed by the names used above, never recursively */

/* Every rank removes its own file (rank 0 the shared one), then rank 0 the directory. */
static void easy_cleanup(struct ios_run *run, struct ios_backend *be)
{
    char path[IOS_PATH_MAX];
    int fpp = run->cfg.opt.ior_easy.file_per_proc;
    if (fpp || run->rank == 0) {
        data_path(run, fpp ? LAYOUT_EASY_FPP : LAYOUT_EASY_SHARED, run->rank, path, sizeof path);
        ios_remove_known(run, be, path, 0);
    }
    if (fpp && run->cfg.opt.ior_easy.unique_dir) {
        ios_path(path, sizeof path, "%s/ior-easy/%d", run->datadir, run->rank);
        ios_remove_known(run, be, path, 1);
    }
    /* unlike the reference, wait for every rank's unlink before the rmdir */
    MPI_Barrier(ios_test_comm);
    ios_status_remove(run, "ior-easy");
    if (run->rank == 0) {
        ios_path(path, sizeof path, "%s/ior-easy", run->datadir);
        ios_remove_known(run, be, path, 1);
    }
}

static void hard_cleanup(struct ios_run *run, struct ios_backend *be)
{
    char path[IOS_PATH_MAX];
    ios_status_remove(run, "ior-hard");
    if (run->rank != 0)
        return;
    data_path(run, LAYOUT_HARD, 0, path, sizeof path);
    ios_remove_known(run, be, path, 0);
    ios_path(path, sizeof path, "%s/ior-hard", run->datadir);
    ios_remove_known(run, be, path, 1);
}

static int is_easy_file(const char *name)
{
    return strcmp(name, "ior_file_easy") == 0 || ios_name_numbered(name, "ior_file_easy.", 1);
}

static int is_hard_file(const char *name)
{
    return strcmp(name, "file") == 0;
}

/* --cleanup: whatever filePerProc/uniqueDir the earlier run used. */
static long easy_sweep(const struct ios_run *run, int verbose)
{
    char path[IOS_PATH_MAX];
    ios_path(path, sizeof path, "%s/ior-easy", run->datadir);
    long removed = ios_sweep_files(path, is_easy_file);
    removed += ios_sweep_numbered_dirs(path, "", 1, is_easy_file, verbose); /* uniqueDir */
    ios_rmdir_quiet(path, verbose);
    return removed + ios_status_remove(run, "ior-easy");
}

static long hard_sweep(const struct ios_run *run, int verbose)
{
    char path[IOS_PATH_MAX];
    ios_path(path, sizeof path, "%s/ior-hard", run->datadir);
    long removed = ios_sweep_files(path, is_hard_file);
    ios_rmdir_quiet(path, verbose);
    return removed + ios_status_remove(run, "ior-hard");
}

const struct ios_phase ios_phase_ior_easy_write = {
    .name = "ior-easy-write",
    .group = "ior-easy",
    .score_group = IOS_GROUP_BW,
    .type = IOS_PHASE_WRITE,
    .metric = IOS_METRIC_BW,
    .unit = IOS_UNIT_GIB_S,
    .pattern = "sequential transferSize writes, file per process (or one shared file)",
    .top_dir = "ior-easy",
    .creates = "ior-easy/ior_file_easy.<rank> (uniqueDir: ior-easy/<rank>/; shared: "
               "ior-easy/ior_file_easy), <resdir>/ior-easy.stonewall",
    .seed_key = "ior-easy",
    .csv_kind = "ior",
    .has_log = 1,
    .stonewalled = 1,
    .run = ior_easy_write,
    .describe = describe_easy_write,
    .cleanup = easy_cleanup,
    .sweep = easy_sweep,
};
const struct ios_phase ios_phase_ior_easy_read = {
    .name = "ior-easy-read",
    .group = "ior-easy",
    .score_group = IOS_GROUP_BW,
    .type = IOS_PHASE_READ,
    .metric = IOS_METRIC_BW,
    .unit = IOS_UNIT_GIB_S,
    .pattern = "sequential transferSize reads of another rank's ior-easy data, verified",
    .seed_key = "ior-easy",
    .csv_kind = "ior",
    .has_log = 1,
    .run = ior_easy_read,
    .describe = describe_easy_read,
};
const struct ios_phase ios_phase_ior_hard_write = {
    .name = "ior-hard-write",
    .group = "ior-hard",
    .score_group = IOS_GROUP_BW,
    .type = IOS_PHASE_WRITE,
    .metric = IOS_METRIC_BW,
    .unit = IOS_UNIT_GIB_S,
    .pattern = "strided 47008-byte records into one shared file (record j of rank p at "
               "(j*N + p)*47008)",
    .top_dir = "ior-hard",
    .creates = "ior-hard/file, <resdir>/ior-hard.stonewall",
    .seed_key = "ior-hard",
    .csv_kind = "ior",
    .has_log = 1,
    .stonewalled = 1,
    .run = ior_hard_write,
    .describe = describe_hard_write,
    .cleanup = hard_cleanup,
    .sweep = hard_sweep,
};
const struct ios_phase ios_phase_ior_hard_read = {
    .name = "ior-hard-read",
    .group = "ior-hard",
    .score_group = IOS_GROUP_BW,
    .type = IOS_PHASE_READ,
    .metric = IOS_METRIC_BW,
    .unit = IOS_UNIT_GIB_S,
    .pattern = "strided 47008-byte reads of another rank's ior-hard records, verified",
    .seed_key = "ior-hard",
    .csv_kind = "ior",
    .has_log = 1,
    .run = ior_hard_read,
    .describe = describe_hard_read,
};
const struct ios_phase ios_phase_ior_rnd4k_easy_read = {
    .name = "ior-rnd4K-easy-read",
    .group = "ior-easy",
    .score_group = IOS_GROUP_NONE,
    .type = IOS_PHASE_READ,
    .metric = IOS_METRIC_BW,
    .unit = IOS_UNIT_GIB_S,
    .pattern = "random 4 KiB reads of the ior-easy files under the stonewall, not verified",
    .seed_key = "ior-easy",
    .csv_kind = "ior",
    .has_log = 1,
    .run = ior_rnd4k_read,
    .describe = describe_rnd4k,
};
