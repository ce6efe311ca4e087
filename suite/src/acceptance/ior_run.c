/*
 * `ioscore-suite ior`: one IOR test (-i repetitions of write, read-back check and read) run as
 * phases of the standard engine (ios_run_one_phase): same backends, op loop with stonewall,
 * latency histograms, time series, per-rank CSVs and result.json (mode "ior"). This file only
 * knows IOR's file layout and access order, and prints IOR's tables from the gathered results.
 *   file per process (-F): <o>.%08d, segment g's block at g*b
 *   shared file:           rank p's block of segment g at (g*N + p)*b
 *   transfer k of a block at k*t; -z visits each rank's transfers in a keyed random order
 */
#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ioscore/acceptance.h"
#include "ioscore/report.h"

enum ior_access { ACC_WRITE, ACC_READ };

/* A phase of the engine plus what the IOR access needs; base first, the engine sees only it. */
struct ior_phase {
    struct ios_phase base;
    const struct ios_ior_params *p;
    enum ior_access access;
    int verify;
    int iteration;
    int32_t seed;
    char name[48];
};

struct ior_state {
    struct ios_phase_ctx *ctx;
    const struct ior_phase *ph;
    int target; /* the rank whose data is accessed */
    char path[IOS_PATH_MAX];
    int64_t handle;
    void *buf;
    uint64_t per_block, count, key;
};

/* splitmix64 finaliser: the round function of the -z permutation. */
static uint64_t mix(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* A 4-round Feistel network on 2*half bits, cycle-walked into [0, n): a bijection of [0, n)
 * without a table (at most 4 steps on average), so -z costs no memory at any size. */
uint64_t ios_ior_permute(uint64_t i, uint64_t n, uint64_t key)
{
    if (n <= 1)
        return 0;
    int bits = 64 - __builtin_clzll(n - 1);
    int half = (bits + 1) / 2;
    uint64_t mask = (1ull << half) - 1;
    uint64_t x = i;
    do {
        uint64_t l = x >> half, r = x & mask;
        for (int round = 0; round < 4; round++) {
            uint64_t t = l ^ (mix(r ^ key ^ ((uint64_t)round << 60)) & mask);
            l = r;
            r = t;
        }
        x = (l << half) | r;
    } while (x >= n);
    return x;
}

static void file_of(const struct ios_ior_params *p, int rank, char *buf, size_t len)
{
    if (p->fpp)
        ios_path(buf, len, "%s.%08d", p->test_file, rank);
    else
        ios_path(buf, len, "%s", p->test_file);
}

static uint64_t offset_of(const struct ior_state *st, uint64_t i)
{
    const struct ios_ior_params *p = st->ph->p;
    uint64_t idx = p->random ? ios_ior_permute(i, st->count, st->key) : i;
    uint64_t seg = idx / st->per_block, k = idx % st->per_block;
    if (p->fpp)
        return seg * p->block + k * p->xfer;
    uint64_t n = (uint64_t)st->ctx->run->size;
    return (seg * n + (uint64_t)st->target) * p->block + k * p->xfer;
}

static int transfer_op(void *state, uint64_t i)
{
    struct ior_state *st = state;
    struct ios_phase_ctx *ctx = st->ctx;
    const struct ios_ior_params *p = st->ph->p;
    uint64_t off = offset_of(st, i);
    int write = st->ph->access == ACC_WRITE;
    ssize_t n;
    if (write) {
        if (ios_packet_varies_per_item(p->packet))
            ios_pattern_update(st->buf, p->xfer, ctx->seed, ctx->run->rank, p->packet, off);
        n = ctx->be.ops->pwrite(&ctx->be, st->handle, st->buf, p->xfer, (off_t)off);
    } else {
        n = ctx->be.ops->pread(&ctx->be, st->handle, st->buf, p->xfer, (off_t)off);
    }
    if (n < 0 || (uint64_t)n != p->xfer) {
        ios_phase_error(ctx, n < 0 ? (int)n : -EIO, "%s %s at offset %" PRIu64 "%s",
                        write ? "write" : "read", st->path, off,
                        n < 0 ? "" : ": short transfer (end of file?)");
        return -1;
    }
    if (!write && st->ph->verify &&
        !ios_pattern_matches(st->buf, p->xfer, ctx->seed, st->target, p->packet, off)) {
        if (ctx->mine.verify_errors == 0)
            fprintf(stderr,
                    "ioscore-suite ior: rank %d: data mismatch in %s at offset %" PRIu64
                    " (expected the data of rank %d, -G %d)\n",
                    ctx->run->rank, st->path, off, st->target, ctx->seed);
        ctx->mine.verify_errors += 1;
    }
    ctx->mine.items += 1;
    ctx->mine.bytes += (double)p->xfer;
    return 0;
}

/* The rank shift of -C: IOR's (Q * tasks per node) mod N; 0 without -C. */
static int read_shift(const struct ios_run *run, const struct ios_ior_params *p)
{
    if (!p->reorder || run->size < 1)
        return 0;
    return (int)(((int64_t)p->task_offset * run->ppn0) % run->size);
}

/* open, [barrier], transfers (stonewall, wear-out), [fsync], [barrier], close */
static void ior_phase_run(struct ios_phase_ctx *ctx)
{
    const struct ior_phase *ph = (const struct ior_phase *)ctx->phase;
    const struct ios_ior_params *p = ph->p;
    struct ios_run *run = ctx->run;
    int write = ph->access == ACC_WRITE;
    struct ior_state st;
    memset(&st, 0, sizeof st);
    st.ctx = ctx;
    st.ph = ph;
    ctx->seed = ph->seed;
    st.target = write ? run->rank : (run->rank + read_shift(run, p)) % run->size;
    file_of(p, st.target, st.path, sizeof st.path);
    ios_phase_key(ctx, "command", "%s", p->command);
    ios_phase_key(ctx, "access", "%s", write ? "write" : ph->verify ? "read+verify" : "read");
    ios_phase_key(ctx, "iteration", "%d", ph->iteration);
    ios_phase_key(ctx, "file", "%s", p->fpp ? "file-per-process" : "single-shared-file");
    ios_phase_key(ctx, "ordering", "%s", p->random ? "random" : "sequential");
    ios_phase_key(ctx, "read_shift", "%d", write ? 0 : read_shift(run, p));
    ios_phase_key(ctx, "signature", "%d", ph->seed);
    st.per_block = p->block / p->xfer;
    st.count = st.per_block * p->segments;
    st.key = mix((uint64_t)(uint32_t)ph->seed ^ ((uint64_t)st.target << 32));
    st.buf = ios_alloc_buffer(&ctx->be, p->xfer);
    if (write)
        ios_pattern_fill(st.buf, p->xfer, ctx->seed, run->rank, p->packet, 0);

    int shared = !p->fpp;
    if (write && !p->existing) { /* IOR removes the file before writing unless -E */
        if (!shared || run->rank == 0) {
            int rc = ctx->be.ops->unlink(&ctx->be, st.path);
            if (rc != 0 && rc != -ENOENT)
                ios_phase_error(ctx, rc, "remove the old %s", st.path);
        }
        if (shared)
            MPI_Barrier(MPI_COMM_WORLD);
    }
    ctx->lockstep = ctx->be.collective && shared;

    ctx->mine.start = ios_wtime();
    int flags = write ? IOS_OPEN_WRITE | IOS_OPEN_CREATE : IOS_OPEN_READ;
    if (shared)
        flags |= IOS_OPEN_SHARED;
    int rc = ctx->be.ops->open(&ctx->be, st.path, flags, &st.handle);
    if (rc != 0)
        ios_phase_error(ctx, rc, "open %s", st.path);
    int open_ok = rc == 0;
    if (p->barriers)
        MPI_Barrier(MPI_COMM_WORLD);

    double deadline = p->deadline;
    ctx->mine.loop_start = ios_wtime();
    ios_instrument_progress_start(&ctx->instr, 1, deadline, (double)st.count * run->size,
                                  &ctx->mine.items, &ctx->mine.bytes);
    int ok = open_ok;
    uint64_t j = ios_run_ops(ctx, transfer_op, &st, 0, st.count, deadline, &ok);
    ctx->mine.first_done = ios_wtime();
    ctx->mine.items_at_deadline = (double)j;
    ctx->mine.bytes_at_deadline = (double)j * (double)p->xfer;
    if (deadline > 0) {
        unsigned long long mine = j, max_pairs = 0;
        MPI_Allreduce(&mine, &max_pairs, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
        if (p->wearout) /* every rank continues to the busiest rank's count */
            j = ios_run_ops(ctx, transfer_op, &st, j, max_pairs, 0, &ok);
        ctx->res->has_stonewall = 1;
        ctx->res->deadline_s = deadline;
        ctx->res->stonewall_time = ctx->mine.first_done - ctx->mine.loop_start;
        ios_phase_key(ctx, "stonewall_pairs_max", "%llu", max_pairs);
    }
    int collective_open = shared && (ctx->be.ops->caps & IOS_CAP_COLLECTIVE);
    if (write && p->fsync && open_ok && (ok || collective_open)) {
        rc = ctx->be.ops->fsync(&ctx->be, st.handle);
        if (rc != 0)
            ios_phase_error(ctx, rc, "fsync %s", st.path);
    }
    ctx->mine.loop_end = ios_wtime();
    if (p->barriers)
        MPI_Barrier(MPI_COMM_WORLD);
    if (open_ok) {
        rc = ctx->be.ops->close(&ctx->be, st.handle);
        if (rc != 0)
            ios_phase_error(ctx, rc, "close %s", st.path);
    }
    ctx->mine.end = ios_wtime();
    ctx->mine.end_before_barrier = ctx->mine.end;
    free(st.buf);
}

/* ---------------------------------------------------------------- checks before any I/O */

/* Every rank: 0, or 2 after the failing ranks printed why (all ranks agree). */
static int agree(int mine_failed)
{
    int any = 0;
    MPI_Allreduce(&mine_failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return any ? 2 : 0;
}

static int check_before_io(struct ios_run *run, const struct ios_ior_params *p,
                           const struct ios_backend *be)
{
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
    }
    if (agree(bad))
        return 2;
    /* a launch that reads without writing: the files must hold what the read will touch */
    if (!p->write && (p->read || p->check_read || p->check_write)) {
        char path[IOS_PATH_MAX];
        int target = (run->rank + read_shift(run, p)) % run->size;
        file_of(p, target, path, sizeof path);
        uint64_t need =
            p->fpp ? p->block * p->segments : p->block * p->segments * (uint64_t)run->size;
        int64_t size = -1;
        int rc = be->ops->stat_size((struct ios_backend *)be, path, &size);
        if ((p->fpp || run->rank == 0) && rc != 0) {
            fprintf(stderr, "ioscore-suite ior: ERROR: rank %d: cannot read %s: %s\n", run->rank,
                    path, strerror(-rc));
            bad = 1;
        } else if ((p->fpp || run->rank == 0) && (uint64_t)size < need) {
            fprintf(stderr,
                    "ioscore-suite ior: ERROR: rank %d: %s has %" PRId64 " bytes; this read "
                    "needs %" PRIu64 " (-b x -s%s): not the file this test wrote\n",
                    run->rank, path, size, need, p->fpp ? "" : " x tasks");
            bad = 1;
        }
    }
    return agree(bad);
}

/* ---------------------------------------------------------------- IOR's human output */

static void human_size(uint64_t bytes, char *buf, size_t len)
{
    static const char *const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB"};
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024 && u < 5) {
        v /= 1024;
        u++;
    }
    snprintf(buf, len, "%.*f %s", v == floor(v) ? 0 : 2, v, units[u]);
}

static void print_header(const struct ios_run *run, const struct ios_ior_params *p,
                         const struct ios_backend *be, int32_t seed)
{
    char now[64], xfer[32], block[32], agg[32];
    ios_format_time(ios_wtime(), "%a %b %d %H:%M:%S %Y", now, sizeof now);
    human_size(p->xfer, xfer, sizeof xfer);
    human_size(p->block, block, sizeof block);
    human_size(p->block * p->segments * (uint64_t)run->size, agg, sizeof agg);
    printf("ioscore-suite ior %s: IOR command lines on the ioscore engine\n", run->version);
    printf("Began               : %s\n", now);
    printf("Command line        : %s\n", p->command);
    printf("Machine             : %s\n", run->host);
    printf("Path                : %s\n", p->test_file);
    printf("Results             : %s\n", run->resdir);
    printf("\nOptions: \n");
    printf("api                 : %s\n", p->api);
    printf("test filename       : %s\n", p->test_file);
    printf("access              : %s\n", p->fpp ? "file-per-process" : "single-shared-file");
    printf("type                : %s\n", be->collective ? "collective" : "independent");
    printf("segments            : %" PRIu64 "\n", p->segments);
    printf("ordering in a file  : %s\n", p->random ? "random" : "sequential");
    printf("ordering inter file : %s\n", p->reorder ? "constant task offset" : "no tasks offsets");
    if (p->reorder)
        printf("task offset         : %d\n", read_shift(run, p));
    printf("nodes               : %d\n", run->nnodes);
    printf("tasks               : %d\n", run->size);
    printf("clients per node    : %d\n", run->ppn0);
    printf("repetitions         : %d\n", p->reps);
    printf("xfersize            : %s\n", xfer);
    printf("blocksize           : %s\n", block);
    printf("aggregate filesize  : %s\n", agg);
    if (p->deadline > 0) {
        printf("stonewallingTime    : %d\n", p->deadline);
        printf("stoneWallingWearOut : %d\n", p->wearout);
    }
    printf("data packet type    : %s (signature -G %d)\n", p->packet_name, seed);
}

/* One row of IOR's results table, from the gathered phase (rank 0). */
struct ior_row {
    double mib, iops, latency, open, io, close, total, sw_time, sw_mib;
    int has_stonewall;
};

static void row_of(const struct ios_phase_result *res, const struct ios_ior_params *p,
                   struct ior_row *row)
{
    memset(row, 0, sizeof *row);
    double min_start = INFINITY, max_end = -INFINITY;
    for (int r = 0; r < res->n_ranks; r++) {
        const struct ios_rank_stats *s = &res->ranks[r];
        min_start = fmin(min_start, s->start);
        max_end = fmax(max_end, s->end);
        row->open = fmax(row->open, s->loop_start - s->start);
        row->io = fmax(row->io, s->loop_end - s->loop_start);
        row->close = fmax(row->close, s->end - s->loop_end);
    }
    row->total = max_end - min_start;
    /* the same quotient as the phase score of result.json (GiB/s x 1024) */
    row->mib = row->total > 0 ? res->bytes / row->total / 1048576.0 : 0;
    row->iops = row->total > 0 ? res->items / row->total : 0;
    row->latency = res->items > 0 ? row->io * res->n_ranks / res->items : 0;
    row->has_stonewall = res->has_stonewall;
    if (res->has_stonewall) {
        row->sw_time = res->stonewall_time;
        row->sw_mib = res->items_at_deadline_sum * (double)p->xfer / 1048576.0;
    }
}

/* -vv: every rank's share, so a slow rank, node or link shows (Cray's per-rank diagnosis) */
static void print_ranks(const struct ios_phase_result *res)
{
    double t0 = INFINITY;
    for (int r = 0; r < res->n_ranks; r++)
        t0 = fmin(t0, res->ranks[r].start);
    printf("  %6s %-24s %10s %10s %12s %10s\n", "rank", "host", "start(s)", "end(s)", "MiB",
           "MiB/s");
    for (int r = 0; r < res->n_ranks; r++) {
        const struct ios_rank_stats *s = &res->ranks[r];
        double span = s->end - s->start;
        printf("  %6d %-24s %10.4f %10.4f %12.2f %10.2f\n", r, res->hosts[r], s->start - t0,
               s->end - t0, s->bytes / 1048576.0, span > 0 ? s->bytes / span / 1048576.0 : 0);
    }
}

static void print_row(const char *access, const struct ior_row *row, const struct ios_ior_params *p,
                      int iter)
{
    printf("%-9s %-10.2f %-10.2f %-11.6f %-10.2f %-10.2f %-10.6f %-10.6f %-10.6f %-10.6f %d\n",
           access, row->mib, row->iops, row->latency, (double)p->block / 1024.0,
           (double)p->xfer / 1024.0, row->open, row->io, row->close, row->total, iter);
}

struct ior_series {
    const char *access;
    int n;
    struct ior_row rows[IOS_IOR_MAX_REPS];
};

static void stats(const double *v, int n, double *max, double *min, double *mean, double *sd)
{
    *max = -INFINITY;
    *min = INFINITY;
    double sum = 0, sq = 0;
    for (int i = 0; i < n; i++) {
        *max = fmax(*max, v[i]);
        *min = fmin(*min, v[i]);
        sum += v[i];
    }
    *mean = n ? sum / n : 0;
    for (int i = 0; i < n; i++)
        sq += (v[i] - *mean) * (v[i] - *mean);
    *sd = n ? sqrt(sq / n) : 0; /* population deviation over the repetitions, as IOR */
}

static void print_summary(const struct ios_run *run, const struct ios_ior_params *p,
                          const struct ior_series *series, int n_series, int32_t seed)
{
    printf("\nSummary of all tests:\n");
    printf("Operation   Max(MiB)   Min(MiB)  Mean(MiB)     StdDev   Max(OPs)   Min(OPs)  "
           "Mean(OPs)     StdDev    Mean(s) Stonewall(s) Stonewall(MiB) Test# #Tasks tPN reps "
           "fPP reord reordoff reordrand seed segcnt   blksiz    xsize aggs(MiB)   API RefNum\n");
    for (int s = 0; s < n_series; s++) {
        const struct ior_series *se = &series[s];
        if (se->n == 0)
            continue;
        double mib[IOS_IOR_MAX_REPS], ops[IOS_IOR_MAX_REPS], t[IOS_IOR_MAX_REPS];
        for (int i = 0; i < se->n; i++) {
            mib[i] = se->rows[i].mib;
            ops[i] = se->rows[i].iops;
            t[i] = se->rows[i].total;
        }
        double bmax, bmin, bmean, bsd, omax, omin, omean, osd, tmax, tmin, tmean, tsd;
        stats(mib, se->n, &bmax, &bmin, &bmean, &bsd);
        stats(ops, se->n, &omax, &omin, &omean, &osd);
        stats(t, se->n, &tmax, &tmin, &tmean, &tsd);
        char sw_t[32] = "NA", sw_m[32] = "NA";
        if (se->rows[0].has_stonewall) {
            snprintf(sw_t, sizeof sw_t, "%.2f", se->rows[0].sw_time);
            snprintf(sw_m, sizeof sw_m, "%.2f", se->rows[0].sw_mib);
        }
        printf("%-9s %10.2f %10.2f %10.2f %10.2f %10.2f %10.2f %10.2f %10.2f %10.5f %12s "
               "%14s %5d %6d %3d %4d %3d %5d %8d %9d %4d %6" PRIu64 " %8" PRIu64 " %8" PRIu64
               " %9.1f %5s %6d\n",
               se->access, bmax, bmin, bmean, bsd, omax, omin, omean, osd, tmean, sw_t, sw_m, 0,
               run->size, run->ppn0, p->reps, p->fpp, p->reorder, read_shift(run, p), 0, seed,
               p->segments, p->block, p->xfer,
               (double)(p->block * p->segments * (uint64_t)run->size) / 1048576.0, p->api, 0);
    }
}

/* What each number could have measured (acceptance practice asks it of every number). */
static void print_notes(const struct ios_run *run, const struct ios_ior_params *p,
                        const struct ios_backend *be)
{
    printf("\nWhat was measured:\n");
    if (p->write)
        printf("  write: %s\n", p->fsync ? "fsync inside the timing (-e): includes write-back"
                                         : "no fsync in the write timing (-e not given): data "
                                           "may still be in the client page cache");
    if (p->read || p->check_read) {
        int shift = read_shift(run, p);
        int same_host = 1;
        for (int r = 0; r < run->size && same_host; r++)
            same_host = strcmp(run->hosts[r], run->hosts[(r + shift) % run->size]) == 0;
        if (be->odirect)
            printf("  read: O_DIRECT: the client page cache is bypassed\n");
        else if (same_host && p->write)
            printf("  read: data this node wrote in this launch, %s: client page cache likely\n",
                   shift ? "rank shift within one node" : "no rank shift");
        else if (same_host)
            printf("  read: data written by this node (no cross-node shift): client page cache "
                   "possible unless it was dropped between launches\n");
        else
            printf("  read: data written by another node (-C shift %d): no client cache hit, "
                   "server cache possible\n",
                   shift);
    }
    if (p->lustre_stripe_count != -2)
        printf("  -O lustreStripeCount=%d was NOT applied: this build has no Lustre client "
               "library; set the layout with lfs setstripe on the directory\n",
               p->lustre_stripe_count);
}

/* ---------------------------------------------------------------- the run */

static void remove_files(const struct ios_run *run, const struct ios_ior_params *p,
                         struct ios_backend *be)
{
    char path[IOS_PATH_MAX];
    MPI_Barrier(MPI_COMM_WORLD);
    if (p->fpp || run->rank == 0) {
        file_of(p, run->rank, path, sizeof path);
        int rc = be->ops->unlink(be, path);
        if (rc != 0 && rc != -ENOENT)
            fprintf(stderr, "ioscore-suite ior: WARNING: rank %d: cannot remove %s: %s\n",
                    run->rank, path, strerror(-rc));
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void init_phase(struct ior_phase *ph, const struct ios_ior_params *p, const char *what,
                       enum ior_access access, int verify, int iter, int32_t seed)
{
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
    ph->access = access;
    ph->verify = verify;
    ph->iteration = iter;
    ph->seed = seed;
}

static int32_t agreed_seed(const struct ios_run *run, const struct ios_ior_params *p)
{
    int32_t seed = p->seed;
    if (!p->seed_given && run->rank == 0)
        seed = (int32_t)(uint32_t)ios_wtime(); /* IOR: the test's start time */
    MPI_Bcast(&seed, 1, MPI_INT32_T, 0, MPI_COMM_WORLD);
    return seed;
}

static int make_resultdir(struct ios_run *run)
{
    int rc = 0;
    if (run->rank == 0) {
        rc = ios_mkdir_p(run->resdir, 0700);
        if (rc != 0)
            fprintf(stderr, "ioscore-suite ior: ERROR: cannot create %s: %s\n", run->resdir,
                    strerror(-rc));
        char path[IOS_PATH_MAX];
        ios_path(path, sizeof path, "%s/result_summary.txt", run->resdir);
        if (rc == 0 && !(run->summary = fopen(path, "w"))) {
            fprintf(stderr, "ioscore-suite ior: ERROR: cannot create %s\n", path);
            rc = -EIO;
        }
    }
    return agree(rc != 0);
}

int ios_ior_run(struct ios_run *run, const struct ios_ior_params *p)
{
    static struct ior_phase phases[4 * IOS_IOR_MAX_REPS];
    struct ios_backend be;
    char err[IOS_MSG_MAX], api[64];
    snprintf(api, sizeof api, "%s%s", p->api, p->odirect ? " --posix.odirect" : "");
    if (ios_backend_create(api, &be, err, sizeof err) != 0) {
        if (run->rank == 0)
            fprintf(stderr, "ioscore-suite ior: ERROR: %s\n", err);
        return 2;
    }
    if (p->collective && (be.ops->caps & IOS_CAP_COLLECTIVE))
        be.collective = 1;
    else if (p->collective && run->rank == 0)
        fprintf(stderr,
                "ioscore-suite ior: WARNING: -c (collective) has no meaning for -a %s; "
                "independent I/O\n",
                p->api);
    if (p->reorder && read_shift(run, p) == 0 && run->rank == 0)
        fprintf(stderr,
                "ioscore-suite ior: WARNING: -C: the shift -Q %d x %d tasks per node is 0 mod "
                "%d tasks: every rank reads its own data (as IOR on one node)\n",
                p->task_offset, run->ppn0, run->size);
    if (p->check_read && !p->write && !p->seed_given && run->rank == 0)
        fprintf(stderr, "ioscore-suite ior: WARNING: -R in a read-only launch without -G: the "
                        "data is compared with this launch's signature and will mismatch; "
                        "give the writer's -G\n");
    if (check_before_io(run, p, &be) != 0)
        return 2;
    if (make_resultdir(run) != 0)
        return 2;
    run->backend = &be;
    run->unscored = 1;
    run->stonewall = p->deadline;
    run->packet = p->packet;
    run->quiet = 1; /* the engine's IO500 summary lines go to result_summary.txt only */
    ios_instrument_cfg_init(&run->instr, run->rank, 1, -1, 0);
    run->t_run_start = ios_wtime();
    int32_t seed = agreed_seed(run, p);

    struct ior_series series[4] = {
        {.access = "write"}, {.access = "read"}, {.access = "readback"}, {.access = "reread"}};
    if (run->rank == 0) {
        print_header(run, p, &be, seed);
        if (p->show_hints) {
            printf("\nMPI-IO hints given to MPI_File_open (IOR_HINT__MPI__* variables):\n");
            for (int h = 0; h < be.n_hints; h++)
                printf("  %s = %s\n", be.hints[h].key, be.hints[h].value);
            if (be.n_hints == 0)
                printf("  (none: the MPI library's defaults)\n");
        }
        printf("\nResults: \n\n");
        printf("access    bw(MiB/s)  IOPS       Latency(s)  block(KiB) xfer(KiB)  open(s)    "
               "wr/rd(s)   close(s)   total(s)   iter\n");
        printf("------    ---------  ----       ----------  ---------- ---------  --------   "
               "--------   --------   --------   ----\n");
        fflush(stdout);
    }
    double verify_errors = 0;
    int n_phases = 0;
    for (int iter = 0; iter < p->reps && !run->aborted; iter++) {
        /* IOR's order; the checks are untimed in IOR's tables: here their own rows, not in
         * the summary, and never inside the timing of -w or -r */
        struct {
            int on;
            const char *what;
            enum ior_access access;
            int verify;
            struct ior_series *series;
        } steps[4] = {
            {p->write, "write", ACC_WRITE, 0, &series[0]},
            {p->check_write, "readback", ACC_READ, 1, &series[2]},
            {p->read, "read", ACC_READ, 0, &series[1]},
            {p->check_read, "reread", ACC_READ, 1, &series[3]},
        };
        for (int s = 0; s < 4 && !run->aborted; s++) {
            if (!steps[s].on)
                continue;
            /* -d: before every write or read phase after the first */
            if (!steps[s].verify && n_phases > 0 && p->inter_delay > 0) {
                if (run->rank == 0 && p->verbose > 0)
                    printf("delaying %d seconds . . .\n", p->inter_delay);
                sleep((unsigned)p->inter_delay);
                MPI_Barrier(MPI_COMM_WORLD);
            }
            struct ior_phase *ph = &phases[n_phases++];
            init_phase(ph, p, steps[s].what, steps[s].access, steps[s].verify, iter, seed);
            if (run->rank == 0 && p->verbose > 0)
                printf("Commencing %s performance test\n", steps[s].what);
            struct ios_phase_result *res = ios_run_one_phase(run, &ph->base);
            if (run->rank != 0)
                continue;
            struct ior_row row;
            row_of(res, p, &row);
            steps[s].series->rows[steps[s].series->n++] = row;
            print_row(steps[s].what, &row, p, iter);
            if (p->verbose >= 2)
                print_ranks(res);
            if (res->verify_errors > 0)
                printf("WARNING: incorrect data on %s (%.0f errors found)\n", steps[s].what,
                       res->verify_errors);
            verify_errors += res->verify_errors;
            fflush(stdout);
        }
        if (!p->keep && !run->aborted) /* IOR: without -k, even after a read-only run */
            remove_files(run, p, &be);
    }
    if (run->rank == 0) {
        print_summary(run, p, series, 2, seed);
        print_notes(run, p, &be);
        char now[64];
        ios_format_time(ios_wtime(), "%a %b %d %H:%M:%S %Y", now, sizeof now);
        printf("Finished            : %s\n", now);
        fflush(stdout);
    }
    MPI_Bcast(&verify_errors, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    int rc = ios_acceptance_finish(run, "ior");
    return rc ? rc : verify_errors > 0 ? 1 : 0;
}
