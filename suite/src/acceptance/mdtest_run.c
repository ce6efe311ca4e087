/*
 * `ioscore-suite mdtest ARGS...`: mdtest's command line on the standard engine, one phase per
 * mdtest operation (ios_run_one_phase: op loop, latency, time series, CSVs, result.json with
 * mode "mdtest"). The namespace is mdtest's:
 *   <d>/test-dir.0-0/<tree>.0[/<tree>.<k>...]   node k's parent is (k-1)/b, depth -z
 *   <tree> = mdtest_tree (shared by the ranks of a -d directory) or mdtest_tree.<rank> (-u)
 *   items file.mdtest.<rank>.<i> / dir.mdtest.<rank>.<i>, n/#nodes per node (-L: leaves only)
 * Rank r works in -d directory r mod count ('@'-separated list); stat, read and removal handle
 * the items of rank (r + N) mod size (-N).
 */
#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ioscore/acceptance.h"
#include "ioscore/report.h"

enum md_what { MD_TREE, MD_DIR, MD_FILE };
enum md_op { MD_CREATE, MD_STAT, MD_READ, MD_REMOVE };

static const char *const op_names[] = {"write", "stat", "read", "delete"};
static const char *const what_names[] = {"tree", "dir", "file"};

/* ---------------------------------------------------------------- the namespace */

struct md_phase {
    struct ios_phase base; /* first: the engine sees only this */
    const struct ios_mdtest_params *p;
    enum md_what what;
    enum md_op op;
    int iteration;
    uint64_t *created; /* files per rank the create of this iteration made (-W) */
    char name[48];
};

struct md_state {
    struct ios_phase_ctx *ctx;
    const struct md_phase *ph;
    int owner;
    void *buf;
    size_t buf_len;
    void *expected; /* -X: the first -w bytes the owner wrote */
};

static const char *dir_of(const struct ios_mdtest_params *p, int rank)
{
    return p->dirs[rank % p->n_dirs];
}

/* Path of tree node k of `owner`'s tree. */
static void node_path(const struct ios_mdtest_params *p, int owner, uint64_t k, char *buf,
                      size_t len)
{
    uint64_t chain[IOS_MDTEST_MAX_DEPTH + 1];
    int n = 0;
    for (uint64_t x = k; x > 0; x = (x - 1) / (uint64_t)p->branch)
        chain[n++] = x;
    char tree[32];
    if (p->unique)
        snprintf(tree, sizeof tree, "mdtest_tree.%d", owner);
    else
        snprintf(tree, sizeof tree, "mdtest_tree");
    size_t used = (size_t)snprintf(buf, len, "%s/test-dir.0-0/%s.0", dir_of(p, owner), tree);
    while (n > 0 && used < len)
        used += (size_t)snprintf(buf + used, len - used, "/%s.%" PRIu64, tree, chain[--n]);
    if (used >= len)
        ios_fatal("mdtest path too long below %s", dir_of(p, owner));
}

/* Does this rank create/remove a tree? (-u: every rank; else the first rank of each -d dir) */
static int tree_owner(const struct ios_mdtest_params *p, int rank)
{
    return p->unique || rank < p->n_dirs;
}

static int md_item(void *state, uint64_t i)
{
    struct md_state *st = state;
    struct ios_phase_ctx *ctx = st->ctx;
    const struct md_phase *ph = st->ph;
    const struct ios_mdtest_params *p = ph->p;
    struct ios_backend *be = &ctx->be;
    char path[IOS_PATH_MAX];
    int rc = 0;
    if (ph->what == MD_TREE) { /* removal runs children first: the highest index first */
        uint64_t k = ph->op == MD_CREATE ? i : p->nodes - 1 - i;
        node_path(p, st->owner, k, path, sizeof path);
        rc = ph->op == MD_CREATE ? be->ops->mkdir(be, path, 0700) : be->ops->rmdir(be, path);
    } else {
        uint64_t node = i / p->per_node + (p->leaf ? p->nodes - p->leaves : 0);
        char dir[IOS_PATH_MAX];
        node_path(p, st->owner, node, dir, sizeof dir);
        ios_path(path, sizeof path, "%s/%s.mdtest.%d.%" PRIu64, dir,
                 ph->what == MD_DIR ? "dir" : "file", st->owner, i);
        int64_t h = 0, size = 0;
        switch (ph->op) {
        case MD_CREATE:
            if (ph->what == MD_DIR) {
                rc = be->ops->mkdir(be, path, 0700);
                break;
            }
            rc = be->ops->open(be, path, IOS_OPEN_WRITE | IOS_OPEN_CREATE, &h);
            if (rc == 0 && p->write_bytes > 0) {
                ssize_t n = be->ops->pwrite(be, h, st->buf, p->write_bytes, 0);
                rc = n == (ssize_t)p->write_bytes ? 0 : n < 0 ? (int)n : -EIO;
                ctx->mine.bytes += n > 0 ? (double)n : 0;
            }
            if (h || rc == 0) {
                int rc_close = be->ops->close(be, h);
                rc = rc ? rc : rc_close;
            }
            break;
        case MD_STAT:
            rc = be->ops->stat_size(be, path, &size);
            break;
        case MD_READ:
            rc = be->ops->open(be, path, IOS_OPEN_READ, &h);
            if (rc == 0 && p->read_bytes > 0) {
                ssize_t n = be->ops->pread(be, h, st->buf, p->read_bytes, 0);
                rc = n == (ssize_t)p->read_bytes ? 0 : n < 0 ? (int)n : -EIO;
                ctx->mine.bytes += n > 0 ? (double)n : 0;
                /* -X: the bytes -w wrote (the writer's pattern) */
                if (rc == 0 && p->verify && memcmp(st->buf, st->expected, p->read_bytes) != 0) {
                    if (ctx->mine.verify_errors == 0)
                        fprintf(stderr, "ioscore-suite mdtest: rank %d: data mismatch in %s\n",
                                ctx->run->rank, path);
                    ctx->mine.verify_errors += 1;
                }
            }
            if (h || rc == 0) {
                int rc_close = be->ops->close(be, h);
                rc = rc ? rc : rc_close;
            }
            break;
        case MD_REMOVE:
            rc = ph->what == MD_DIR ? be->ops->rmdir(be, path) : be->ops->unlink(be, path);
            break;
        }
    }
    if (rc != 0) {
        ios_phase_error(ctx, rc, "%s %s", op_names[ph->op], path);
        return -1;
    }
    ctx->mine.items += 1;
    return 0;
}

static void md_phase_run(struct ios_phase_ctx *ctx)
{
    const struct md_phase *ph = (const struct md_phase *)ctx->phase;
    const struct ios_mdtest_params *p = ph->p;
    struct ios_run *run = ctx->run;
    struct md_state st = {.ctx = ctx, .ph = ph};
    st.owner = ph->what == MD_TREE || ph->op == MD_CREATE ? run->rank
                                                          : (run->rank + p->stride) % run->size;
    uint64_t count = ph->what == MD_TREE ? (tree_owner(p, run->rank) ? p->nodes : 0)
                                         : p->per_node * (p->leaf ? p->leaves : p->nodes);
    ios_phase_key(ctx, "command", "%s", p->command);
    ios_phase_key(ctx, "iteration", "%d", ph->iteration);
    ios_phase_key(ctx, "items_per_rank", "%" PRIu64, count);
    ios_phase_key(ctx, "of_rank_shift", "%d", st.owner == run->rank ? 0 : p->stride);
    st.buf_len = (size_t)(p->write_bytes > p->read_bytes ? p->write_bytes : p->read_bytes);
    if (st.buf_len > 0) {
        st.buf = ios_alloc_buffer(&ctx->be, st.buf_len);
        ios_pattern_fill(st.buf, st.buf_len, 0, run->rank, IOS_PACKET_TIMESTAMP, 0);
    }
    if (p->verify && ph->op == MD_READ && p->read_bytes > 0) {
        st.expected = ios_alloc_buffer(&ctx->be, (size_t)p->write_bytes);
        ios_pattern_fill(st.expected, (size_t)p->write_bytes, 0, st.owner, IOS_PACKET_TIMESTAMP, 0);
    }
    ctx->mine.start = ios_wtime();
    ctx->mine.loop_start = ctx->mine.start;
    ios_instrument_progress_start(&ctx->instr, 0, 0, (double)count * run->size, &ctx->mine.items,
                                  &ctx->mine.bytes);
    if (ph->what == MD_FILE && ph->op != MD_CREATE && *ph->created < count)
        count = *ph->created; /* after a stonewalled create: what every rank created */
    int ok = 1;
    int stonewalled = ph->what == MD_FILE && ph->op == MD_CREATE && p->stonewall > 0;
    uint64_t done = ios_run_ops(ctx, md_item, &st, 0, count, stonewalled ? p->stonewall : 0, &ok);
    ctx->mine.first_done = ios_wtime();
    ctx->mine.items_at_deadline = (double)done;
    if (stonewalled) { /* mdtest -W: every rank goes on to the busiest rank's count */
        unsigned long long mine = done, max_done = 0;
        MPI_Allreduce(&mine, &max_done, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
        done = ios_run_ops(ctx, md_item, &st, done, max_done, 0, &ok);
        *ph->created = max_done;
        ctx->res->has_stonewall = 1;
        ctx->res->deadline_s = p->stonewall;
        ctx->res->stonewall_time = ctx->mine.first_done - ctx->mine.loop_start;
    }
    if (p->sync) { /* -Y: inside the timing, as mdtest's sync call */
        int rc = ctx->be.ops->sync_all(&ctx->be);
        if (rc != 0)
            ios_phase_error(ctx, rc, "sync");
    }
    ctx->mine.loop_end = ios_wtime();
    ctx->mine.end = ctx->mine.end_before_barrier = ctx->mine.loop_end;
    free(st.buf);
    free(st.expected);
}

/* ---------------------------------------------------------------- run and output */

static int agree(int failed)
{
    int any = 0;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return any ? 2 : 0;
}

/* Before any I/O: the parent of every used -d directory exists, and a launch that does not
 * create (-C) finds the trees of an earlier one. */
static int prepare(struct ios_run *run, const struct ios_mdtest_params *p, struct ios_backend *be)
{
    int bad = 0;
    char path[IOS_PATH_MAX];
    if (run->rank < p->n_dirs) {
        snprintf(path, sizeof path, "%s", p->dirs[run->rank]);
        const char *parent = dirname(path);
        struct stat sb;
        if (stat(parent, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
            fprintf(stderr, "ioscore-suite mdtest: ERROR: -d %s: directory %s does not exist\n",
                    p->dirs[run->rank], parent);
            bad = 1;
        }
    }
    if (agree(bad))
        return 2;
    if (!p->create) {
        node_path(p, (run->rank + p->stride) % run->size, 0, path, sizeof path);
        int64_t size;
        if (be->ops->stat_size(be, path, &size) != 0) {
            fprintf(stderr,
                    "ioscore-suite mdtest: ERROR: rank %d: %s does not exist: this launch does "
                    "not create (-C); run the creating launch first\n",
                    run->rank, path);
            bad = 1;
        }
    }
    return agree(bad);
}

/* Before the tree creation of each iteration: the first rank of each -d directory creates it
 * (as mdtest) and its test-dir.0-0. */
static int make_test_dirs(struct ios_run *run, const struct ios_mdtest_params *p,
                          struct ios_backend *be)
{
    int bad = 0;
    if (run->rank < p->n_dirs) {
        char path[IOS_PATH_MAX];
        int rc = be->ops->mkdir(be, p->dirs[run->rank], 0700);
        ios_path(path, sizeof path, "%s/test-dir.0-0", p->dirs[run->rank]);
        int rc2 = rc == 0 || rc == -EEXIST ? be->ops->mkdir(be, path, 0700) : rc;
        if (rc2 != 0 && rc2 != -EEXIST) {
            fprintf(stderr, "ioscore-suite mdtest: ERROR: mkdir %s: %s\n", path, strerror(-rc2));
            bad = 1;
        }
    }
    return agree(bad);
}

static const char *row_label(enum md_what what, enum md_op op)
{
    static const char *const labels[3][4] = {
        {"Tree creation", "", "", "Tree removal"},
        {"Directory creation", "Directory stat", "", "Directory removal"},
        {"File creation", "File stat", "File read", "File removal"},
    };
    return labels[what][op];
}

/* The slowest rank's time: the denominator of the phase rate (IOS_METRIC_MD). */
static double md_time(const struct ios_phase_result *res)
{
    double t = 0;
    for (int r = 0; r < res->n_ranks; r++)
        t = fmax(t, res->ranks[r].end - res->ranks[r].start);
    return t;
}

static void print_summary(const char *what, const struct ios_mdtest_params *p,
                          double rates[3][4][IOS_MDTEST_MAX_REPS], const int n[3][4])
{
    printf("\nSUMMARY %s: (of %d iterations)\n", what, p->reps);
    printf("   Operation                     Max            Min           Mean        Std Dev\n");
    printf("   ---------                     ---            ---           ----        -------\n");
    static const int order[][2] = {
        {MD_DIR, MD_CREATE},  {MD_DIR, MD_STAT},    {MD_DIR, MD_REMOVE},
        {MD_FILE, MD_CREATE}, {MD_FILE, MD_STAT},   {MD_FILE, MD_READ},
        {MD_FILE, MD_REMOVE}, {MD_TREE, MD_CREATE}, {MD_TREE, MD_REMOVE}};
    for (size_t k = 0; k < sizeof order / sizeof order[0]; k++) {
        int w = order[k][0], o = order[k][1], c = n[w][o];
        if (c == 0)
            continue;
        double max = -INFINITY, min = INFINITY, sum = 0, sq = 0;
        for (int i = 0; i < c; i++) {
            max = fmax(max, rates[w][o][i]);
            min = fmin(min, rates[w][o][i]);
            sum += rates[w][o][i];
        }
        double mean = sum / c;
        for (int i = 0; i < c; i++)
            sq += (rates[w][o][i] - mean) * (rates[w][o][i] - mean);
        printf("   %-22s %14.3f %14.3f %14.3f %14.3f\n", row_label((enum md_what)w, (enum md_op)o),
               max, min, mean, sqrt(sq / c));
    }
}

int ios_mdtest_run(struct ios_run *run, const struct ios_mdtest_params *p)
{
    static struct md_phase phases[9 * IOS_MDTEST_MAX_REPS];
    struct ios_backend be;
    char err[IOS_MSG_MAX];
    if (ios_backend_create("POSIX", &be, err, sizeof err) != 0)
        ios_fatal("%s", err);
    if (prepare(run, p, &be) != 0)
        return 2;
    int rc = 0;
    if (run->rank == 0) {
        rc = ios_mkdir_p(run->resdir, 0700);
        char path[IOS_PATH_MAX];
        ios_path(path, sizeof path, "%s/result_summary.txt", run->resdir);
        if (rc == 0 && !(run->summary = fopen(path, "w")))
            rc = -EIO;
        if (rc != 0)
            fprintf(stderr, "ioscore-suite mdtest: ERROR: cannot create %s\n", run->resdir);
    }
    if (agree(rc != 0))
        return 2;
    run->backend = &be;
    run->unscored = 1;
    run->quiet = 1;
    ios_instrument_cfg_init(&run->instr, run->rank, 1, -1, 0);
    run->t_run_start = ios_wtime();
    if (run->rank == 0) {
        printf("ioscore-suite mdtest %s was launched with %d total task(s) on %d node(s)\n",
               run->version, run->size, run->nnodes);
        printf("Command line used: %s\n", p->command);
        printf("Path: %s\n", p->dir_list_text);
        printf("Results: %s\n", run->resdir);
        printf("%d tasks, %" PRIu64 " files/directories per task (%" PRIu64
               " per directory, %" PRIu64 " directories per tree%s)\n",
               run->size, p->per_node * (p->leaf ? p->leaves : p->nodes), p->per_node,
               p->leaf ? p->leaves : p->nodes, p->leaf ? ", leaves only" : "");
        fflush(stdout);
    }
    static double rates[3][4][IOS_MDTEST_MAX_REPS], times[3][4][IOS_MDTEST_MAX_REPS];
    int n[3][4] = {{0}};
    int n_phases = 0;
    for (int iter = 0; iter < p->reps && !run->aborted; iter++) {
        uint64_t created = UINT64_MAX; /* lowered by a stonewalled create */
        if (p->create && make_test_dirs(run, p, &be) != 0) {
            run->aborted = 1;
            snprintf(run->abort_reason, sizeof run->abort_reason, "cannot create test-dir.0-0");
            break;
        }
        const struct {
            int on;
            enum md_what what;
            enum md_op op;
        } steps[] = {
            {p->create, MD_TREE, MD_CREATE},
            {!p->files_only && p->create, MD_DIR, MD_CREATE},
            {!p->files_only && p->stat, MD_DIR, MD_STAT},
            {!p->files_only && p->remove, MD_DIR, MD_REMOVE},
            {!p->dirs_only && p->create, MD_FILE, MD_CREATE},
            {!p->dirs_only && p->stat, MD_FILE, MD_STAT},
            {!p->dirs_only && p->read, MD_FILE, MD_READ},
            {!p->dirs_only && p->remove, MD_FILE, MD_REMOVE},
            {p->remove, MD_TREE, MD_REMOVE},
        };
        for (size_t s = 0; s < sizeof steps / sizeof steps[0] && !run->aborted; s++) {
            if (!steps[s].on)
                continue;
            struct md_phase *ph = &phases[n_phases++];
            memset(ph, 0, sizeof *ph);
            snprintf(ph->name, sizeof ph->name, "mdtest-%s-%s-%d", what_names[steps[s].what],
                     op_names[steps[s].op], iter);
            ph->base.name = ph->name;
            ph->base.score_group = IOS_GROUP_NONE;
            ph->base.type = steps[s].op == MD_CREATE   ? IOS_PHASE_WRITE
                            : steps[s].op == MD_REMOVE ? IOS_PHASE_REMOVE
                                                       : IOS_PHASE_READ;
            ph->base.metric = IOS_METRIC_MD;
            ph->base.csv_kind = "mdtest";
            ph->base.run = md_phase_run;
            ph->p = p;
            ph->what = steps[s].what;
            ph->op = steps[s].op;
            ph->iteration = iter;
            ph->created = &created;
            struct ios_phase_result *res = ios_run_one_phase(run, &ph->base);
            if (run->rank == 0) {
                times[ph->what][ph->op][n[ph->what][ph->op]] = md_time(res);
                rates[ph->what][ph->op][n[ph->what][ph->op]++] = res->score * 1000.0;
                if (p->verbose > 0)
                    printf("%s: %.3f ops/s\n", row_label(ph->what, ph->op), res->score * 1000);
            }
        }
        if (p->remove && !run->aborted) { /* the trees are gone: test-dir.0-0 too */
            MPI_Barrier(MPI_COMM_WORLD);
            char path[IOS_PATH_MAX];
            ios_path(path, sizeof path, "%s/test-dir.0-0", dir_of(p, run->rank));
            if (run->rank < p->n_dirs && be.ops->rmdir(&be, path) != 0 && run->rank == 0)
                fprintf(stderr, "ioscore-suite mdtest: WARNING: %s not removed\n", path);
        }
    }
    if (run->rank == 0) {
        print_summary("rate (in ops/sec)", p, rates, n);
        if (p->print_time)
            print_summary("time (in seconds)", p, times, n);
        char now[64];
        ios_format_time(ios_wtime(), "%m/%d/%Y %H:%M:%S", now, sizeof now);
        printf("-- finished at %s --\n", now);
        fflush(stdout);
    }
    return ios_acceptance_finish(run, "mdtest");
}
