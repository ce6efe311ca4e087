/*
 * The IO500 mdtest phases (docs/BENCHMARK-RULES.md §1.1), run through the mdtest item engine
 * (include/ioscore/mdtest_items.h) as mdtest -u -L (easy) and -t -w 3901 -e 3901 (hard) run.
 *   easy: rank r owns test-dir.0-0/mdtest_tree.<r>.0 and creates its empty files
 *         file.mdtest.<r>.<i> in the tree of rank (r+ns); stat/delete use shifts 1..4*ns.
 *   hard: one shared directory test-dir.0-0/mdtest_tree.0; each file is 3901 bytes written
 *         in one write right after creation; stat/read/delete work on ranks r+ns, r+2ns, r+3ns.
 *         With files-per-dir F (mdtest -I) the n files of a rank are spread as mdtest's
 *         directory loops do: file i is file.mdtest.<r>.<i mod F> in test-dir.0-<i / F>.
 * Writes run under the stonewall with wear-out and end with a sync; the per-rank count goes to
 * the status file and the later phases handle exactly that many files.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ioscore/mdtest_items.h"
#include "ioscore/phases.h"

#define MDTEST_HARD_FILE_SIZE 3901

enum md_kind { MD_EASY, MD_HARD };

static const char *kind_dir(enum md_kind kind)
{
    return kind == MD_EASY ? "mdtest-easy" : "mdtest-hard";
}

static uint64_t files_per_rank(const struct ios_run *run, enum md_kind kind)
{
    return kind == MD_HARD ? run->cfg.opt.mdtest_hard.n : run->cfg.opt.mdtest_easy.n;
}

/* mdtest-hard files-per-dir (-I), 0 when unset or 0 (the reference ignores 0). */
static uint64_t files_per_dir(const struct ios_run *run, enum md_kind kind)
{
    return kind == MD_HARD ? run->cfg.opt.mdtest_hard.files_per_dir : 0;
}

/* Directory loops of mdtest: n / files-per-dir with -I, else one. */
static uint64_t dir_loops(const struct ios_run *run, enum md_kind kind)
{
    uint64_t per_dir = files_per_dir(run, kind);
    return per_dir ? files_per_rank(run, kind) / per_dir : 1;
}

/* mkdir that accepts an existing directory; records the error otherwise. */
static int make_dir(struct ios_phase_ctx *ctx, const char *path)
{
    int rc = ctx->be.ops->mkdir(&ctx->be, path, 0700);
    if (rc == -EEXIST)
        rc = 0;
    if (rc != 0)
        ios_phase_error(ctx, rc, "mkdir %s", path);
    return rc;
}

/* Every rank learns whether any rank failed so far (keeps collectives aligned). */
static int any_error(struct ios_phase_ctx *ctx)
{
    int mine = ctx->mine.io_error != 0, any = 0;
    MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return any;
}

struct md_job {
    enum md_kind kind;
    int shift;     /* multiples of ns: whose files this rank handles */
    int dir_shift; /* easy: in whose tree the files are */
};

/* The phase's trees in mdtest's terms: easy is a tree per rank (-u), hard one shared tree with
 * files-per-dir items in each directory loop (-I); depth 0 in both. */
static void md_tree(const struct ios_run *run, enum md_kind kind, const char *const *top,
                    struct ios_md_tree *t)
{
    uint64_t per_dir = files_per_dir(run, kind), n = files_per_rank(run, kind);
    *t = (struct ios_md_tree){.dirs = top,
                              .n_dirs = 1,
                              .unique = kind == MD_EASY,
                              .branch = 1,
                              .nodes = 1,
                              .leaves = 1,
                              .per_node = per_dir ? per_dir
                                          : n     ? n
                                                  : 1};
}

/* mdtest-hard: the writer's pattern for file i (packets that vary per item change it). */
static void fill_hard(const struct ios_md_items *items, uint64_t i)
{
    struct ios_phase_ctx *ctx = items->ctx;
    if (ios_packet_varies_per_item(ctx->run->packet))
        ios_pattern_update(items->buf, MDTEST_HARD_FILE_SIZE, ctx->seed, ctx->run->rank,
                           ctx->run->packet, i);
}

/* mdtest-hard-read: the file holds the writer's pattern for its item number. */
static int verify_hard(const struct ios_md_items *items, uint64_t i, ssize_t n, const char *path)
{
    struct ios_phase_ctx *ctx = items->ctx;
    if (n == MDTEST_HARD_FILE_SIZE &&
        ios_pattern_matches(items->buf, MDTEST_HARD_FILE_SIZE, ctx->seed, items->owner,
                            ctx->run->packet, i))
        return 0;
    if (ctx->mine.verify_errors == 0)
        fprintf(stderr,
                "ioscore-suite: %s: rank %d: data mismatch in %s (%zd bytes read, written by "
                "rank %d)\n",
                ctx->phase->name, ctx->run->rank, path, n, items->owner);
    return 1;
}

static const char *status_name(enum md_kind kind)
{
    return kind_dir(kind);
}

/* The phase's items on this rank: whose files (shift), in whose tree (dir_shift). */
static void md_items(struct ios_phase_ctx *ctx, const struct md_job *job,
                     const struct ios_md_tree *t, enum ios_md_op op, struct ios_md_items *items)
{
    struct ios_run *run = ctx->run;
    int ns = ios_mdtest_shift(run), n = run->size;
    *items = (struct ios_md_items){.ctx = ctx,
                                   .op = op,
                                   .tree = t,
                                   .owner = (run->rank + job->shift * ns) % n,
                                   .tree_rank = (run->rank + job->dir_shift * ns) % n,
                                   .loop_size = files_per_dir(run, job->kind),
                                   .exist_ok = 1};
}

/* Tree setup for the write phases (timed apart from the create rate, as mdtest does): rank 0
 * makes the top directory and the test directories (with the shared tree of each loop, hard),
 * then each rank its own tree (easy). */
static int create_tree(struct ios_phase_ctx *ctx, const struct md_job *job,
                       const struct ios_md_tree *t)
{
    struct ios_run *run = ctx->run;
    enum md_kind kind = job->kind;
    struct ios_md_items tree;
    md_items(ctx, job, t, IOS_MD_TREE_CREATE, &tree);
    tree.tree_rank = run->rank;
    tree.loop_size = 1; /* one tree node per directory loop */
    char path[IOS_PATH_MAX];
    if (run->rank == 0) {
        int rc = make_dir(ctx, t->dirs[0]);
        for (uint64_t loop = 0; rc == 0 && loop < dir_loops(run, kind); loop++) {
            ios_md_test_dir(t, 0, 0, loop, path, sizeof path);
            rc = make_dir(ctx, path);
            if (rc == 0 && kind == MD_HARD)
                rc = ios_md_item_do(&tree, loop);
        }
    }
    if (any_error(ctx))
        return -1;
    if (kind == MD_EASY) {
        ios_md_item_do(&tree, 0);
        if (any_error(ctx))
            return -1;
    }
    return 0;
}

/* Tree removal after the delete phases: own tree per rank (easy), then rank 0's dirs. */
static void remove_tree(struct ios_phase_ctx *ctx, const struct md_job *job,
                        const struct ios_md_tree *t)
{
    struct ios_run *run = ctx->run;
    struct ios_md_items tree;
    md_items(ctx, job, t, IOS_MD_TREE_REMOVE, &tree);
    tree.tree_rank = run->rank;
    tree.loop_size = 1;
    char path[IOS_PATH_MAX];
    if (job->kind == MD_EASY)
        ios_md_item_do(&tree, 0);
    MPI_Barrier(MPI_COMM_WORLD);
    for (uint64_t loop = 0; run->rank == 0 && loop < dir_loops(run, job->kind); loop++) {
        if (job->kind == MD_HARD)
            ios_md_item_do(&tree, loop);
        ios_md_test_dir(t, 0, 0, loop, path, sizeof path);
        int rc = ctx->be.ops->rmdir(&ctx->be, path);
        if (rc != 0)
            ios_phase_error(ctx, rc, "rmdir %s", path);
    }
}

static void run_md(struct ios_phase_ctx *ctx, const struct md_job *job)
{
    struct ios_run *run = ctx->run;
    enum ios_md_op op = ctx->phase->md_op;
    int n = run->size;
    char top[IOS_PATH_MAX];
    ios_path(top, sizeof top, "%s/%s", run->datadir, kind_dir(job->kind));
    const char *const tops[] = {top};
    struct ios_md_tree t;
    md_tree(run, job->kind, tops, &t);
    struct ios_md_items items;
    md_items(ctx, job, &t, op, &items);

    uint64_t limit = files_per_rank(run, job->kind);
    if (op != IOS_MD_FILE_CREATE) {
        int64_t count = ios_status_read_bcast(run, status_name(job->kind));
        if (count >= 0)
            limit = (uint64_t)count;
    } else if (create_tree(ctx, job, &t) != 0) {
        ctx->mine.start = ctx->mine.end = ctx->mine.end_before_barrier = ios_wtime();
        return;
    }
    if (job->kind == MD_HARD && (op == IOS_MD_FILE_CREATE || op == IOS_MD_FILE_READ)) {
        items.buf = ios_alloc_buffer(&ctx->be, MDTEST_HARD_FILE_SIZE);
        if (op == IOS_MD_FILE_CREATE) {
            ios_pattern_fill(items.buf, MDTEST_HARD_FILE_SIZE, ctx->seed, run->rank, run->packet,
                             0);
            items.write_bytes = MDTEST_HARD_FILE_SIZE;
            items.fill = fill_hard;
        } else {
            items.read_bytes = MDTEST_HARD_FILE_SIZE;
            if (ctx->be.ops->caps & IOS_CAP_STORES_DATA)
                items.verify = verify_hard;
        }
    }

    MPI_Barrier(MPI_COMM_WORLD);
    ctx->mine.start = ctx->mine.loop_start = ios_wtime();
    /* files-per-dir (hard only) disables the stonewall, as in the reference */
    int stonewalled = op == IOS_MD_FILE_CREATE && files_per_dir(run, job->kind) == 0;
    double deadline = stonewalled ? (double)run->stonewall : 0;
    ios_instrument_progress_start(&ctx->instr, 0, deadline,
                                  op == IOS_MD_FILE_CREATE ? 0 : (double)limit * n,
                                  &ctx->mine.items, &ctx->mine.bytes);
    int ok = 1;
    if (op == IOS_MD_FILE_CREATE) {
        uint64_t made = ios_run_ops_wear_out(ctx, ios_md_item_op, &items, limit, deadline, &ok);
        ios_status_write(run, status_name(job->kind), (int64_t)made);
        double rank0_time = ctx->mine.first_done - ctx->mine.loop_start;
        double at_deadline = ctx->mine.items_at_deadline, sum = 0;
        MPI_Reduce(&at_deadline, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        if (deadline > 0)
            ios_phase_key(ctx, "rate-stonewall", "%f",
                          rank0_time > 0 ? sum / rank0_time / 1000.0 : 0.0);
        int rc = ctx->be.ops->sync_all(&ctx->be); /* -Y: sync once per rank, timed */
        if (rc != 0)
            ios_phase_error(ctx, rc, "sync");
    } else {
        uint64_t done = ios_run_ops(ctx, ios_md_item_op, &items, 0, limit, deadline, &ok);
        ctx->mine.first_done = ios_wtime();
        ctx->mine.items_at_deadline = (double)done;
    }
    ctx->mine.loop_end = ctx->mine.end_before_barrier = ios_wtime();
    MPI_Barrier(MPI_COMM_WORLD);
    ctx->mine.end = ios_wtime();
    if (op == IOS_MD_FILE_REMOVE && !any_error(ctx))
        remove_tree(ctx, job, &t);
    free(items.buf);
}

/* mdtest's command line of the phase, for result.txt (its flags by the declared operation). */
static void exe_key(struct ios_phase_ctx *ctx, enum md_kind kind)
{
    struct ios_run *run = ctx->run;
    char wall[32] = "", per_dir[32] = "";
    enum ios_md_op op = ctx->phase->md_op;
    const char *flags = op == IOS_MD_FILE_CREATE ? "-C -Y -W"
                        : op == IOS_MD_FILE_STAT ? "-T"
                        : op == IOS_MD_FILE_READ ? "-E -X"
                                                 : "-r";
    if (files_per_dir(run, kind)) { /* no stonewall (-W) with -I, as in the reference */
        snprintf(per_dir, sizeof per_dir, " -I=%" PRIu64, files_per_dir(run, kind));
        if (op == IOS_MD_FILE_CREATE)
            flags = "-C -Y";
    } else if (op == IOS_MD_FILE_CREATE) {
        snprintf(wall, sizeof wall, " %d", run->stonewall);
    }
    ios_phase_key(ctx, "exe",
                  "ioscore-mdtest --dataPacketType=%s -n %" PRIu64 "%s %s -P -G %d "
                  "-N 1 -F -d %s/%s -x %s/%s.stonewall %s%s -a %s",
                  run->cfg.opt.global.data_packet_type, files_per_rank(run, kind), per_dir,
                  kind == MD_EASY ? "-u -L" : "-t -w 3901 -e 3901", ctx->seed, run->datadir,
                  kind_dir(kind), run->resdir, kind_dir(kind), flags, wall, ctx->be.api);
}

static void describe(const struct ios_run *run, FILE *out, enum md_kind kind, const char *what,
                     int shift)
{
    uint64_t n = files_per_rank(run, kind);
    fprintf(out, "  %s: %s; <= %" PRIu64 " files per rank, <= %" PRIu64 " in total\n", what,
            kind == MD_EASY ? "empty files, one directory per rank below "
                              "mdtest-easy/test-dir.0-0"
                            : "3901-byte files in the one shared directory "
                              "mdtest-hard/test-dir.0-0/mdtest_tree.0",
            n, n * (uint64_t)run->size);
    if (files_per_dir(run, kind))
        fprintf(out,
                "  files-per-dir %" PRIu64 ": %" PRIu64 " files per rank in each of %" PRIu64
                " directories test-dir.0-<k>/mdtest_tree.0; no stonewall\n",
                files_per_dir(run, kind), files_per_dir(run, kind), dir_loops(run, kind));
    if (shift > 0)
        fprintf(out,
                "  rank r handles the files of rank (r + %d) mod %d, exactly the written "
                "count\n",
                shift * ios_mdtest_shift(run) % run->size, run->size);
    else
        fprintf(out,
                "  stonewall %d s with wear-out; sync at the end; status file %s/%s."
                "stonewall\n",
                run->stonewall, run->resdir, kind_dir(kind));
}

/* Each phase's run and dry-run description: its kind, whose files it handles (multiples of ns,
 * also in the description), in whose tree (easy), and what it does to a file. */
#define MD_PHASE_FN(fn, kind_, shift_, dir_shift_, what_)                                          \
    static void fn(struct ios_phase_ctx *ctx)                                                      \
    {                                                                                              \
        struct md_job job = {kind_, shift_, dir_shift_};                                           \
        exe_key(ctx, kind_);                                                                       \
        run_md(ctx, &job);                                                                         \
    }                                                                                              \
    static void d_##fn(const struct ios_run *run, FILE *out)                                       \
    {                                                                                              \
        describe(run, out, kind_, what_, shift_);                                                  \
    }

/* easy: files of rank r+k*ns live in the tree of rank r+(k+1)*ns */
MD_PHASE_FN(easy_write, MD_EASY, 0, 1, "create")
MD_PHASE_FN(easy_stat, MD_EASY, 1, 2, "stat")
MD_PHASE_FN(easy_delete, MD_EASY, 3, 4, "unlink")
MD_PHASE_FN(hard_write, MD_HARD, 0, 0, "create + write")
MD_PHASE_FN(hard_stat, MD_HARD, 1, 0, "stat")
MD_PHASE_FN(hard_read, MD_HARD, 2, 0, "read + verify")
MD_PHASE_FN(hard_delete, MD_HARD, 3, 0, "unlink")

/* ---- what the phases leave behind: the delete phases remove the trees; these hooks remove
 * the top directories and, for --cleanup, what an interrupted run left, by mdtest's names */

static void remove_top_dir(struct ios_run *run, struct ios_backend *be, enum md_kind kind)
{
    ios_status_remove(run, status_name(kind));
    if (run->rank != 0)
        return;
    char path[IOS_PATH_MAX];
    ios_path(path, sizeof path, "%s/%s", run->datadir, kind_dir(kind));
    ios_remove_known(run, be, path, 1);
}

static void easy_cleanup(struct ios_run *run, struct ios_backend *be)
{
    remove_top_dir(run, be, MD_EASY);
}

static void hard_cleanup(struct ios_run *run, struct ios_backend *be)
{
    remove_top_dir(run, be, MD_HARD);
}

static int is_mdtest_file(const char *name)
{
    return ios_name_numbered(name, "file.mdtest.", 2);
}

static long easy_sweep(const struct ios_run *run, int verbose)
{
    char path[IOS_PATH_MAX];
    ios_path(path, sizeof path, "%s/mdtest-easy/test-dir.0-0", run->datadir);
    long removed = ios_sweep_numbered_dirs(path, "mdtest_tree.", 2, is_mdtest_file, verbose);
    ios_rmdir_quiet(path, verbose);
    ios_path(path, sizeof path, "%s/mdtest-easy", run->datadir);
    ios_rmdir_quiet(path, verbose);
    return removed + ios_status_remove(run, status_name(MD_EASY));
}

static long hard_sweep(const struct ios_run *run, int verbose)
{
    char path[IOS_PATH_MAX], sub[IOS_PATH_MAX];
    ios_path(path, sizeof path, "%s/mdtest-hard", run->datadir);
    long removed = 0;
    DIR *d = opendir(path); /* files-per-dir: test-dir.0-<k> for k = 0, 1, ... */
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        if (!ios_name_numbered(e->d_name, "test-dir.0-", 1))
            continue;
        ios_path(sub, sizeof sub, "%s/%s", path, e->d_name);
        removed += ios_sweep_numbered_dirs(sub, "mdtest_tree.", 1, is_mdtest_file, verbose);
        ios_rmdir_quiet(sub, verbose);
    }
    if (d)
        closedir(d);
    ios_rmdir_quiet(path, verbose);
    return removed + ios_status_remove(run, status_name(MD_HARD));
}

#define MD_PHASE(var, name_, group_, type_, op_, fn, dfn, ...)                                     \
    const struct ios_phase var = {.name = name_,                                                   \
                                  .group = group_,                                                 \
                                  .score_group = IOS_GROUP_MD,                                     \
                                  .type = type_,                                                   \
                                  .metric = IOS_METRIC_MD,                                         \
                                  .unit = IOS_UNIT_KIOPS,                                          \
                                  .md_op = op_,                                                    \
                                  .seed_key = group_,                                              \
                                  .csv_kind = "mdtest",                                            \
                                  .has_log = 1,                                                    \
                                  .run = fn,                                                       \
                                  .describe = dfn,                                                 \
                                  __VA_ARGS__};

MD_PHASE(ios_phase_mdtest_easy_write, "mdtest-easy-write", "mdtest-easy", IOS_PHASE_WRITE,
         IOS_MD_FILE_CREATE, easy_write, d_easy_write, .stonewalled = 1,
         .pattern = "create empty files, each rank in its own directory", .top_dir = "mdtest-easy",
         .creates = "mdtest-easy/test-dir.0-0/mdtest_tree.<rank>.0/file.mdtest.<rank>.<i>, "
                    "<resdir>/mdtest-easy.stonewall",
         .cleanup = easy_cleanup, .sweep = easy_sweep)
MD_PHASE(ios_phase_mdtest_easy_stat, "mdtest-easy-stat", "mdtest-easy", IOS_PHASE_READ,
         IOS_MD_FILE_STAT, easy_stat, d_easy_stat,
         .pattern = "stat another rank's mdtest-easy files")
MD_PHASE(ios_phase_mdtest_easy_delete, "mdtest-easy-delete", "mdtest-easy", IOS_PHASE_REMOVE,
         IOS_MD_FILE_REMOVE, easy_delete, d_easy_delete,
         .pattern = "unlink another rank's mdtest-easy files, then the trees")
MD_PHASE(ios_phase_mdtest_hard_write, "mdtest-hard-write", "mdtest-hard", IOS_PHASE_WRITE,
         IOS_MD_FILE_CREATE, hard_write, d_hard_write, .stonewalled = 1,
         .pattern = "create 3901-byte files, every rank in one shared directory",
         .top_dir = "mdtest-hard",
         .creates = "mdtest-hard/test-dir.0-<k>/mdtest_tree.0/file.mdtest.<rank>.<i>, "
                    "<resdir>/mdtest-hard.stonewall",
         .cleanup = hard_cleanup, .sweep = hard_sweep)
MD_PHASE(ios_phase_mdtest_hard_stat, "mdtest-hard-stat", "mdtest-hard", IOS_PHASE_READ,
         IOS_MD_FILE_STAT, hard_stat, d_hard_stat,
         .pattern = "stat another rank's mdtest-hard files")
MD_PHASE(ios_phase_mdtest_hard_read, "mdtest-hard-read", "mdtest-hard", IOS_PHASE_READ,
         IOS_MD_FILE_READ, hard_read, d_hard_read,
         .pattern = "read and verify another rank's 3901-byte mdtest-hard files")
MD_PHASE(ios_phase_mdtest_hard_delete, "mdtest-hard-delete", "mdtest-hard", IOS_PHASE_REMOVE,
         IOS_MD_FILE_REMOVE, hard_delete, d_hard_delete,
         .pattern = "unlink another rank's mdtest-hard files, then the directories")
