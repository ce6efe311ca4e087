/*
 * `ioscore-suite mdtest ARGS...`: mdtest's command line on the standard engine, one phase per
 * mdtest operation (ios_run_one_phase: op loop, latency, time series, CSVs, result.json with
 * mode "mdtest"), each phase's items through the mdtest item engine, which owns mdtest's
 * namespace and walk orders (include/ioscore/mdtest_items.h). Per -i iteration the trees are
 * below <d>/test-dir.<iteration>-0; rank r works in -d directory r mod count ('@'-separated
 * list). With the stride S (-N after mdtest's placement rule, ios_mdtest_stride) stat and
 * rename handle the items of rank r + S, read those of r + 2S, removal those of r + 3S
 * (mod size), as mdtest names them; with -u the items of rank q are in tree q + S.
 */
#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "ioscore/acceptance.h"
#include "ioscore/mdtest_items.h"
#include "ioscore/report.h"

/* mdtest's SUMMARY rows: rates, with mdtest's sample deviation. */
static const struct ios_acc_measure md_measure = {"ops/s", IOS_ACC_SAMPLE};

/* The phase name's parts of each operation: mdtest-<kind>-<verb>-<iteration>. */
static const char *const phase_names[IOS_MD_OPS + 1] = {
    [IOS_MD_DIR_CREATE] = "dir-write",   [IOS_MD_DIR_STAT] = "dir-stat",
    [IOS_MD_DIR_RENAME] = "dir-rename",  [IOS_MD_DIR_REMOVE] = "dir-delete",
    [IOS_MD_FILE_CREATE] = "file-write", [IOS_MD_FILE_STAT] = "file-stat",
    [IOS_MD_FILE_READ] = "file-read",    [IOS_MD_FILE_REMOVE] = "file-delete",
    [IOS_MD_TREE_CREATE] = "tree-write", [IOS_MD_TREE_REMOVE] = "tree-delete",
};

/* mdtest's names: stat and rename handle the items of r + S, read r + 2S, removal r + 3S. */
static long stride_multiple(enum ios_md_op op)
{
    switch (op) {
    case IOS_MD_DIR_STAT:
    case IOS_MD_FILE_STAT:
    case IOS_MD_DIR_RENAME:
        return 1;
    case IOS_MD_FILE_READ:
        return 2;
    case IOS_MD_DIR_REMOVE:
    case IOS_MD_FILE_REMOVE:
        return 3;
    default:
        return 0;
    }
}

static int is_create(enum ios_md_op op)
{
    return op == IOS_MD_DIR_CREATE || op == IOS_MD_FILE_CREATE || op == IOS_MD_TREE_CREATE;
}

/* ---------------------------------------------------------------- the phases */

struct md_phase {
    struct ios_phase base; /* first: the engine sees only this */
    const struct ios_mdtest_params *p;
    const struct ios_md_tree *tree;
    int iteration;
    long stride; /* -N after the placement rule: with -u, rank q's items are in tree q + stride */
    uint64_t *created; /* files per rank the create of this iteration made (-W) */
    char name[48];
};

/* The shape of the launch's trees in the engine's terms. */
static void tree_of(const struct ios_mdtest_params *p, struct ios_md_tree *t)
{
    *t = (struct ios_md_tree){.dirs = p->dirs,
                              .n_dirs = p->n_dirs,
                              .unique = p->unique,
                              .depth = p->depth,
                              .branch = p->branch,
                              .leaf = p->leaf,
                              .nodes = p->nodes,
                              .leaves = p->leaves,
                              .per_node = p->per_node};
}

static const char *dir_of(const struct ios_mdtest_params *p, int rank)
{
    return p->dirs[rank % p->n_dirs];
}

/* Does this rank create/remove a tree? (-u: every rank; else the first rank of each -d dir) */
static int tree_owner(const struct ios_mdtest_params *p, int rank)
{
    return p->unique || rank < p->n_dirs;
}

/* -X: item i holds the first -w bytes its writer wrote (the writer's pattern). */
static int verify_written(const struct ios_md_items *items, uint64_t i, ssize_t n, const char *path)
{
    (void)i;
    struct ios_phase_ctx *ctx = items->ctx;
    if (memcmp(items->buf, items->user, (size_t)n) == 0)
        return 0;
    if (ctx->mine.verify_errors == 0)
        fprintf(stderr, "ioscore-suite mdtest: rank %d: data mismatch in %s\n", ctx->run->rank,
                path);
    return 1;
}

/*
 * mdtest's unique_dir_access for -u: the creating phases wait for every rank (mdtest's barrier
 * before the create of its unique directory); no file system call (mdtest only names the
 * directory). mdtest restarts a phase's clock after it unless -t ("time unique working
 * directory overhead") keeps it in the phase time.
 */
static void unique_dir_access(enum ios_md_op op)
{
    if (is_create(op))
        MPI_Barrier(MPI_COMM_WORLD);
}

static void md_phase_run(struct ios_phase_ctx *ctx)
{
    const struct md_phase *ph = (const struct md_phase *)ctx->phase;
    const struct ios_mdtest_params *p = ph->p;
    struct ios_run *run = ctx->run;
    enum ios_md_op op = ph->base.md_op;
    int tree_op = ios_md_op_is_tree(op);
    struct ios_md_items items = {
        .ctx = ctx, .op = op, .tree = ph->tree, .iteration = ph->iteration};
    items.owner =
        tree_op ? run->rank : (int)((run->rank + stride_multiple(op) * ph->stride) % run->size);
    items.tree_rank = p->unique ? (int)((items.owner + (tree_op ? 0 : ph->stride)) % run->size) : 0;
    uint64_t count = tree_op ? (tree_owner(p, run->rank) ? p->nodes : 0)
                             : p->per_node * (p->leaf ? p->leaves : p->nodes);
    ios_phase_key(ctx, "command", "%s", p->command);
    ios_phase_key(ctx, "iteration", "%d", ph->iteration);
    ios_phase_key(ctx, "items_per_rank", "%" PRIu64, count);
    ios_phase_key(ctx, "of_rank_shift", "%d", (items.owner - run->rank + run->size) % run->size);
    size_t buf_len = (size_t)(p->write_bytes > p->read_bytes ? p->write_bytes : p->read_bytes);
    if (buf_len > 0) {
        items.buf = ios_alloc_buffer(&ctx->be, buf_len);
        ios_pattern_fill(items.buf, buf_len, 0, run->rank, IOS_PACKET_TIMESTAMP, 0);
    }
    if (op == IOS_MD_FILE_CREATE)
        items.write_bytes = (size_t)p->write_bytes;
    if (op == IOS_MD_FILE_READ) {
        items.read_bytes = (size_t)p->read_bytes;
        items.exact_read = 1;
    }
    if (p->verify && op == IOS_MD_FILE_READ && p->read_bytes > 0) {
        items.user = ios_alloc_buffer(&ctx->be, (size_t)p->write_bytes);
        ios_pattern_fill(items.user, (size_t)p->write_bytes, 0, items.owner, IOS_PACKET_TIMESTAMP,
                         0);
        items.verify = verify_written;
    }
    uint64_t walked = 0;
    uint64_t *walk = ios_md_walk(ph->tree, op, &walked);
    items.walk = walk;
    /* -u: the phase first reaches its unique working directory; -t keeps that in the time */
    double before_access = ios_wtime();
    int access = p->unique && !tree_op;
    if (access)
        unique_dir_access(op);
    ctx->mine.loop_start = ios_wtime();
    ios_phase_key(ctx, "unique_dir_overhead", "%s",
                  !access          ? "none"
                  : p->time_unique ? "timed (-t)"
                                   : "excluded (no -t)");
    if (access)
        ios_phase_key(ctx, "unique_dir_access_s", "%.9f", ctx->mine.loop_start - before_access);
    ctx->mine.start = p->time_unique ? before_access : ctx->mine.loop_start;
    ios_instrument_progress_start(&ctx->instr, 0, 0, (double)count * run->size, &ctx->mine.items,
                                  &ctx->mine.bytes);
    if (!tree_op && !ios_md_op_is_dir(op) && op != IOS_MD_FILE_CREATE && *ph->created < count)
        count = *ph->created; /* after a stonewalled create: what every rank created */
    items.count = count;
    int ok = 1;
    if (op == IOS_MD_FILE_CREATE && p->stonewall > 0) { /* -W: on to the busiest rank's count */
        *ph->created = ios_run_ops_wear_out(ctx, ios_md_item_op, &items, count, p->stonewall, &ok);
    } else {
        uint64_t done = ios_run_ops(ctx, ios_md_item_op, &items, 0, count, 0, &ok);
        ctx->mine.first_done = ios_wtime();
        ctx->mine.items_at_deadline = (double)done;
    }
    if (p->sync) { /* -Y: inside the timing, as mdtest's sync call */
        int rc = ctx->be.ops->sync_all(&ctx->be);
        if (rc != 0)
            ios_phase_error(ctx, rc, "sync");
    }
    ctx->mine.loop_end = ios_wtime();
    ctx->mine.end = ctx->mine.end_before_barrier = ctx->mine.loop_end;
    free(walk);
    free(items.buf);
    free(items.user);
}

/* ---------------------------------------------------------------- run and output */

/* Before any I/O: the parent of every used -d directory exists, and a launch that does not
 * create (-C) finds the trees of an earlier one. */
static int prepare(struct ios_run *run, const struct ios_mdtest_params *p,
                   const struct ios_md_tree *t, struct ios_backend *be)
{
    int bad = 0;
    char path[IOS_PATH_MAX];
    if (p->n_dirs > run->size) {
        if (run->rank == 0)
            fprintf(stderr,
                    "ioscore-suite mdtest: ERROR: %d -d directories for %d tasks: mdtest refuses "
                    "more directories than tasks\n",
                    p->n_dirs, run->size);
        return 2;
    }
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
    if (ios_acceptance_agree(bad))
        return 2;
    if (!p->create) {
        ios_md_node_path(t, run->rank, 0, 0, 0, path, sizeof path);
        int64_t size;
        if (be->ops->stat_size(be, path, &size) != 0) {
            fprintf(stderr,
                    "ioscore-suite mdtest: ERROR: rank %d: %s does not exist: this launch does "
                    "not create (-C); run the creating launch first\n",
                    run->rank, path);
            bad = 1;
        }
    }
    return ios_acceptance_agree(bad);
}

/* Before the tree creation of iteration `it`: the first rank of each -d directory creates it
 * (as mdtest; *made_root: it did not exist, so a removing launch removes it) and its
 * test-dir.<it>-0. */
static int make_test_dirs(struct ios_run *run, const struct ios_mdtest_params *p,
                          const struct ios_md_tree *t, struct ios_backend *be, int it,
                          int *made_root)
{
    int bad = 0;
    if (run->rank < p->n_dirs) {
        char path[IOS_PATH_MAX];
        int rc = be->ops->mkdir(be, p->dirs[run->rank], 0700);
        *made_root |= rc == 0;
        ios_md_test_dir(t, run->rank, it, 0, path, sizeof path);
        int rc2 = rc == 0 || rc == -EEXIST ? be->ops->mkdir(be, path, 0700) : rc;
        if (rc2 != 0 && rc2 != -EEXIST) {
            fprintf(stderr, "ioscore-suite mdtest: ERROR: mkdir %s: %s\n", path, strerror(-rc2));
            bad = 1;
        }
    }
    return ios_acceptance_agree(bad);
}

/* The slowest rank's time: the denominator of the phase rate (IOS_METRIC_MD). */
static double md_time(const struct ios_phase_result *res)
{
    return ios_phase_totals(res).max_span; /* over every rank, in either form */
}

/* mdtest's SUMMARY table from the report's series: rates, or with -P also the times. As mdtest,
 * every row of the directory and/or file operations and both tree rows, 0 for a phase that
 * did not run (scripts find the rows they parse where mdtest puts them). */
static void print_summary(const struct ios_acc_report *rep, const char *what,
                          const struct ios_mdtest_params *p, int times,
                          const enum ios_md_op *series_op)
{
    printf("\nSUMMARY %s: (of %d iterations)\n", what, p->reps);
    printf("   Operation                     Max            Min           Mean        Std Dev\n");
    printf("   ---------                     ---            ---           ----        -------\n");
    static const enum ios_md_op order[] = {
        IOS_MD_DIR_CREATE,  IOS_MD_DIR_STAT,   IOS_MD_DIR_RENAME, IOS_MD_DIR_REMOVE,
        IOS_MD_FILE_CREATE, IOS_MD_FILE_STAT,  IOS_MD_FILE_READ,  IOS_MD_FILE_REMOVE,
        IOS_MD_TREE_CREATE, IOS_MD_TREE_REMOVE};
    for (size_t k = 0; k < sizeof order / sizeof order[0]; k++) {
        enum ios_md_op op = order[k];
        int dir = ios_md_op_is_dir(op), tree = ios_md_op_is_tree(op);
        if ((dir && p->files_only) || (!dir && !tree && p->dirs_only))
            continue;
        struct ios_acc_stats st = {0, 0, 0, 0};
        for (int i = 0; i < rep->n_series; i++) {
            const struct ios_acc_series *se = &rep->series[i];
            if (series_op[i] == op && se->n > 0)
                ios_acc_series_stats(se, times ? se->time : se->values, &st);
        }
        printf("   %-22s %14.3f %14.3f %14.3f %14.3f\n", ios_md_op_name(op), st.max, st.min,
               st.mean, st.stddev);
    }
}

/* mdtest's opening lines (rank 0), ioscore's own (results, tree shape) where mdtest prints its
 * warnings and node map; "N tasks, M files/directories" as mdtest counts them. */
static void print_header(const struct ios_run *run, const struct ios_mdtest_params *p)
{
    char now[64], real[PATH_MAX], probe[IOS_PATH_MAX];
    ios_format_time(ios_wtime(), "%m/%d/%Y %H:%M:%S", now, sizeof now);
    printf("-- started at %s --\n\n", now);
    printf("ioscore-suite mdtest %s was launched with %d total task(s) on %d node(s)\n",
           run->version, run->size, run->nnodes);
    printf("Command line used: %s\n", p->command);
    printf("Results: %s\n", run->resdir_scratch
                                ? "not kept (--resultdir DIR keeps result.json and the CSVs)"
                                : run->resdir);
    uint64_t per_rank = p->per_node * (p->leaf ? p->leaves : p->nodes);
    printf("Tree: %" PRIu64 " per directory, %" PRIu64 " directories per tree%s\n", p->per_node,
           p->leaf ? p->leaves : p->nodes, p->leaf ? ", leaves only" : "");
    snprintf(probe, sizeof probe, "%s", p->dirs[0]);
    struct statvfs fs;
    int made = access(probe, F_OK) == 0;
    if (!made) /* not made yet: its parent's file system, mdtest's path */
        snprintf(probe, sizeof probe, "%s", dirname(strcpy(real, p->dirs[0])));
    char base[IOS_PATH_MAX];
    snprintf(base, sizeof base, "%s", p->dirs[0]);
    if (realpath(probe, real))
        printf("Path                : %s%s%s\n", real, made ? "" : "/", made ? "" : basename(base));
    else
        printf("Path                : %s\n", p->dirs[0]);
    if (statvfs(probe, &fs) == 0 && fs.f_blocks > 0 && fs.f_files > 0) {
        double total = (double)fs.f_blocks * fs.f_frsize / (1024.0 * 1024 * 1024);
        const char *unit = total > 1024 ? "TiB" : "GiB";
        printf("FS                  : %.1f %s   Used FS: %2.1f%%   Inodes: %.1f Mi   Used Inodes: "
               "%2.1f%%\n\n",
               total > 1024 ? total / 1024 : total, unit,
               (1 - (double)fs.f_bfree / fs.f_blocks) * 100, fs.f_files / (1024.0 * 1024),
               (1 - (double)fs.f_ffree / fs.f_files) * 100);
    }
    uint64_t all = per_rank * (uint64_t)run->size;
    if (p->files_only)
        printf("%d tasks, %" PRIu64 " files\n", run->size, all);
    else if (p->dirs_only)
        printf("%d tasks, %" PRIu64 " directories\n", run->size, all);
    else
        printf("%d tasks, %" PRIu64 " files/directories\n", run->size, all);
}

/* The manifest a keeping create launch leaves in the first -d directory (see manifest.c). */
static void manifest_path(const struct ios_mdtest_params *p, char *buf, size_t len)
{
    ios_path(buf, len, "%s/ioscore-test.json", p->dirs[0]);
}

/*
 * A launch that does not create (-C) and the create part of its test (rank 0 decides, every
 * rank learns): the tree must have the same shape and tasks, and hold at least the bytes -e
 * reads. *created: files per rank the create made (lower after its -W stonewall). 0 or 2.
 */
static int match_create_part(const struct ios_run *run, const struct ios_mdtest_params *p,
                             const struct ios_md_tree *t, long stride, struct ios_acc_manifest *m,
                             int *found, uint64_t *created)
{
    int bad = 0;
    *found = 0;
    double made = -1;
    if (run->rank == 0) {
        char path[IOS_PATH_MAX], why[512];
        manifest_path(p, path, sizeof path);
        const struct ios_acc_expect same[] = {
            {"items", (double)p->items, "-n"}, {"depth", p->depth, "-z"},
            {"branch", p->branch, "-b"},       {"unique", p->unique, "-u"},
            {"leaf", p->leaf, "-L"},           {"tasks", run->size, "tasks"},
            {"n_dirs", p->n_dirs, "-d count"},
        };
        int rc = ios_acc_manifest_check("mdtest", path, m, same, sizeof same / sizeof same[0],
                                        "create", why, sizeof why);
        bad = rc < 0;
        if (rc > 0) {
            *found = 1;
            double wrote = ios_acc_manifest_num(m, "write_bytes", 0);
            if (!why[0] && p->read && !p->dirs_only && (double)p->read_bytes > wrote)
                snprintf(why, sizeof why,
                         "the create part of test %s wrote %.0f bytes per file (-w), this "
                         "launch reads %" PRIu64 " (-e)",
                         ios_acc_manifest_str(m, "id"), wrote, p->read_bytes);
            if (!why[0] && ios_acc_manifest_num(m, "files_only", 0) && !p->files_only)
                snprintf(why, sizeof why, "the create part of test %s made files only (-F): add -F",
                         ios_acc_manifest_str(m, "id"));
            if (!why[0] && ios_acc_manifest_num(m, "dirs_only", 0) && !p->dirs_only)
                snprintf(why, sizeof why,
                         "the create part of test %s made directories only (-D): add -D",
                         ios_acc_manifest_str(m, "id"));
            if (why[0]) {
                fprintf(stderr, "ioscore-suite mdtest: ERROR: %s (%s)\n", why, path);
                bad = 1;
            }
            made = ios_acc_manifest_num(m, "created_per_rank", -1);
        }
    }
    MPI_Bcast(found, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Bcast(&made, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    *created = made >= 0 ? (uint64_t)made : UINT64_MAX;
    if (ios_acceptance_agree(bad))
        return 2;
    /* a sample: the first file of the rank whose items this rank uses has the -w size */
    if (*found && !p->dirs_only) {
        char path[IOS_PATH_MAX];
        struct stat sb;
        double want = 0;
        if (run->rank == 0)
            want = ios_acc_manifest_num(m, "write_bytes", 0);
        MPI_Bcast(&want, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        int owner = (int)((run->rank + stride) % run->size);
        struct ios_md_items first = {.op = IOS_MD_FILE_STAT, .tree = t, .owner = owner};
        first.tree_rank = p->unique ? (int)((owner + stride) % run->size) : 0;
        ios_md_item_path(&first, 0, path, sizeof path);
        if (stat(path, &sb) != 0) {
            fprintf(stderr,
                    "ioscore-suite mdtest: ERROR: rank %d: %s: %s (the create part "
                    "made it)\n",
                    run->rank, path, strerror(errno));
            bad = 1;
        } else if ((double)sb.st_size != want) {
            fprintf(stderr,
                    "ioscore-suite mdtest: ERROR: file %s is %lld bytes, the create part "
                    "wrote %.0f\n",
                    path, (long long)sb.st_size, want);
            bad = 1;
        }
    }
    return ios_acceptance_agree(bad);
}

/* Where the entries of a stat or read phase were created, for its note: `on_node` of `size`
 * ranks handle items of a rank on their own node (rank r handles those of rank r + shift). */
struct md_where {
    int on_node, size;
    long shift;
};

static void where_note(struct ios_acc_report *rep, const char *op, int page_cache,
                       const struct md_where *w, int two_part, int stride)
{
    const char *caches = page_cache ? "attribute and page" : "attribute";
    const char *when =
        two_part ? "in a separate launch after the create (two-part test), " : "in this launch, ";
    char who[96];
    snprintf(who, sizeof who, "rank r handles the items of rank r+%ld, -N %d", w->shift, stride);
    if (w->on_node == w->size)
        ios_acc_note(rep, op, "client-cache",
                     "%sentries created on the same node (%s): client %s cache likely%s", when, who,
                     caches, two_part ? " unless it was dropped between the launches" : "");
    else if (w->on_node == 0)
        ios_acc_note(rep, op, "server-cache",
                     "%sentries created by another node (%s): no client cache hit, server "
                     "cache possible",
                     when, who);
    else
        ios_acc_note(rep, op, "client-cache",
                     "%s%d of %d ranks handle entries created on their own node (%s): client %s "
                     "cache likely for those",
                     when, w->on_node, w->size, who, caches);
}

/* What each rate could have measured (rank 0); series_op[i]: the operation of series i. */
static void add_notes(struct ios_acc_report *rep, const struct ios_mdtest_params *p,
                      const enum ios_md_op *series_op, int two_part, const struct md_where *stat,
                      const struct md_where *read)
{
    for (int i = 0; i < rep->n_series; i++) {
        const char *op = rep->series[i].operation;
        enum ios_md_op what = series_op[i];
        if (is_create(what) || what == IOS_MD_DIR_RENAME) {
            if (p->sync)
                ios_acc_note(rep, op, "media-likely",
                             "sync inside the timing (-Y): the entries reached the servers");
            else
                ios_acc_note(rep, op, "client-cache",
                             "no sync in the timing (-Y not set): the changes may end in the "
                             "client's metadata cache");
        } else if (what == IOS_MD_DIR_STAT || what == IOS_MD_FILE_STAT ||
                   what == IOS_MD_FILE_READ) {
            int read_op = what == IOS_MD_FILE_READ;
            where_note(rep, op, read_op, read_op ? read : stat, two_part, p->stride);
        }
    }
}

/*
 * Rank 0, at the end: a launch that creates and does not remove starts a test and leaves its
 * manifest; a launch on a tree with a manifest is that test's second part; a launch that
 * removed the tree removes the manifest with it.
 */
static void record_test(struct ios_acc_report *rep, const struct ios_run *run,
                        const struct ios_mdtest_params *p, const struct ios_acc_manifest *manifest,
                        uint64_t created)
{
    char path[IOS_PATH_MAX];
    manifest_path(p, path, sizeof path);
    if (run->aborted)
        return;
    if (p->remove && unlink(path) != 0 && errno != ENOENT)
        fprintf(stderr, "ioscore-suite mdtest: WARNING: cannot remove %s: %s\n", path,
                strerror(errno));
    if (manifest) {
        snprintf(rep->test_id, sizeof rep->test_id, "%s", ios_acc_manifest_str(manifest, "id"));
        ios_acc_part_from_manifest(manifest, &md_measure, &rep->parts[rep->n_parts++]);
        ios_acc_add_own_part(rep, run, "use", p->command);
        return;
    }
    if (!p->create || p->remove)
        return;
    ios_acc_new_test_id(rep->test_id, sizeof rep->test_id);
    ios_acc_add_own_part(rep, run, "create", p->command);
    struct ios_json j;
    ios_acc_manifest_begin(&j, "mdtest", rep->test_id);
    ios_json_string(&j, "dirs", p->dir_list_text);
    ios_json_int(&j, "n_dirs", p->n_dirs);
    ios_json_int(&j, "items", (int64_t)p->items);
    ios_json_int(&j, "depth", p->depth);
    ios_json_int(&j, "branch", p->branch);
    ios_json_int(&j, "unique", p->unique);
    ios_json_int(&j, "leaf", p->leaf);
    ios_json_int(&j, "files_only", p->files_only);
    ios_json_int(&j, "dirs_only", p->dirs_only);
    ios_json_int(&j, "tasks", run->size);
    ios_json_int(&j, "write_bytes", (int64_t)p->write_bytes);
    if (created != UINT64_MAX)
        ios_json_int(&j, "created_per_rank", (int64_t)created);
    int rc = ios_acc_manifest_finish(&j, &rep->parts[0], path);
    if (rc != 0)
        fprintf(stderr, "ioscore-suite mdtest: WARNING: cannot write the test manifest %s: %s\n",
                path, strerror(-rc));
}

/* What one launch keeps until its end: its report, the shape of its trees, its phases (the
 * run's results point at them), the operation of each summary row and the manifest of the
 * create part it continues. */
struct md_launch {
    struct ios_acc_launch acc;
    struct ios_md_tree tree;
    struct md_phase phases[10 * IOS_MDTEST_MAX_REPS];
    enum ios_md_op series_op[IOS_ACC_MAX_OPS];
    struct ios_acc_manifest manifest;
};

static int run_launch(struct ios_run *run, const struct ios_mdtest_params *p,
                      struct md_launch *launch)
{
    struct md_phase *phases = launch->phases;
    struct ios_acc_manifest *manifest = &launch->manifest;
    enum ios_md_op *series_op = launch->series_op;
    const struct ios_md_tree *tree = &launch->tree;
    tree_of(p, &launch->tree);
    struct ios_backend be;
    char err[IOS_MSG_MAX];
    if (ios_backend_create("POSIX", &be, err, sizeof err) != 0)
        ios_fatal("%s", err);
    if (prepare(run, p, tree, &be) != 0)
        return 2;
    int have_manifest = 0;
    uint64_t made = UINT64_MAX; /* files per rank the create part made */
    long stride = ios_mdtest_stride(run, p->stride);
    if (!p->create && match_create_part(run, p, tree, stride, manifest, &have_manifest, &made) != 0)
        return 2;
    char stale[IOS_PATH_MAX]; /* a new tree: an earlier test's manifest is stale */
    manifest_path(p, stale, sizeof stale);
    /* stonewall_s 0: -W bounds mdtest's file creation only and is in each phase's command */
    if (ios_acceptance_start(run, "mdtest", &be, p->create ? stale : NULL, &launch->acc, 0) != 0)
        return 2;
    struct ios_acc_report *rep = &launch->acc.report;
    if (run->rank == 0) {
        print_header(run, p);
        if (have_manifest)
            printf("Test: %s (this launch uses the tree its create part made)\n",
                   ios_acc_manifest_str(manifest, "id"));
        fflush(stdout);
    }
    uint64_t dirs_per_rank = p->per_node * (p->leaf ? p->leaves : p->nodes);
    uint64_t created = made;
    int n_phases = 0, made_root = 0;
    for (int iter = 0; iter < p->reps && !run->aborted; iter++) {
        created = made; /* lowered by a stonewalled create */
        if (p->create && make_test_dirs(run, p, tree, &be, iter, &made_root) != 0) {
            run->aborted = 1;
            snprintf(run->abort_reason, sizeof run->abort_reason, "cannot create test-dir.%d-0",
                     iter);
            break;
        }
        const struct {
            int on;
            enum ios_md_op op;
        } steps[] = {
            {p->create, IOS_MD_TREE_CREATE},
            {!p->files_only && p->create, IOS_MD_DIR_CREATE},
            {!p->files_only && p->stat, IOS_MD_DIR_STAT},
            {!p->files_only && p->rename_dirs && dirs_per_rank > 1, IOS_MD_DIR_RENAME},
            {!p->files_only && p->remove, IOS_MD_DIR_REMOVE},
            {!p->dirs_only && p->create, IOS_MD_FILE_CREATE},
            {!p->dirs_only && p->stat, IOS_MD_FILE_STAT},
            {!p->dirs_only && p->read, IOS_MD_FILE_READ},
            {!p->dirs_only && p->remove, IOS_MD_FILE_REMOVE},
            {p->remove, IOS_MD_TREE_REMOVE},
        };
        for (size_t s = 0; s < sizeof steps / sizeof steps[0] && !run->aborted; s++) {
            if (!steps[s].on)
                continue;
            enum ios_md_op op = steps[s].op;
            struct md_phase *ph = &phases[n_phases++];
            memset(ph, 0, sizeof *ph);
            snprintf(ph->name, sizeof ph->name, "mdtest-%s-%d", phase_names[op], iter);
            ph->base.name = ph->name;
            ph->base.score_group = IOS_GROUP_NONE;
            ph->base.type =
                is_create(op) || op == IOS_MD_DIR_RENAME ? IOS_PHASE_WRITE
                : op == IOS_MD_DIR_REMOVE || op == IOS_MD_FILE_REMOVE || op == IOS_MD_TREE_REMOVE
                    ? IOS_PHASE_REMOVE
                    : IOS_PHASE_READ;
            ph->base.metric = IOS_METRIC_MD;
            ph->base.md_op = op;
            ph->base.csv_kind = "mdtest";
            ph->base.run = md_phase_run;
            ph->p = p;
            ph->tree = tree;
            ph->iteration = iter;
            ph->created = &created;
            ph->stride = stride;
            struct ios_phase_result *res = ios_run_one_phase(run, &ph->base);
            if (run->rank == 0) {
                const char *label = ios_md_op_name(op);
                struct ios_acc_series *se = ios_acc_series_of(rep, label, &md_measure);
                if (se)
                    series_op[se - rep->series] = op;
                if (se && se->n < IOS_ACC_MAX_ITERS) {
                    double t = md_time(res);
                    se->time[se->n] = t;
                    /* mdtest's tree rate: one tree's directories per second, however many
                     * trees the ranks made (-u, several -d) */
                    se->values[se->n++] =
                        ios_md_op_is_tree(op) && t > 0 ? (double)p->nodes / t : res->score * 1000.0;
                }
                if (p->verbose > 0)
                    printf("%s: %.3f ops/s\n", label, res->score * 1000);
            }
        }
        if (p->remove && !run->aborted) { /* the trees are gone: test-dir.<iter>-0 too */
            MPI_Barrier(MPI_COMM_WORLD);
            char path[IOS_PATH_MAX];
            ios_md_test_dir(tree, run->rank, iter, 0, path, sizeof path);
            if (run->rank < p->n_dirs && be.ops->rmdir(&be, path) != 0 && run->rank == 0)
                fprintf(stderr, "ioscore-suite mdtest: WARNING: %s not removed\n", path);
        }
    }
    /* as mdtest: a launch that made a -d directory and removes its trees removes it too */
    if (made_root && p->remove && !run->aborted && be.ops->rmdir(&be, dir_of(p, run->rank)) != 0)
        fprintf(stderr, "ioscore-suite mdtest: WARNING: %s not removed\n", dir_of(p, run->rank));
    /* whose entries the stat and read phases handled: on the same node? (collective) */
    struct md_where stat_where = {0, run->size, stride % run->size};
    struct md_where read_where = {0, run->size, 2 * stride % run->size};
    stat_where.on_node = ios_shift_ranks_on_node(run, (int)stat_where.shift);
    read_where.on_node = ios_shift_ranks_on_node(run, (int)read_where.shift);
    if (run->rank == 0) {
        add_notes(rep, p, series_op, have_manifest, &stat_where, &read_where);
        print_summary(rep, "rate (in ops/sec)", p, 0, series_op);
        if (p->print_time) /* mdtest's header; the values are s */
            print_summary(rep, "time (in ms/op)", p, 1, series_op);
        record_test(rep, run, p, have_manifest ? manifest : NULL, created);
        char now[64];
        ios_format_time(ios_wtime(), "%m/%d/%Y %H:%M:%S", now, sizeof now);
        printf("-- finished at %s --\n", now);
        /* ioscore's own sections after every line mdtest prints */
        if (p->print_time)
            printf("\n(the SUMMARY time values are seconds per phase, under mdtest's header)\n");
        ios_acc_print_notes(stdout, rep);
        fflush(stdout);
    }
    return ios_acceptance_finish(run, "mdtest");
}

int ios_mdtest_run(struct ios_run *run, const struct ios_mdtest_params *p)
{
    struct md_launch *launch = calloc(1, sizeof *launch);
    if (!launch)
        ios_fatal("out of memory");
    int rc = run_launch(run, p, launch);
    free(launch);
    return rc;
}
