/*
 * The mdtest-style phases (benchmark spec §1.3.3, §1.3.4, §2.3).
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

#include "ioscore/phases.h"

#define MDTEST_HARD_FILE_SIZE 3901

enum md_kind { MD_EASY, MD_HARD };
enum md_op { OP_CREATE, OP_STAT, OP_READ, OP_DELETE };

static const char *kind_dir(enum md_kind kind)
{
    return kind == MD_EASY ? "mdtest-easy" : "mdtest-hard";
}

/* The tree directory of `owner` (easy) or of directory loop `loop` (hard). */
static void tree_path(const struct ios_run *run, enum md_kind kind, int owner, uint64_t loop,
                      char *buf, size_t len)
{
    if (kind == MD_EASY)
        ios_path(buf, len, "%s/mdtest-easy/test-dir.0-0/mdtest_tree.%d.0", run->datadir, owner);
    else
        ios_path(buf, len, "%s/mdtest-hard/test-dir.0-%" PRIu64 "/mdtest_tree.0", run->datadir,
                 loop);
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
    enum md_op op;
    int shift;     /* multiples of ns: whose files this rank handles */
    int dir_shift; /* easy: in whose tree the files are */
};

struct md_state {
    struct ios_phase_ctx *ctx;
    const struct md_job *job;
    int owner;        /* the rank that created the files */
    uint64_t per_dir; /* files-per-dir, 0 = all in `dir` */
    char dir[IOS_PATH_MAX];
    void *buf;
    int verify; /* mdtest-hard-read: compare with the writer's pattern */
};

static int item_once(struct md_state *st, uint64_t i)
{
    struct ios_phase_ctx *ctx = st->ctx;
    struct ios_run *run = ctx->run;
    char path[IOS_PATH_MAX];
    if (st->per_dir) {
        tree_path(run, st->job->kind, 0, i / st->per_dir, st->dir, sizeof st->dir);
        ios_path(path, sizeof path, "%s/file.mdtest.%d.%" PRIu64, st->dir, st->owner,
                 i % st->per_dir);
    } else {
        ios_path(path, sizeof path, "%s/file.mdtest.%d.%" PRIu64, st->dir, st->owner, i);
    }
    int64_t h = 0;
    int rc = 0;
    switch (st->job->op) {
    case OP_CREATE:
        rc = ctx->be.ops->open(&ctx->be, path, IOS_OPEN_WRITE | IOS_OPEN_CREATE, &h);
        if (rc != 0) {
            ios_phase_error(ctx, rc, "create %s", path);
            return -1;
        }
        if (st->job->kind == MD_HARD) {
            if (ios_packet_varies_per_item(run->packet))
                ios_pattern_update(st->buf, MDTEST_HARD_FILE_SIZE, ctx->seed, run->rank,
                                   run->packet, i);
            ssize_t n = ctx->be.ops->pwrite(&ctx->be, h, st->buf, MDTEST_HARD_FILE_SIZE, 0);
            if (n != MDTEST_HARD_FILE_SIZE) {
                ios_phase_error(ctx, n < 0 ? (int)n : -EIO, "write %s", path);
                ctx->be.ops->close(&ctx->be, h);
                return -1;
            }
            ctx->mine.bytes += MDTEST_HARD_FILE_SIZE;
        }
        rc = ctx->be.ops->close(&ctx->be, h);
        if (rc != 0) {
            ios_phase_error(ctx, rc, "close %s", path);
            return -1;
        }
        break;
    case OP_STAT: {
        int64_t size = 0;
        rc = ctx->be.ops->stat_size(&ctx->be, path, &size);
        if (rc != 0) {
            ios_phase_error(ctx, rc, "stat %s", path);
            return -1;
        }
        break;
    }
    case OP_READ: {
        rc = ctx->be.ops->open(&ctx->be, path, IOS_OPEN_READ, &h);
        if (rc != 0) {
            ios_phase_error(ctx, rc, "open %s", path);
            return -1;
        }
        ssize_t n = ctx->be.ops->pread(&ctx->be, h, st->buf, MDTEST_HARD_FILE_SIZE, 0);
        ctx->be.ops->close(&ctx->be, h);
        if (n < 0) {
            ios_phase_error(ctx, (int)n, "read %s", path);
            return -1;
        }
        ctx->mine.bytes += (double)n;
        if (st->verify) {
            if (n != MDTEST_HARD_FILE_SIZE ||
                !ios_pattern_matches(st->buf, MDTEST_HARD_FILE_SIZE, ctx->seed, st->owner,
                                     run->packet, i)) {
                if (ctx->mine.verify_errors == 0)
                    fprintf(stderr,
                            "ioscore-suite: %s: rank %d: data mismatch in %s (%zd "
                            "bytes read, written by rank %d)\n",
                            ctx->phase->name, run->rank, path, n, st->owner);
                ctx->mine.verify_errors += 1;
            }
        }
        break;
    }
    case OP_DELETE:
        rc = ctx->be.ops->unlink(&ctx->be, path);
        if (rc != 0) {
            ios_phase_error(ctx, rc, "unlink %s", path);
            return -1;
        }
        break;
    }
    ctx->mine.items += 1;
    return 0;
}

static int item_op(void *st, uint64_t i)
{
    return item_once(st, i);
}

static const char *status_name(enum md_kind kind)
{
    return kind_dir(kind);
}

/* Tree setup for the write phases (timed apart from the create rate, as mdtest does). */
static int create_tree(struct ios_phase_ctx *ctx, enum md_kind kind)
{
    struct ios_run *run = ctx->run;
    char path[IOS_PATH_MAX];
    if (run->rank == 0) {
        ios_path(path, sizeof path, "%s/%s", run->datadir, kind_dir(kind));
        int rc = make_dir(ctx, path);
        for (uint64_t loop = 0; rc == 0 && loop < dir_loops(run, kind); loop++) {
            ios_path(path, sizeof path, "%s/%s/test-dir.0-%" PRIu64, run->datadir, kind_dir(kind),
                     loop);
            rc = make_dir(ctx, path);
            if (rc == 0 && kind == MD_HARD) {
                tree_path(run, kind, 0, loop, path, sizeof path);
                rc = make_dir(ctx, path);
            }
        }
    }
    if (any_error(ctx))
        return -1;
    if (kind == MD_EASY) {
        tree_path(run, kind, run->rank, 0, path, sizeof path);
        make_dir(ctx, path);
        if (any_error(ctx))
            return -1;
    }
    return 0;
}

/* Tree removal after the delete phases: own tree per rank (easy), then rank 0's dirs. */
static void remove_tree(struct ios_phase_ctx *ctx, enum md_kind kind)
{
    struct ios_run *run = ctx->run;
    char path[IOS_PATH_MAX];
    if (kind == MD_EASY) {
        tree_path(run, kind, run->rank, 0, path, sizeof path);
        int rc = ctx->be.ops->rmdir(&ctx->be, path);
        if (rc != 0)
            ios_phase_error(ctx, rc, "rmdir %s", path);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (uint64_t loop = 0; run->rank == 0 && loop < dir_loops(run, kind); loop++) {
        if (kind == MD_HARD) {
            tree_path(run, kind, 0, loop, path, sizeof path);
            int rc = ctx->be.ops->rmdir(&ctx->be, path);
            if (rc != 0)
                ios_phase_error(ctx, rc, "rmdir %s", path);
        }
        ios_path(path, sizeof path, "%s/%s/test-dir.0-%" PRIu64, run->datadir, kind_dir(kind),
                 loop);
        int rc = ctx->be.ops->rmdir(&ctx->be, path);
        if (rc != 0)
            ios_phase_error(ctx, rc, "rmdir %s", path);
    }
}

static void run_md(struct ios_phase_ctx *ctx, const struct md_job *job)
{
    struct ios_run *run = ctx->run;
    int ns = ios_mdtest_shift(run), n = run->size;
    struct md_state st;
    memset(&st, 0, sizeof st);
    st.ctx = ctx;
    st.job = job;
    st.owner = (run->rank + job->shift * ns) % n;
    st.per_dir = files_per_dir(run, job->kind);
    tree_path(run, job->kind, (run->rank + job->dir_shift * ns) % n, 0, st.dir, sizeof st.dir);

    uint64_t limit = files_per_rank(run, job->kind);
    if (job->op != OP_CREATE) {
        int64_t count = ios_status_read_bcast(run, status_name(job->kind));
        if (count >= 0)
            limit = (uint64_t)count;
    } else if (create_tree(ctx, job->kind) != 0) {
        ctx->mine.start = ctx->mine.end = ctx->mine.end_before_barrier = ios_wtime();
        return;
    }
    if (job->kind == MD_HARD && (job->op == OP_CREATE || job->op == OP_READ)) {
        st.buf = ios_alloc_buffer(&ctx->be, MDTEST_HARD_FILE_SIZE);
        if (job->op == OP_CREATE) {
            ios_pattern_fill(st.buf, MDTEST_HARD_FILE_SIZE, ctx->seed, run->rank, run->packet, 0);
        } else {
            st.verify = (ctx->be.ops->caps & IOS_CAP_STORES_DATA) != 0;
        }
    }

    MPI_Barrier(MPI_COMM_WORLD);
    ctx->mine.start = ctx->mine.loop_start = ios_wtime();
    /* files-per-dir (hard only) disables the stonewall, as in the reference */
    int stonewalled = job->op == OP_CREATE && files_per_dir(run, job->kind) == 0;
    double deadline = stonewalled ? (double)run->stonewall : 0;
    ios_instrument_progress_start(&ctx->instr, 0, deadline,
                                  job->op == OP_CREATE ? 0 : (double)limit * n, &ctx->mine.items,
                                  &ctx->mine.bytes);
    int ok = 1;
    if (job->op == OP_CREATE) {
        uint64_t made = ios_run_ops_wear_out(ctx, item_op, &st, limit, deadline, &ok);
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
        uint64_t done = ios_run_ops(ctx, item_op, &st, 0, limit, deadline, &ok);
        ctx->mine.first_done = ios_wtime();
        ctx->mine.items_at_deadline = (double)done;
    }
    ctx->mine.loop_end = ctx->mine.end_before_barrier = ios_wtime();
    MPI_Barrier(MPI_COMM_WORLD);
    ctx->mine.end = ios_wtime();
    if (job->op == OP_DELETE && !any_error(ctx))
        remove_tree(ctx, job->kind);
    free(st.buf);
}

static void exe_key(struct ios_phase_ctx *ctx, enum md_kind kind, const char *op)
{
    struct ios_run *run = ctx->run;
    char wall[32] = "", per_dir[32] = "";
    int create = strcmp(op, "-C -Y -W") == 0;
    if (files_per_dir(run, kind)) { /* no stonewall (-W) with -I, as in the reference */
        snprintf(per_dir, sizeof per_dir, " -I=%" PRIu64, files_per_dir(run, kind));
        if (create)
            op = "-C -Y";
    } else if (create) {
        snprintf(wall, sizeof wall, " %d", run->stonewall);
    }
    ios_phase_key(ctx, "exe",
                  "ioscore-mdtest --dataPacketType=%s -n %" PRIu64 "%s %s -P -G %d "
                  "-N 1 -F -d %s/%s -x %s/%s.stonewall %s%s -a %s",
                  run->cfg.opt.global.data_packet_type, files_per_rank(run, kind), per_dir,
                  kind == MD_EASY ? "-u -L" : "-t -w 3901 -e 3901", ctx->seed, run->datadir,
                  kind_dir(kind), run->resdir, kind_dir(kind), op, wall, ctx->be.api);
}

#define MD_PHASE_FN(fn, kind_, op_, shift_, dir_shift_, flags)                                     \
    static void fn(struct ios_phase_ctx *ctx)                                                      \
    {                                                                                              \
        struct md_job job = {kind_, op_, shift_, dir_shift_};                                      \
        exe_key(ctx, kind_, flags);                                                                \
        run_md(ctx, &job);                                                                         \
    }

/* easy: files of rank r+k*ns live in the tree of rank r+(k+1)*ns */
MD_PHASE_FN(easy_write, MD_EASY, OP_CREATE, 0, 1, "-C -Y -W")
MD_PHASE_FN(easy_stat, MD_EASY, OP_STAT, 1, 2, "-T")
MD_PHASE_FN(easy_delete, MD_EASY, OP_DELETE, 3, 4, "-r")
MD_PHASE_FN(hard_write, MD_HARD, OP_CREATE, 0, 0, "-C -Y -W")
MD_PHASE_FN(hard_stat, MD_HARD, OP_STAT, 1, 0, "-T")
MD_PHASE_FN(hard_read, MD_HARD, OP_READ, 2, 0, "-E -X")
MD_PHASE_FN(hard_delete, MD_HARD, OP_DELETE, 3, 0, "-r")

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

static void d_easy_write(const struct ios_run *r, FILE *o)
{
    describe(r, o, MD_EASY, "create", 0);
}
static void d_easy_stat(const struct ios_run *r, FILE *o)
{
    describe(r, o, MD_EASY, "stat", 1);
}
static void d_easy_delete(const struct ios_run *r, FILE *o)
{
    describe(r, o, MD_EASY, "unlink", 3);
}
static void d_hard_write(const struct ios_run *r, FILE *o)
{
    describe(r, o, MD_HARD, "create + write", 0);
}
static void d_hard_stat(const struct ios_run *r, FILE *o)
{
    describe(r, o, MD_HARD, "stat", 1);
}
static void d_hard_read(const struct ios_run *r, FILE *o)
{
    describe(r, o, MD_HARD, "read + verify", 2);
}
static void d_hard_delete(const struct ios_run *r, FILE *o)
{
    describe(r, o, MD_HARD, "unlink", 3);
}

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
