/*
 * `ioscore-suite ior`: one IOR test (-i repetitions of write, read-back check and read) run as
 * phases of the standard engine (ios_run_one_phase): same backends, op loop with stonewall,
 * latency histograms, time series, per-rank CSVs and result.json (mode "ior"). This file only
 * knows IOR's file layout and access order, and reduces the gathered results to IOR's rows;
 * ior_summary.c prints them in IOR's formats, ior_layout.c owns the -O layout hints.
 *   file per process (-F): <o>.%08d, segment g's block at g*b
 *   shared file:           rank p's block of segment g at (g*N + p)*b
 *   transfer k of a block at k*t; -z visits each rank's transfers in a keyed random order
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ioscore/acceptance.h"
#include "ioscore/ior_layout.h"
#include "ioscore/ior_summary.h"
#include "ioscore/report.h"
#include "ioscore/xfer.h"

enum ior_access { ACC_WRITE, ACC_READ };

/* IOR's summary rows: bandwidth, with IOR's population deviation. */
static const struct ios_acc_measure ior_measure = {"MiB/s", IOS_ACC_POPULATION};

struct ior_launch;

/* A phase of the engine plus what the IOR access needs; base first, the engine sees only it. */
struct ior_phase {
    struct ios_phase base;
    const struct ios_ior_params *p;
    struct ior_launch *launch;
    enum ior_access access;
    int verify;
    int readback; /* -W: the check of what this iteration just wrote */
    int iteration;
    int32_t seed;
    char name[48];
};

/* A rank's access order: the -z offsets of one segment (NULL: sequential). */
struct ior_order {
    uint64_t *offs, n; /* transfers per segment */
};

/* What IOR's offsets need beside the engine's job. */
struct ior_state {
    struct ios_xfer_job x;
    const struct ior_phase *ph;
    int nranks;
    uint64_t all; /* transfers of all segments */
    struct ior_order order;
};

/* IOR's reductions of one access's timers (its ReduceIterResults), complete on rank 0. */
struct ior_timing {
    double open_start, open_stop, rdwr_start, rdwr_stop, close_start, close_stop; /* min|max */
    double min_latency;     /* the best rank's wr/rd time per transfer */
    double bytes;           /* moved by every rank (IOR's aggFileSizeForBW) */
    double stonewall_time;  /* rank 0's loop time to the stonewall */
    double stonewall_bytes; /* moved by every rank up to the stonewall */
};

/* One launch's state, carried from access to access (IOR keeps it in its test's state);
 * ios_ior_run makes it and every step reaches it through its phase. */
struct ior_launch {
    const struct ios_ior_params *p;
    struct ios_acc_launch acc; /* the report (summary, notes, test) and its result.json hook */
    struct ios_ior_doc doc;    /* rank 0: IOR's result document */
    struct ior_phase phases[4 * IOS_IOR_MAX_REPS];
    int n_phases;
    struct ios_acc_manifest manifest; /* the write part's, for a read-only launch */
    /* Transfers per rank the write part of this read-only launch's test wrote (its manifest's
     * "pairs"; fewer than -b/-t x -s after a fixed-time -D write), UINT64_MAX: no limit. */
    uint64_t read_pairs;
    /* A read whose -b/-s/tasks differ from its write part's and that reads only data the
     * write produced (IOR allows it: the hero read-IOPS test reads -b 1g -s 20 of a -b 64g
     * dataset): check_before_io then wants files at least as large as this read needs. */
    int subset_read;
    /* The -z accesses so far (IOR seeds the first one differently) and the start time that
     * seeds them without --random-offset-seed. */
    int random_calls;
    int32_t random_start;
    /* Rank 0: transfers every rank wrote in the last write (min over ranks). */
    uint64_t written_pairs;
    /* This rank's transfers in the last write stopped by -D (0: none): IOR then bounds every
     * later access of the launch by it (its stoneWallingWearOutIterations), so the read reads
     * what the stonewalled write wrote. */
    uint64_t stonewall_pairs;
    struct ior_timing last_timing; /* the last access's, rank 0 */
    /* The busiest rank's count at the stonewall of the first write (IOR's end-of-test line)
     * and at the last write's (IOR's pairs_accessed, what -O stoneWallingStatusFile stores). */
    unsigned long long first_write_pairs, write_max_pairs;
};

/*
 * IOR's -z order (its GetOffsetArrayRandom, same C library generator and seed): the offsets
 * within one segment that `target` accesses, shuffled; every segment is then walked in this
 * order. File per process: every transfer of the block. Shared file: each transfer of the
 * segment goes to a rank drawn at random (the same draw on every rank, so each transfer has one
 * owner, and ranks may get different counts). Malloc'd; *count entries.
 */
uint64_t *ios_ior_random_offsets(uint64_t block, uint64_t xfer, int nranks, int fpp, int target,
                                 int seed, uint64_t *count)
{
    uint64_t n = 0, span = fpp ? block : block * (uint64_t)nranks;
    srandom((unsigned)seed);
    if (fpp)
        n = block / xfer;
    else
        for (uint64_t i = 0; i < span; i += xfer)
            n += rand() % nranks == target;
    uint64_t *offs = malloc((n ? n : 1) * sizeof *offs);
    if (!offs)
        ios_fatal("out of memory (-z offsets of %llu transfers)", (unsigned long long)n);
    if (fpp) {
        for (uint64_t i = 0; i < n; i++)
            offs[i] = i * xfer;
    } else {
        srandom((unsigned)seed);
        uint64_t k = 0;
        for (uint64_t i = 0; i < span; i += xfer)
            if (rand() % nranks == target)
                offs[k++] = i;
    }
    for (uint64_t i = 0; i < n; i++) {
        uint64_t v = (uint64_t)rand() % n, tmp = offs[v];
        offs[v] = offs[i];
        offs[i] = tmp;
    }
    *count = n;
    return offs;
}

/* IOR's -z seed of the call-th random access of the launch (its init_random_seed): the
 * --random-offset-seed S or, without it, the launch's start time t; a file per process adds
 * the target's rank, except on the first access without S (t alone). */
static int random_seed_of(const struct ios_ior_params *p, int32_t start, int call, int target)
{
    int base = p->random_seed >= 0 ? p->random_seed : start;
    if (!p->fpp || (call == 0 && p->random_seed < 0))
        return base;
    return base + target;
}

static void order_init(struct ior_order *o, const struct ios_ior_params *p, int nranks, int target,
                       int seed)
{
    o->offs = NULL;
    o->n = p->block / p->xfer;
    if (p->random)
        o->offs = ios_ior_random_offsets(p->block, p->xfer, nranks, p->fpp, target, seed, &o->n);
}

/* IOR's test file name: -F adds the rank (and -u a directory named for it, beside the -o
 * file), -m the repetition. */
static void file_of(const struct ios_ior_params *p, int rank, int iter, char *buf, size_t len)
{
    char name[IOS_PATH_MAX];
    if (p->fpp && p->unique_dir) {
        char d[IOS_PATH_MAX], b[IOS_PATH_MAX];
        snprintf(d, sizeof d, "%s", p->test_file);
        snprintf(b, sizeof b, "%s", p->test_file);
        ios_path(name, sizeof name, "%s/%d/%s.%08d", dirname(d), rank, basename(b), rank);
    } else if (p->fpp) {
        ios_path(name, sizeof name, "%s.%08d", p->test_file, rank);
    } else {
        ios_path(name, sizeof name, "%s", p->test_file);
    }
    if (p->multi_file)
        ios_path(buf, len, "%s.%d", name, iter);
    else
        ios_path(buf, len, "%s", name);
}

/* -u: the rank's directory, created as IOR does (mode 0700) when missing. 0 or -errno. */
static int make_unique_dir(const struct ios_ior_params *p, const char *path)
{
    if (!p->fpp || !p->unique_dir)
        return 0;
    char d[IOS_PATH_MAX];
    snprintf(d, sizeof d, "%s", path);
    if (mkdir(dirname(d), 0700) != 0 && errno != EEXIST)
        return -errno;
    return 0;
}

/* The size of `path` as IOR asks its backend (its get_file_size and access): MPI-IO opens the
 * file on this rank alone to tell, the others stat it. 0 or -errno. */
static int ior_file_size(struct ios_backend *be, const struct ios_ior_params *p, const char *path,
                         int64_t *size)
{
    if (strcmp(p->api, "MPIIO") == 0) {
        int64_t h;
        int rc = be->ops->open(be, path, IOS_OPEN_READ, &h);
        if (rc != 0)
            return rc;
        be->ops->close(be, h);
    }
    return be->ops->stat_size(be, path, size);
}

/* File offset of transfer i of `target` in `order`: IOR's segment and block. */
static uint64_t ior_offset(const struct ios_ior_params *p, int nranks, int target, uint64_t i,
                           const struct ior_order *o)
{
    uint64_t seg = i / o->n, k = i % o->n;
    uint64_t stride = p->fpp ? p->block : p->block * (uint64_t)nranks;
    if (o->offs)
        return seg * stride + o->offs[k];
    return seg * stride + (p->fpp ? 0 : (uint64_t)target * p->block) + k * p->xfer;
}

static uint64_t offset_op(const struct ios_xfer_job *x, uint64_t i)
{
    const struct ior_state *st = x->arg;
    return ior_offset(st->ph->p, st->nranks, x->target, i, &st->order);
}

/* The rank shift of -C for the read: IOR's -Q hosts away, a host being ios_ior_shift() ranks
 * (tasks per node when ranks are placed in blocks, 1 when round-robin); 0 without -C. */
static int read_shift(const struct ios_run *run, const struct ios_ior_params *p)
{
    if (!p->reorder || run->size < 1)
        return 0;
    return (int)(((int64_t)p->task_offset * ios_ior_shift(run)) % run->size);
}

/*
 * IOR's -Z shift of this rank's read in repetition `iter` (C library rand(), as IOR seeds it):
 * -Z a random rank at least -Q hosts of node 0's tasks away (none on one host), each rank by
 * its own draw; -ZZ a random permutation of the ranks drawn alike on every rank.
 */
static int random_shift(const struct ios_run *run, const struct ios_ior_params *p, int iter)
{
    int n = run->size;
    unsigned seed = (unsigned)(p->reorder_random_seed < 0 ? -p->reorder_random_seed + iter
                                                          : p->reorder_random_seed);
    if (p->reorder_random == 1) {
        int nodeoffset = p->task_offset < run->nnodes ? p->task_offset : run->nnodes - 1;
        srand((unsigned)run->rank + seed);
        int off = rand() % n;
        while (off < nodeoffset * run->ppn0)
            off = rand() % n;
        return off;
    }
    srand(seed);
    int mine = run->rank;
    int *perm = malloc((size_t)n * sizeof *perm);
    if (!perm)
        ios_fatal("out of memory (-ZZ of %d ranks)", n);
    for (int i = 0; i < n; i++)
        perm[i] = i;
    for (int i = 0; i < n; i++) {
        int t = i + rand() % (n - i), tmp = perm[t];
        perm[t] = perm[i];
        perm[i] = tmp;
    }
    mine = perm[run->rank];
    free(perm);
    return ((mine - run->rank) % n + n) % n;
}

/* IOR's -W check reads one host further than the read (-Q + 1 hosts away) under -C; -Z
 * replaces -C's shift for the read. */
static int phase_shift(const struct ios_run *run, const struct ior_phase *ph)
{
    if (ph->access == ACC_WRITE)
        return 0;
    if (ph->readback && ph->p->reorder && run->size > 0)
        return (int)(((int64_t)(ph->p->task_offset + 1) * ios_ior_shift(run)) % run->size);
    if (!ph->readback && ph->p->reorder_random && run->size > 0)
        return random_shift(run, ph->p, ph->iteration);
    return read_shift(run, ph->p);
}

static void reduce_timing(const struct ios_phase_ctx *ctx, const struct ios_xfer_job *x)
{
    const struct ios_rank_stats *m = &ctx->mine;
    double mins[4] = {m->start, m->loop_start, x->close_start,
                      m->items > 0 ? (m->loop_end - m->loop_start) / m->items : INFINITY};
    double maxs[3] = {x->open_done, m->loop_end, m->end};
    double sums[2] = {m->bytes, m->bytes_at_deadline};
    double rmin[4], rmax[3], rsum[2];
    MPI_Reduce(mins, rmin, 4, MPI_DOUBLE, MPI_MIN, 0, ios_test_comm);
    MPI_Reduce(maxs, rmax, 3, MPI_DOUBLE, MPI_MAX, 0, ios_test_comm);
    MPI_Reduce(sums, rsum, 2, MPI_DOUBLE, MPI_SUM, 0, ios_test_comm);
    const struct ior_phase *ph = (const struct ior_phase *)ctx->phase;
    ph->launch->last_timing = (struct ior_timing){rmin[0], rmax[0], rmin[1],
                                                  rmax[1], rmin[2], rmax[2],
                                                  rmin[3], rsum[0], m->first_done - m->loop_start,
                                                  rsum[1]};
    if (!ph->p->rank_csv[0] || ph->readback) /* IOR's per-rank CSV: the timed accesses */
        return;
    double mine[2] = {m->end - m->start, m->loop_end - m->loop_start};
    double *all = ctx->run->rank == 0 ? malloc(2 * sizeof(double) * (size_t)ctx->run->size) : NULL;
    if (ctx->run->rank == 0 && !all)
        ios_fatal("out of memory (per-rank times of %d ranks)", ctx->run->size);
    MPI_Gather(mine, 2, MPI_DOUBLE, all, 2, MPI_DOUBLE, 0, ios_test_comm);
    if (ctx->run->rank == 0)
        ios_ior_out_rank_times(ph->p, ph->access == ACC_WRITE ? "write" : "read", all,
                               ctx->run->size, rsum[0]);
    free(all);
}

/* After a -D stop (and its wear-out): the count for result.json and, with wear-out, IOR's
 * stonewall lines (IOR prints them once its ranks stopped, in the timing too). */
static void on_stonewall(struct ios_phase_ctx *ctx, struct ios_xfer_job *x)
{
    const struct ior_phase *ph = (const struct ior_phase *)ctx->phase;
    const struct ios_ior_params *p = ph->p;
    ios_phase_key(ctx, "stonewall_pairs_max", "%llu", x->max_pairs);
    if (x->write)
        ph->launch->write_max_pairs = x->max_pairs;
    if (!p->wearout)
        return;
    const struct ios_rank_stats *m = &ctx->mine;
    double mins[2] = {m->items_at_deadline, m->bytes_at_deadline}, rmin[2], sum = 0;
    MPI_Reduce(mins, rmin, 2, MPI_DOUBLE, MPI_MIN, 0, ios_test_comm);
    MPI_Reduce(&m->bytes_at_deadline, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, ios_test_comm);
    struct ios_ior_stonewall all = {rmin[0], (double)x->max_pairs, rmin[1], sum / ctx->run->size,
                                    m->first_done - m->loop_start};
    ios_ior_out_stonewall(p, ctx->run->rank, m->items_at_deadline, &all);
    if (ph->access == ACC_WRITE && ph->iteration == 0)
        ph->launch->first_write_pairs = x->max_pairs;
}

/*
 * IOR's CheckFileSize after a write or read, untimed: the size of the accessed file (every rank
 * its own, rank 0 a shared one) against the data moved; IOR's warnings when they differ (a
 * stonewalled access, a read of a subset). IOR uses the data moved for the bandwidth anyway.
 */
static void check_file_size(struct ios_phase_ctx *ctx, struct ios_xfer_job *x)
{
    const struct ior_phase *ph = (const struct ior_phase *)ctx->phase;
    const struct ios_ior_params *p = ph->p;
    long long mine = -1, moved = (long long)ctx->mine.bytes, sizes[3], total = 0;
    if (p->fpp || ctx->run->rank == 0) {
        int64_t size = 0;
        if (ior_file_size(&ctx->be, p, x->path, &size) == 0)
            mine = size;
    }
    long long in[2] = {p->fpp ? mine : (ctx->run->rank == 0 ? mine : LLONG_MAX), mine};
    MPI_Allreduce(&in[0], &sizes[0], 1, MPI_LONG_LONG, p->fpp ? MPI_SUM : MPI_MIN, ios_test_comm);
    MPI_Allreduce(&in[1], &sizes[1], 1, MPI_LONG_LONG, MPI_MAX, ios_test_comm);
    MPI_Allreduce(&moved, &total, 1, MPI_LONG_LONG, MPI_SUM, ios_test_comm);
    sizes[2] = (long long)(p->block * p->segments) * ctx->run->size; /* IOR's expected size */
    long long stat_size = p->fpp ? sizes[0] : sizes[1];
    if (ctx->run->rank != 0 || (sizes[2] == total && stat_size == total))
        return;
    FILE *log = ios_ior_out_extra(p);
    fprintf(log, "WARNING: Expected aggregate file size       = %lld\n", sizes[2]);
    fprintf(log, "WARNING: Stat() of aggregate file size      = %lld\n", stat_size);
    fprintf(log, "WARNING: Using actual aggregate bytes moved = %lld\n", total);
    if (p->deadline > 0)
        fprintf(log, "WARNING: Maybe caused by deadlineForStonewalling\n");
    fflush(log);
}

/*
 * The -O layout hints: the owner of a file (each rank its own, rank 0 a shared one) removes
 * it (unless -E) and creates it again empty through the file system's tool, untimed and before
 * the barrier, as IOR creates a striped file on its first open; -E keeps an existing file's.
 */
static void make_with_layout(struct ios_phase_ctx *ctx, const char *path, int owner)
{
    const struct ior_phase *ph = (const struct ior_phase *)ctx->phase;
    struct stat st;
    if (owner && !ph->p->existing) {
        int rc = ctx->be.ops->unlink(&ctx->be, path);
        if (rc != 0 && rc != -ENOENT)
            ios_phase_error(ctx, rc, "remove the old %s", path);
    }
    if (owner && stat(path, &st) != 0) {
        char why[IOS_PATH_MAX + 128];
        if (ios_ior_layout_apply(ph->p, path, why, sizeof why) != 0)
            ios_phase_error(ctx, -EIO, "%s", why);
    }
    MPI_Barrier(ios_test_comm);
}

/* One IOR access on the shared engine (src/core/xfer_engine.c) with IOR's options. */
static void ior_phase_run(struct ios_phase_ctx *ctx)
{
    const struct ior_phase *ph = (const struct ior_phase *)ctx->phase;
    const struct ios_ior_params *p = ph->p;
    struct ior_launch *L = ph->launch;
    struct ios_run *run = ctx->run;
    int write = ph->access == ACC_WRITE;
    struct ior_state st;
    memset(&st, 0, sizeof st);
    struct ios_xfer_job *x = &st.x;
    st.ph = ph;
    st.nranks = run->size;
    ctx->seed = ph->seed;
    x->target = (run->rank + phase_shift(run, ph)) % run->size;
    file_of(p, x->target, ph->iteration, x->path, sizeof x->path);
    int dir_rc = make_unique_dir(p, x->path);
    if (dir_rc != 0)
        ios_phase_error(ctx, dir_rc, "create the -u directory of %s", x->path);
    ios_phase_key(ctx, "command", "%s", p->command);
    ios_phase_key(ctx, "access", "%s", write ? "write" : ph->verify ? "read+verify" : "read");
    ios_phase_key(ctx, "iteration", "%d", ph->iteration);
    ios_phase_key(ctx, "file", "%s", p->fpp ? "file-per-process" : "single-shared-file");
    ios_phase_key(ctx, "ordering", "%s", p->random ? "random" : "sequential");
    ios_phase_key(ctx, "read_shift", "%d", phase_shift(run, ph));
    ios_phase_key(ctx, "signature", "%d", ph->seed);
    int rseed = random_seed_of(p, L->random_start, L->random_calls, x->target);
    L->random_calls += p->random;
    order_init(&st.order, p, run->size, x->target, rseed);
    if (p->random)
        ios_phase_key(ctx, "random_seed", "%d", rseed);
    st.all = st.order.n * p->segments;
    x->write = write;
    x->shared = !p->fpp;
    x->xfer = p->xfer;
    x->count = write || st.all < L->read_pairs ? st.all : L->read_pairs; /* after a -D write */
    if (L->stonewall_pairs && L->stonewall_pairs < x->count)
        x->count = L->stonewall_pairs;
    x->deadline = p->deadline;
    x->min_time = p->min_time;
    x->wearout = p->wearout;
    x->fsync = p->fsync;
    /* IOR -Y fsyncs twice per write: in its POSIX backend's write and again in its loop */
    x->fsync_per_write = p->fsync_per_write ? 2 : 0;
    x->barriers = p->barriers;
    x->remove_first = !p->existing; /* IOR removes the file before writing unless -E */
    if (write && p->n_hints > 0) {
        make_with_layout(ctx, x->path, !x->shared || run->rank == 0);
        x->remove_first = 0;
    }
    x->verify = !write && ph->verify;
    x->progress_total = (double)x->count * run->size;
    x->packet = p->packet;
    x->offset = offset_op;
    x->arg = &st;
    x->stonewalled = on_stonewall;
    ios_xfer_run(ctx, x);
    reduce_timing(ctx, x);
    if (!ph->readback)
        check_file_size(ctx, x);
    if (write && p->deadline > 0)
        L->stonewall_pairs = (uint64_t)ctx->mine.items;
    free(st.order.offs);
}

/* ---------------------------------------------------------------- checks before any I/O */

/* The manifest a keeping write launch leaves beside its data (see manifest.c). */
static void manifest_path(const struct ios_ior_params *p, char *buf, size_t len)
{
    ios_path(buf, len, "%s.ioscore-test.json", p->test_file);
}

static int reads_only(const struct ios_ior_params *p)
{
    return !p->write && (p->read || p->check_read || p->check_write);
}

/*
 * The bytes of each file (file per process) or of the shared file that the write part of
 * test `m` left with data, 0 when that cannot be told: a write stopped by -D wrote the first
 * `pairs` transfers of each rank, a prefix of its file when it wrote sequentially to a file of
 * its own; a shared file or a -z write must have completed.
 */
static double written_extent(const struct ios_acc_manifest *m)
{
    double block = ios_acc_manifest_num(m, "block", NAN),
           xfer = ios_acc_manifest_num(m, "xfer", NAN);
    double segs = ios_acc_manifest_num(m, "segments", NAN);
    double tasks = ios_acc_manifest_num(m, "tasks", NAN),
           pairs = ios_acc_manifest_num(m, "pairs", -1);
    int fpp = ios_acc_manifest_num(m, "fpp", 0) != 0;
    double all = block / xfer * segs;
    if (!(pairs >= 0) || !isfinite(all))
        return 0;
    if (pairs >= all)
        return fpp ? block * segs : block * segs * tasks;
    if (fpp && ios_acc_manifest_num(m, "random", 1) == 0)
        return pairs * xfer;
    return 0;
}

/*
 * The layout of a read that differs from its write part's: 1 (and why empty) when the read
 * stays within what the write produced, else 0 with the reason in why.
 */
static int read_is_subset(const struct ios_run *run, const struct ios_ior_params *p,
                          const struct ios_acc_manifest *m, char *why, size_t len)
{
    const char *id = ios_acc_manifest_str(m, "id");
    double tasks = ios_acc_manifest_num(m, "tasks", NAN);
    double extent = written_extent(m);
    double need = (double)p->block * (double)p->segments * (p->fpp ? 1 : run->size);
    if (p->check_read) {
        snprintf(why, len,
                 "-R verifies with the write's layout: read test %s with its -b %.0f -s %.0f on "
                 "%.0f tasks, or drop -R to read a subset",
                 id, ios_acc_manifest_num(m, "block", NAN),
                 ios_acc_manifest_num(m, "segments", NAN), tasks);
        return 0;
    }
    if (p->fpp && run->size > tasks) {
        snprintf(why, len, "this read runs %d tasks, the write part of test %s wrote %.0f files",
                 run->size, id, tasks);
        return 0;
    }
    if (extent == 0) {
        snprintf(why, len,
                 "the write part of test %s stopped early (-D) %s, so which data exists cannot "
                 "be told for another -b/-s",
                 id, p->fpp ? "in -z order" : "on a shared file");
        return 0;
    }
    if (need > extent) {
        snprintf(why, len,
                 "this read needs %.0f bytes %s (-b x -s%s), the write part of test %s left "
                 "%.0f",
                 need, p->fpp ? "per file" : "of the file", p->fpp ? "" : " x tasks", id, extent);
        return 0;
    }
    why[0] = '\0';
    return 1;
}

/*
 * A read-only launch and the write part of its test (rank 0 decides, every rank learns):
 * the manifest must describe the same file layout (file per process, packet type) and
 * signature, and the same sizes and tasks unless the read stays within what the write
 * produced; its signature becomes this launch's when -G is not given. 0, or 2 after the error.
 */
static int match_write_part(const struct ios_run *run, struct ior_launch *L, int *found,
                            int32_t *seed, char id[40])
{
    const struct ios_ior_params *p = L->p;
    struct ios_acc_manifest *m = &L->manifest;
    int bad = 0;
    *found = 0;
    if (run->rank == 0) {
        char path[IOS_PATH_MAX], why[512];
        manifest_path(p, path, sizeof path);
        /* -t may differ (a 4 MiB-transfer dataset read with random 4 KiB transfers, as in
         * NERSC's IOPS tests): the data pattern depends on the offset, not the transfer. */
        const struct ios_acc_expect same[] = {
            {"fpp", (double)p->fpp, "-F"},
            {"block", (double)p->block, "-b"},
            {"segments", (double)p->segments, "-s"},
            {"tasks", (double)run->size, "tasks"},
        };
        int rc = ios_acc_manifest_check("ior", path, m, same, sizeof same / sizeof same[0], "write",
                                        why, sizeof why);
        bad = rc < 0;
        if (rc > 0 && why[0] && ios_acc_manifest_num(m, "fpp", NAN) == (double)p->fpp) {
            /* another -b/-s/task count: a subset of what the write produced is IOR's */
            char sub[400];
            if (read_is_subset(run, p, m, sub, sizeof sub)) {
                why[0] = '\0';
                L->subset_read = 1;
            } else {
                size_t n = strlen(why);
                snprintf(why + n, sizeof why - n, "; %s", sub);
            }
        }
        if (rc > 0) {
            *found = 1;
            double sig = ios_acc_manifest_num(m, "signature", NAN);
            const char *packet = ios_acc_manifest_str(m, "packet");
            if (!why[0] && strcmp(packet, p->packet_name) != 0)
                snprintf(why, sizeof why,
                         "the write part of test %s wrote --dataPacketType=%s, this read "
                         "expects %s",
                         ios_acc_manifest_str(m, "id"), packet, p->packet_name);
            if (!why[0] && p->seed_given && sig != (double)p->seed)
                snprintf(why, sizeof why,
                         "pattern of another test: the files hold test %s (signature -G %.0f), "
                         "this read asks for -G %d",
                         ios_acc_manifest_str(m, "id"), sig, p->seed);
            if (why[0]) {
                fprintf(stderr, "ioscore-suite ior: ERROR: %s (%s)\n", why, path);
                bad = 1;
            }
            *seed = p->seed_given ? p->seed : (int32_t)sig;
            snprintf(id, 40, "%.39s", ios_acc_manifest_str(m, "id"));
            double pairs = ios_acc_manifest_num(m, "pairs", -1);
            double wrote_xfer = ios_acc_manifest_num(m, "xfer", NAN);
            double wrote_all = (double)p->block / wrote_xfer * (double)p->segments;
            if (L->subset_read || why[0]) {
                /* every transfer of a subset read has data: no limit */
            } else if (wrote_xfer == (double)p->xfer) {
                if (pairs >= 0 && pairs < (double)UINT64_MAX)
                    L->read_pairs = (uint64_t)pairs;
            } else if (p->check_read) {
                snprintf(why, sizeof why,
                         "-R cannot verify test %s with -t %llu: its data pattern is laid out per "
                         "write transfer (-t %.0f); drop -R or read with -t %.0f",
                         ios_acc_manifest_str(m, "id"), (unsigned long long)p->xfer, wrote_xfer,
                         wrote_xfer);
                fprintf(stderr, "ioscore-suite ior: ERROR: %s (%s)\n", why, path);
                bad = 1;
            } else if (!(pairs >= wrote_all)) {
                /* a -D write that stopped early left a prefix in its own transfer order */
                snprintf(why, sizeof why,
                         "the write part of test %s stopped after %.0f of %.0f transfers of "
                         "-t %.0f (-D); a read with -t %llu cannot tell which data exists: use "
                         "the write's -t or a write that completes",
                         ios_acc_manifest_str(m, "id"), pairs, wrote_all, wrote_xfer,
                         (unsigned long long)p->xfer);
                fprintf(stderr, "ioscore-suite ior: ERROR: %s (%s)\n", why, path);
                bad = 1;
            }
        }
    }
    unsigned long long limit = L->read_pairs;
    MPI_Bcast(&limit, 1, MPI_UNSIGNED_LONG_LONG, 0, ios_test_comm);
    L->read_pairs = limit;
    MPI_Bcast(&L->subset_read, 1, MPI_INT, 0, ios_test_comm);
    MPI_Bcast(id, 40, MPI_CHAR, 0, ios_test_comm);
    MPI_Bcast(found, 1, MPI_INT, 0, ios_test_comm);
    MPI_Bcast(seed, 1, MPI_INT32_T, 0, ios_test_comm);
    return ios_acceptance_agree(bad);
}

/* Bytes a file must hold for `target`'s first read_pairs transfers, in the order of the
 * launch's first access (IOR reads its own -z order, not the writer's). */
static uint64_t read_extent(const struct ior_launch *L, int nranks, int target)
{
    const struct ios_ior_params *p = L->p;
    uint64_t pairs = L->read_pairs;
    struct ior_order o;
    order_init(&o, p, nranks, target, random_seed_of(p, L->random_start, 0, target));
    uint64_t end = 0, last = p->random ? pairs : 1;
    for (uint64_t i = pairs - last; i < pairs; i++) { /* sequential: the last one */
        uint64_t off = ior_offset(p, nranks, target, i, &o) + p->xfer;
        end = off > end ? off : end;
    }
    free(o.offs);
    return end;
}

static int check_before_io(struct ios_run *run, const struct ior_launch *L,
                           const struct ios_backend *be, const char *test_id)
{
    const struct ios_ior_params *p = L->p;
    uint64_t read_pairs = L->read_pairs;
    int bad = 0;
    if (run->rank == 0) {
        char copy[IOS_PATH_MAX];
        snprintf(copy, sizeof copy, "%s", p->test_file);
        const char *dir = dirname(copy);
        struct stat st;
        if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
            fprintf(stderr,
                    "ioscore-suite ior: ERROR: -o %s: directory %s does not exist (IOR does not "
                    "create it)\n",
                    p->test_file, dir);
            bad = 1;
        }
        if (!bad && ios_ior_layout_check(p) != 0) /* applied, or refused before any I/O */
            bad = 1;
    }
    if (ios_acceptance_agree(bad))
        return 2;
    if (!reads_only(p))
        return 0;
    /* a launch that reads without writing: the files must be what the write part left */
    char path[IOS_PATH_MAX];
    int shift = p->reorder_random ? random_shift(run, p, 0) : read_shift(run, p);
    int target = (run->rank + shift) % run->size;
    file_of(p, target, 0, path, sizeof path);
    uint64_t need = p->fpp ? p->block * p->segments : p->block * p->segments * (uint64_t)run->size;
    uint64_t all = p->block / p->xfer * p->segments;
    int partial = read_pairs < all; /* a fixed-time write: the file ends where its data does */
    if (partial && read_pairs == 0)
        need = 0;
    else if (partial) /* each rank checks the extent of the transfers it will read */
        need = read_extent(L, run->size, target);
    int64_t size = -1;
    int rc = be->ops->stat_size((struct ios_backend *)be, path, &size);
    int checks = p->fpp || run->rank == 0 || partial; /* one rank checks a full shared file */
    if (checks && rc != 0) {
        fprintf(stderr, "ioscore-suite ior: ERROR: rank %d: cannot read %s: %s\n", run->rank, path,
                strerror(-rc));
        bad = 1;
    } else if (checks && partial && (uint64_t)size < need) {
        fprintf(stderr,
                "ioscore-suite ior: ERROR: file %s is %" PRId64 " bytes, the write part of "
                "test %s wrote %" PRIu64 " transfers per rank (stopped by -D), which need %" PRIu64
                "\n",
                path, size, test_id, read_pairs, need);
        bad = 1;
    } else if (checks && test_id[0] && !partial && !L->subset_read && (uint64_t)size != need) {
        fprintf(stderr,
                "ioscore-suite ior: ERROR: file %s is %" PRId64 " bytes, the write part of "
                "test %s wrote %" PRIu64 "\n",
                path, size, test_id, need);
        bad = 1;
    } else if (checks && (uint64_t)size < need) {
        fprintf(stderr,
                "ioscore-suite ior: ERROR: rank %d: %s has %" PRId64 " bytes; this read "
                "needs %" PRIu64 " (-b x -s%s): not the file this test wrote\n",
                run->rank, path, size, need, p->fpp ? "" : " x tasks");
        bad = 1;
    }
    /* no sample of the data: a read before the timed one would warm the cache it measures;
     * the manifest says whose data the files hold, and -R verifies inside the timed read */
    return ios_acceptance_agree(bad);
}

/* ---------------------------------------------------------------- IOR's output */

/* One row of IOR's results table from the reduced timers, rank 0. */
static void row_of(const struct ior_timing *t, const struct ios_ior_params *p,
                   struct ios_ior_row *row)
{
    memset(row, 0, sizeof *row);
    row->open = t->open_stop - t->open_start;
    row->io = t->rdwr_stop - t->rdwr_start;
    row->close = t->close_stop - t->close_start;
    row->total = t->close_stop - t->open_start;
    row->bytes = t->bytes;
    double xfers = t->bytes / (double)p->xfer;
    row->mib = row->total > 0 ? t->bytes / row->total / 1048576.0 : 0;
    row->iops = row->io > 0 ? xfers / row->io : 0;            /* over the wr/rd time */
    row->ops_total = row->total > 0 ? xfers / row->total : 0; /* the summary's OPs */
    row->latency = isfinite(t->min_latency) ? t->min_latency : 0;
    row->sw_time = t->stonewall_time;
    row->sw_bytes = t->stonewall_bytes;
}

/* -vv: every rank's share, so a slow rank, node or link shows (Cray's per-rank diagnosis);
 * above the rank-detail threshold the named slowest and fastest ranks and the quantiles */
static void print_ranks(FILE *o, const struct ios_phase_result *res)
{
    double t0 = INFINITY;
    for (int r = 0; r < res->n_ranks; r++)
        t0 = fmin(t0, res->ranks[r].start);
    const struct ios_rank_sketch *sk = res->summary ? &res->summary->sketch : NULL;
    if (sk) {
        t0 = sk->t0;
        fprintf(o, "  rank MiB/s over all %d ranks:", res->procs);
        for (int q = 0; q < IOS_RS_QUANTILES; q++)
            fprintf(o, " p%d %.2f", ios_rs_quantile_pct[q],
                    ios_rank_sketch_quantile(sk, IOS_RS_RATE, ios_rs_quantile_pct[q]) / 1048576.0);
        fprintf(o, "\n  only the %d slowest and %d fastest ranks:\n", sk->n_slow, sk->n_fast);
    }
    fprintf(o, "  %6s %-24s %10s %10s %12s %10s\n", "rank", "host", "start(s)", "end(s)", "MiB",
            "MiB/s");
    for (int r = 0; r < res->n_ranks; r++) {
        const struct ios_rank_stats *s = &res->ranks[r];
        double span = s->end - s->start;
        fprintf(o, "  %6d %-24s %10.4f %10.4f %12.2f %10.2f\n",
                res->rank_ids ? res->rank_ids[r] : r, res->hosts[r], s->start - t0, s->end - t0,
                s->bytes / 1048576.0, span > 0 ? s->bytes / span / 1048576.0 : 0);
    }
}

/* Data per node against host RAM: does the client cache hold everything? (rank 0 notes) */
static void note_ram(struct ios_acc_report *rep, const char *op, double bytes, double ram,
                     const char *host)
{
    if (ram <= 0)
        return;
    char size[32];
    if (bytes < 1073741824.0)
        snprintf(size, sizeof size, "%.1f MiB", bytes / 1048576.0);
    else
        snprintf(size, sizeof size, "%.2f GiB", bytes / 1073741824.0);
    double ram_gib = ram / 1073741824.0;
    if (bytes <= ram)
        ios_acc_note(rep, op, "client-cache",
                     "file size per node %s vs host RAM %.1f GiB (%s): data fits in client cache",
                     size, ram_gib, host);
    else
        ios_acc_note(rep, op, "server-cache",
                     "file size per node %s is %.1f x host RAM %.1f GiB (%s): the client cache "
                     "cannot hold it all",
                     size, bytes / ram, ram_gib, host);
}

/* What each number could have measured (acceptance practice asks it of every number). */
static void add_notes(struct ios_acc_report *rep, const struct ios_run *run,
                      const struct ios_ior_params *p, const struct ios_backend *be, int two_part,
                      double node_bytes, double node_ram, const char *host, int on_node)
{
    int same_host = on_node == run->size; /* every rank reads data its own node wrote */
    int direct = (ios_backend_modes(be) & IOS_MODE_DIRECT) != 0;
    if (p->write) {
        if (direct)
            ios_acc_note(rep, "write", "server-cache", "O_DIRECT: client cache bypassed");
        if (p->fsync)
            ios_acc_note(rep, "write", "media-likely",
                         "fsync inside the write timing (-e): the data reached the servers' "
                         "stable storage");
        else if (!direct)
            ios_acc_note(rep, "write", "client-cache",
                         "no fsync in write timing (-e not set): write may end in client cache");
        if (!direct && !p->fsync)
            note_ram(rep, "write", node_bytes, node_ram, host);
    }
    if (!p->read)
        return;
    int shift = read_shift(run, p);
    if (direct) {
        ios_acc_note(rep, "read", "server-cache", "O_DIRECT: client cache bypassed");
        return;
    }
    if (two_part || !p->write)
        ios_acc_note(rep, "read", same_host ? "client-cache" : "server-cache",
                     "read in a separate launch after the write (two-part test): %s",
                     same_host ? "client page cache possible unless it was dropped between "
                                 "the launches"
                               : "each node reads another node's data, server cache possible");
    else if (same_host)
        ios_acc_note(rep, "read", "client-cache",
                     "read of data written by this node with %s: client page cache likely",
                     shift        ? "a task shift within the node"
                     : p->reorder ? "-C but a task shift of 0 (one node)"
                                  : "no task shift (-C/-Q not set)");
    else if (on_node > 0) /* the placement wraps some shifted reads back to the same node */
        ios_acc_note(rep, "read", "client-cache",
                     "%d of %d ranks read data written by their own node (-C shift %d): client "
                     "page cache likely for those",
                     on_node, run->size, shift);
    else
        ios_acc_note(rep, "read", "server-cache",
                     "read of data written by another node (-C shift %d): no client cache hit, "
                     "server cache possible",
                     shift);
    if (same_host)
        note_ram(rep, "read", node_bytes, node_ram, host);
}

/* ---------------------------------------------------------------- the run */

/* -O stoneWallingStatusFile in a launch that reads: the pairs count a wear-out write stored
 * there bounds every read of the launch (IOR's stoneWallingWearOutIterations); a file that
 * cannot be read is a warning and no bound, as in IOR. */
static void read_status_file(const struct ios_run *run, struct ior_launch *L)
{
    const struct ios_ior_params *p = L->p;
    long long pairs = -1;
    if (run->rank == 0) {
        FILE *f = fopen(p->stonewall_status_file, "r");
        if (!f || fscanf(f, "%lld", &pairs) != 1 || pairs < 0)
            pairs = -1;
        if (f)
            fclose(f);
        if (pairs < 0)
            fprintf(stderr,
                    "ioscore-suite ior: WARNING: could not read back the stonewalling status "
                    "from %s: the read is not bounded by it\n",
                    p->stonewall_status_file);
    }
    MPI_Bcast(&pairs, 1, MPI_LONG_LONG, 0, ios_test_comm);
    if (pairs > 0 && (uint64_t)pairs < L->read_pairs)
        L->read_pairs = (uint64_t)pairs;
}

/* -O stoneWallingStatusFile after a wear-out write: rank 0 stores the pairs count. */
static void write_status_file(const struct ior_launch *L)
{
    const struct ios_ior_params *p = L->p;
    FILE *f = fopen(p->stonewall_status_file, "w");
    if (!f || fprintf(f, "%llu", L->write_max_pairs) < 0 || fclose(f) != 0)
        fprintf(stderr, "ioscore-suite ior: ERROR: cannot write the stonewalling status file %s\n",
                p->stonewall_status_file);
}

/* IOR's removal between repetitions (its RemoveFile): the owner asks the backend whether the
 * file exists (MPI-IO opens it to tell), then removes it; the time from barrier to barrier
 * is the remove row's. */
static void remove_files(const struct ios_run *run, struct ior_launch *L, struct ios_backend *be,
                         int iter)
{
    const struct ios_ior_params *p = L->p;
    char path[IOS_PATH_MAX];
    double start = ios_wtime();
    MPI_Barrier(ios_test_comm);
    if (p->fpp || run->rank == 0) {
        file_of(p, run->rank, iter, path, sizeof path);
        int64_t size;
        int rc = ior_file_size(be, p, path, &size);
        if (rc == 0)
            rc = be->ops->unlink(be, path);
        if (rc != 0 && rc != -ENOENT)
            fprintf(stderr, "ioscore-suite ior: WARNING: rank %d: cannot remove %s: %s\n",
                    run->rank, path, strerror(-rc));
    }
    MPI_Barrier(ios_test_comm);
    if (run->rank == 0)
        ios_ior_out_remove(&L->doc, p, ios_wtime() - start, iter);
}

static void init_phase(struct ior_phase *ph, struct ior_launch *L, const char *what,
                       enum ior_access access, int verify, int iter, int32_t seed)
{
    const struct ios_ior_params *p = L->p;
    memset(ph, 0, sizeof *ph);
    snprintf(ph->name, sizeof ph->name, "ior-%s-%d", what, iter);
    ph->base.name = ph->name;
    ph->base.score_group = IOS_GROUP_NONE;
    ph->base.type = access == ACC_WRITE ? IOS_PHASE_WRITE : IOS_PHASE_READ;
    ph->base.metric = IOS_METRIC_BW;
    ph->base.csv_kind = "ior";
    ph->base.has_log = 1;
    ph->base.run = ior_phase_run;
    ph->p = p;
    ph->launch = L;
    ph->access = access;
    ph->verify = verify;
    ph->readback = access == ACC_READ && strcmp(what, "readback") == 0;
    ph->iteration = iter;
    ph->seed = seed;
}

static int32_t agreed_seed(const struct ios_run *run, const struct ios_ior_params *p)
{
    int32_t seed = p->seed;
    if (!p->seed_given && run->rank == 0)
        seed = (int32_t)(uint32_t)ios_wtime(); /* IOR: the test's start time */
    MPI_Bcast(&seed, 1, MPI_INT32_T, 0, ios_test_comm);
    return seed;
}

/*
 * Rank 0, at the end: the test this launch belongs to. A launch that keeps what it wrote starts
 * a test and leaves its manifest; a read-only launch that found one is that test's second
 * part, also when I/O errors stopped it (the test's read failed: its report says where); a
 * launch that removed the files removes the manifest with them.
 */
static void record_test(const struct ios_run *run, struct ior_launch *L,
                        const struct ios_acc_manifest *manifest, int32_t seed)
{
    const struct ios_ior_params *p = L->p;
    uint64_t written_pairs = L->written_pairs;
    struct ios_acc_report *rep = &L->acc.report;
    char path[IOS_PATH_MAX];
    manifest_path(p, path, sizeof path);
    if (!p->keep || run->aborted) {
        if (!p->keep && unlink(path) != 0 && errno != ENOENT)
            fprintf(stderr, "ioscore-suite ior: WARNING: cannot remove %s: %s\n", path,
                    strerror(errno));
        if (!manifest)
            return;
    }
    if (manifest) {
        snprintf(rep->test_id, sizeof rep->test_id, "%s", ios_acc_manifest_str(manifest, "id"));
        ios_acc_part_from_manifest(manifest, &ior_measure, &rep->parts[rep->n_parts++]);
        ios_acc_add_own_part(rep, run, "read", p->command);
        return;
    }
    if (!p->write)
        return; /* a read-only launch of files without a manifest: no recorded test */
    ios_acc_new_test_id(rep->test_id, sizeof rep->test_id);
    ios_acc_add_own_part(rep, run, p->read ? "write+read" : "write", p->command);
    struct ios_json j;
    ios_acc_manifest_begin(&j, "ior", rep->test_id);
    ios_json_string(&j, "test_file", p->test_file);
    ios_json_string(&j, "api", p->api);
    ios_json_int(&j, "block", (int64_t)p->block);
    ios_json_int(&j, "xfer", (int64_t)p->xfer);
    ios_json_int(&j, "segments", (int64_t)p->segments);
    ios_json_int(&j, "tasks", run->size);
    ios_json_int(&j, "fpp", p->fpp);
    ios_json_int(&j, "random", p->random); /* a -D write's data is a prefix only without -z */
    ios_json_int(&j, "pairs", (int64_t)written_pairs);     /* transfers every rank wrote */
    if (written_pairs == p->block / p->xfer * p->segments) /* not stopped by -D */
        ios_json_int(&j, "file_bytes",
                     (int64_t)(p->block * p->segments * (p->fpp ? 1 : (uint64_t)run->size)));
    ios_json_string(&j, "packet", p->packet_name);
    ios_json_int(&j, "signature", seed);
    int rc = ios_acc_manifest_finish(&j, &rep->parts[0], path);
    if (rc != 0)
        fprintf(stderr, "ioscore-suite ior: WARNING: cannot write the test manifest %s: %s\n", path,
                strerror(-rc));
}

/* The backend for -a and its modes; 0, or 2 after rank 0 printed why. */
static int make_backend(const struct ios_run *run, const struct ios_ior_params *p,
                        struct ios_backend *be)
{
    char err[IOS_MSG_MAX], api[96];
    int uring = strcmp(p->api, "IOURING") == 0;
    snprintf(api, sizeof api, "%s%s", p->api,
             p->odirect ? (uring ? " --iouring.odirect" : " --posix.odirect") : "");
    if (uring && p->depth)
        snprintf(api + strlen(api), sizeof api - strlen(api), " --iouring.depth=%d", p->depth);
    if (ios_backend_create(api, be, err, sizeof err) != 0) {
        if (run->rank == 0)
            fprintf(stderr, "ioscore-suite ior: ERROR: %s\n", err);
        return 2;
    }
    if (p->collective && ios_backend_set_collective(be) != 0 && run->rank == 0)
        fprintf(stderr,
                "ioscore-suite ior: WARNING: -c (collective) has no meaning for -a %s; "
                "independent I/O\n",
                p->api);
    return 0;
}

/* Rank 0's warnings about the task counts (-C with no shift, -N above the launched ranks). */
static void warn_tasks(const struct ios_run *run, const struct ios_ior_params *p)
{
    if (run->rank != 0)
        return;
    if (p->reorder && read_shift(run, p) == 0)
        fprintf(stderr,
                "ioscore-suite ior: WARNING: -C: the shift -Q %d x %d ranks per host is 0 mod %d "
                "tasks: every rank reads its own data (as IOR on one node)\n",
                p->task_offset, run->block_mapped ? run->ppn0 : 1, run->size);
    if (p->num_tasks > run->size)
        fprintf(stderr,
                "ioscore-suite ior: WARNING: more tasks requested (-N %d) than available (%d), "
                "running with %d tasks (as IOR)\n",
                p->num_tasks, run->size, run->size);
}

/* -H: the MPI-IO hints the backend passes to MPI_File_open (rank 0). */
static void show_hints(FILE *extra, const struct ios_backend *be)
{
    fprintf(extra, "\nMPI-IO hints given to MPI_File_open (IOR_HINT__MPI__* variables):\n");
    const struct ios_hint *hints;
    int n_hints = ios_backend_hints(be, &hints);
    for (int h = 0; h < n_hints; h++)
        fprintf(extra, "  %s = %s\n", hints[h].key, hints[h].value);
    if (n_hints == 0)
        fprintf(extra, "  (none: the MPI library's defaults)\n");
    fflush(extra);
}

/* One step of a repetition: IOR's write, its -W check, its read (-R verifies inside it). */
struct ior_step {
    int on;
    const char *what;
    enum ior_access access;
    int verify;
    struct ios_ior_series *series;
};

/* -T: IOR starts no access once the test has run that many minutes (rank 0's clock). */
static int past_max_time(const struct ios_run *run, const struct ios_ior_params *p)
{
    if (p->max_minutes <= 0)
        return 0;
    int over = run->rank == 0 && ios_wtime() - run->t_run_start >= p->max_minutes * 60.0;
    MPI_Bcast(&over, 1, MPI_INT, 0, ios_test_comm);
    return over;
}

/* Runs one step as a phase of the engine and, on rank 0, prints and records its row. Returns
 * the verify errors it found (rank 0). */
static double run_step(struct ios_run *run, struct ior_launch *L, const struct ior_step *step,
                       int iter, int32_t seed, FILE *extra)
{
    const struct ios_ior_params *p = L->p;
    struct ior_phase *ph = &L->phases[L->n_phases++];
    init_phase(ph, L, step->what, step->access, step->verify, iter, seed);
    if (run->rank == 0 && p->verbose > 0)
        fprintf(extra, "Commencing %s performance test\n", step->what);
    struct ios_phase_result *res = ios_run_one_phase(run, &ph->base);
    if (run->rank != 0)
        return 0;
    struct ios_ior_row row;
    row_of(&L->last_timing, p, &row);
    step->series->rows[step->series->n++] = row;
    if (step->access == ACC_WRITE) { /* what every rank wrote (less after -D) */
        struct ios_rank_totals t = ios_phase_totals(res);
        L->written_pairs = t.ranks > 0 ? (uint64_t)t.min_items : UINT64_MAX;
    }
    struct ios_acc_series *acc =
        ph->readback ? NULL : ios_acc_series_of(&L->acc.report, step->what, &ior_measure);
    if (acc) { /* what the summary table's row of this operation is made of */
        acc->has_ops = 1;
        acc->values[acc->n] = row.mib;
        acc->ops[acc->n] = row.ops_total; /* the summary's OPs: over the total time */
        acc->time[acc->n++] = row.total;
    }
    ios_ior_out_row(&L->doc, step->what, &row, p, iter);
    if (p->verbose >= 2)
        print_ranks(extra, res);
    if (res->verify_errors > 0)
        fprintf(extra, "WARNING: incorrect data on %s (%.0f errors found)\n", step->what,
                res->verify_errors);
    fflush(extra);
    return res->verify_errors;
}

/* The -i repetitions in IOR's order; the verify errors found (rank 0). */
static double run_repetitions(struct ios_run *run, struct ior_launch *L, struct ios_backend *be,
                              struct ios_ior_series series[3], int32_t seed, FILE *extra)
{
    const struct ios_ior_params *p = L->p;
    double verify_errors = 0;
    for (int iter = 0; iter < p->reps && !run->aborted; iter++) {
        /* the -W check is untimed (its own row here, not in the summary) */
        const struct ior_step steps[3] = {
            {p->write, "write", ACC_WRITE, 0, &series[0]},
            {p->check_write, "readback", ACC_READ, 1, &series[2]},
            {p->read || p->check_read, "read", ACC_READ, p->check_read, &series[1]},
        };
        for (int s = 0; s < 3 && !run->aborted; s++) {
            if (!steps[s].on)
                continue;
            if (past_max_time(run, p)) {
                if (run->rank == 0 && p->verbose > 0)
                    printf("maxTimeDuration (-T %d) reached: no %s\n", p->max_minutes,
                           steps[s].what);
                continue;
            }
            /* -d: before every write or read phase after the first */
            if (s != 1 && L->n_phases > 0 && p->inter_delay > 0) {
                if (run->rank == 0 && p->verbose > 0)
                    fprintf(extra, "delaying %d seconds . . .\n", p->inter_delay);
                sleep((unsigned)p->inter_delay);
                MPI_Barrier(ios_test_comm);
            }
            verify_errors += run_step(run, L, &steps[s], iter, seed, extra);
        }
        if (!p->keep && !run->aborted) /* IOR: without -k, even after a read-only run */
            remove_files(run, L, be, iter);
    }
    return verify_errors;
}

/* Everything before the first access: 0, or 2 after the reason was printed. */
static int prepare(struct ios_run *run, struct ior_launch *L, struct ios_backend *be,
                   int *have_manifest, int32_t *seed, char test_id[40])
{
    const struct ios_ior_params *p = L->p;
    if (make_backend(run, p, be) != 0)
        return 2;
    warn_tasks(run, p);
    *seed = agreed_seed(run, p);
    if (reads_only(p) && match_write_part(run, L, have_manifest, seed, test_id) != 0)
        return 2;
    if (p->check_read && !p->write && !p->seed_given && !*have_manifest && run->rank == 0)
        fprintf(stderr, "ioscore-suite ior: WARNING: -R in a read-only launch without -G and "
                        "without the write part's manifest: the data is compared with this "
                        "launch's signature and will mismatch; give the writer's -G\n");
    if (p->stonewall_status_file[0] && (p->read || p->check_read))
        read_status_file(run, L);
    L->random_start = (int32_t)(uint32_t)ios_wtime();              /* -z without a seed: IOR's */
    MPI_Bcast(&L->random_start, 1, MPI_INT32_T, 0, ios_test_comm); /* time(NULL), rank 0 */
    if (check_before_io(run, L, be, test_id) != 0)
        return 2;
    if (ios_acceptance_agree(run->rank == 0 && ios_ior_out_open(&L->doc, p) != 0))
        return 2;
    char stale[IOS_PATH_MAX];
    manifest_path(p, stale, sizeof stale);
    /* result.json's stonewall_s is the launch's -D; the phases take it (and -l) from p */
    return ios_acceptance_start(run, "ior", be, p->write ? stale : NULL, &L->acc, p->deadline) != 0
               ? 2
               : 0;
}

/* Rank 0 after the repetitions: IOR's closing lines, then ioscore's notes and records. */
static void finish_output(const struct ios_run *run, struct ior_launch *L,
                          const struct ios_ior_series series[3], int have_manifest, int32_t seed,
                          FILE *extra)
{
    const struct ios_ior_params *p = L->p;
    ios_ior_out_end_results(&L->doc, p, &series[0], &series[1]);
    if (p->wearout && p->deadline > 0) /* IOR's log line at the end of the test */
        fprintf(extra, "Pairs deadlineForStonewallingaccessed: %llu\n", L->first_write_pairs);
    ios_ior_out_summary(&L->doc, run, p, series, 2);
    ios_ior_out_finish(&L->doc);
    ios_acc_print_notes(extra, &L->acc.report); /* ioscore's sections after IOR's last line */
    record_test(run, L, have_manifest ? &L->manifest : NULL, seed);
    if (p->stonewall_status_file[0] && p->write && p->wearout && !run->aborted)
        write_status_file(L);
    fflush(extra);
}

static int run_launch(struct ios_run *run, struct ior_launch *L)
{
    const struct ios_ior_params *p = L->p;
    struct ios_backend be;
    int have_manifest = 0;
    char test_id[40] = "";
    int32_t seed = 0;
    int rc = prepare(run, L, &be, &have_manifest, &seed, test_id);
    if (rc != 0)
        return rc;
    struct ios_ior_series series[3] = {
        {.access = "write"}, {.access = "read"}, {.access = "readback"}};
    FILE *extra = stdout; /* ioscore's own lines: never inside IOR's JSON or CSV document */
    if (run->rank == 0) {
        extra = ios_ior_out_extra(p);
        ios_ior_out_header(&L->doc, run, p, (ios_backend_modes(&be) & IOS_MODE_COLLECTIVE) != 0,
                           seed);
        if (p->show_hints)
            show_hints(extra, &be);
        ios_ior_out_results_start(&L->doc);
    }
    double verify_errors = run_repetitions(run, L, &be, series, seed, extra);
    double node_bytes = 0, node_ram = 0;
    char host[IOS_HOST_MAX];
    ios_acc_data_vs_ram(run, (double)(p->block * p->segments), &node_bytes, &node_ram, host,
                        sizeof host);
    /* how many ranks read their own host's data? (collective: every rank answers) */
    int on_node = ios_shift_ranks_on_node(run, read_shift(run, p));
    if (run->rank == 0) {
        add_notes(&L->acc.report, run, p, &be, have_manifest, node_bytes, node_ram, host, on_node);
        finish_output(run, L, series, have_manifest, seed, extra);
    }
    MPI_Bcast(&verify_errors, 1, MPI_DOUBLE, 0, ios_test_comm);
    rc = ios_acceptance_finish(run, "ior");
    return rc ? rc : verify_errors > 0 ? 1 : 0;
}

int ios_ior_run(struct ios_run *run, const struct ios_ior_params *p)
{
    struct ior_launch *L = calloc(1, sizeof *L);
    if (!L)
        ios_fatal("out of memory (the launch's state)");
    L->p = p;
    L->read_pairs = UINT64_MAX;
    int rc = run_launch(run, L);
    free(L);
    return rc;
}
