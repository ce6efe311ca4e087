/*
 * mdtest's command line for `ioscore-suite mdtest`, declared once in `md_opts` below: each row
 * is an mdtest option with mdtest's letter, meaning and default (-b 1 -z 0 -i 1 -d ./out; none
 * of -C -T -E -r -U: all five), or an mdtest option this build does not implement, refused with
 * its meaning. Parsing, --help and the refusals come from the table (src/acceptance/
 * cli_options.c); this file adds the relations between options and derives the tree size and
 * the items per directory (mdtest drops the remainder).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ioscore/acceptance.h"
#include "ioscore/cli_options.h"

#define F(member) IOS_CLI_FIELD(struct ios_mdtest_params, member)
#define STR(x) #x
#define XSTR(x) STR(x)

/* -d a@b@c: mdtest's list of test directories, split in place. */
static int set_dirs(void *params, const struct ios_cli_opt *o, const char *v, char *err, size_t len)
{
    struct ios_mdtest_params *p = params;
    (void)o;
    if (!v[0] || strlen(v) >= sizeof p->dir_list) {
        snprintf(err, len, "one or more directories separated by '@'");
        return -1;
    }
    snprintf(p->dir_list, sizeof p->dir_list, "%s", v);
    snprintf(p->dir_list_text, sizeof p->dir_list_text, "%s", v);
    p->n_dirs = 0;
    char *save = NULL;
    for (char *d = strtok_r(p->dir_list, "@", &save); d; d = strtok_r(NULL, "@", &save)) {
        if (p->n_dirs == IOS_MDTEST_MAX_DIRS) {
            snprintf(err, len, "at most %d directories", IOS_MDTEST_MAX_DIRS);
            return -1;
        }
        p->dirs[p->n_dirs++] = d;
    }
    if (p->n_dirs == 0) {
        snprintf(err, len, "at least one directory");
        return -1;
    }
    return 0;
}

#define FLAG(c, member, help)                                                                      \
    {                                                                                              \
        c, NULL, IOS_CLI_FLAG, 0, F(member), 0, 1, NULL, NULL, NULL, help, NULL                    \
    }

static const struct ios_cli_opt md_opts[] = {
    /* the items and the tree */
    {'n', NULL, IOS_CLI_INT, 0, F(items), 1, 1LL << 40, NULL, "N", "items per rank >= 1",
     "items (files or directories) per rank", NULL},
    {'I', NULL, IOS_CLI_INT, 0, F(items_per_dir), 1, 1LL << 40, NULL, "N",
     "items per directory >= 1", "items per directory of the tree (instead of -n)", NULL},
    {'z', NULL, IOS_CLI_INT, 0, F(depth), 0, IOS_MDTEST_MAX_DEPTH, "0", "N",
     "a tree depth in 0.." XSTR(IOS_MDTEST_MAX_DEPTH), "depth of the tree", NULL},
    {'b', NULL, IOS_CLI_INT, 0, F(branch), 1, 1 << 20, "1", "N", "a branching factor >= 1",
     "branching factor of the tree", NULL},
    {'L', NULL, IOS_CLI_FLAG, 0, F(leaf), 0, 1, NULL, NULL, NULL,
     "items in the leaves of the tree only", NULL},
    {'d', NULL, IOS_CLI_FUNC, 0, IOS_CLI_NO_FIELD, 0, 0, "./out", "DIR[@DIR...]",
     "one or more directories separated by '@'", "the test directories", set_dirs},
    {'u', NULL, IOS_CLI_FLAG, 0, F(unique), 0, 1, NULL, NULL, NULL,
     "a working directory (tree) per rank", NULL},
    {'t', NULL, IOS_CLI_FLAG, 0, F(time_unique), 0, 1, NULL, NULL, NULL,
     "time the unique working directory overhead", NULL},
    FLAG('F', files_only, "files only"),
    FLAG('D', dirs_only, "directories only"),
    /* the phases (none given: all) */
    FLAG('C', create, "create phase"),
    FLAG('T', stat, "stat phase"),
    FLAG('E', read, "read phase"),
    FLAG('r', remove, "remove phase"),
    FLAG('U', rename_dirs, "directory rename phase"),
    {'w', NULL, IOS_CLI_SIZE, 0, F(write_bytes), 0, 1LL << 30, "0", "BYTES",
     "bytes per file in 0..1g", "bytes written to each file at create", NULL},
    {'e', NULL, IOS_CLI_SIZE, 0, F(read_bytes), 0, 1LL << 30, "0", "BYTES",
     "bytes per file in 0..1g", "bytes read from each file", NULL},
    FLAG('X', verify, "verify the data read (-e) against what -w wrote"),
    FLAG('Y', sync, "sync at the end of each phase, inside its timing"),
    {'N', NULL, IOS_CLI_INT, 0, F(stride), 0, 1 << 30, "0", "N", "a rank stride >= 0",
     "stride: stat/read/remove the items of the rank N further (x tasks per node)", NULL},
    {'W', NULL, IOS_CLI_INT, 0, F(stonewall), 1, 86400 * 7, NULL, "S", "stonewall seconds >= 1",
     "stonewall: file creation stops after S seconds, then wear-out", NULL},
    {'i', NULL, IOS_CLI_INT, 0, F(reps), 1, IOS_MDTEST_MAX_REPS, "1", "N",
     "iterations in 1.." XSTR(IOS_MDTEST_MAX_REPS), "iterations", NULL},
    FLAG('P', print_time, "also the time table"),
    {'v', NULL, IOS_CLI_COUNTER, 0, F(verbose), 0, 0, NULL, NULL, NULL, "verbose (repeatable)",
     NULL},
    /* ioscore's own */
    {0, "resultdir", IOS_CLI_STR, 0, F(resultdir), 0, 64, NULL, "DIR", "a directory name",
     "result.json and the per-rank CSVs go to DIR (ioscore)", NULL},
    {0, "simulate-ppn", IOS_CLI_INT, 0, F(simulate_ppn), 1, 1 << 20, NULL, "K", "a positive number",
     "pretend K ranks per host (tests only)", NULL},
    {0, "simulate-nodes", IOS_CLI_INT, 0, F(simulate_nodes), 1, 1 << 20, NULL, "K",
     "a positive number", "pretend K hosts (tests only)", NULL},
    /* mdtest's options this build does not implement */
    IOS_CLI_REFUSE('a', "API: this subcommand uses POSIX"),
    IOS_CLI_REFUSE('B', "no barriers between phases"),
    IOS_CLI_REFUSE('c', "collective creates by task 0"),
    IOS_CLI_REFUSE('f', "first number of tasks"),
    IOS_CLI_REFUSE('G', "timestamp signature"),
    IOS_CLI_REFUSE('k', "use mknod"),
    IOS_CLI_REFUSE('l', "last number of tasks"),
    IOS_CLI_REFUSE('M', "memory per node"),
    IOS_CLI_REFUSE('p', "pre-iteration delay"),
    IOS_CLI_REFUSE('R', "random stat order"),
    IOS_CLI_REFUSE('s', "stride between task counts"),
    IOS_CLI_REFUSE('S', "shared file access"),
    IOS_CLI_REFUSE('V', "verbosity of one rank"),
    IOS_CLI_REFUSE('x', "stonewall status file"),
    IOS_CLI_REFUSE('y', "sync after each write"),
    IOS_CLI_REFUSE('Z', "print all times"),
};

static const struct ios_cli_tool md_tool = {
    .program = "ioscore-suite mdtest",
    .tool = "mdtest",
    IOS_CLI_ROWS(md_opts),
    .usage = "usage: mpiexec -n N ioscore-suite mdtest -n N [mdtest options] [--resultdir DIR]",
    .epilog = "ioscore additions: --rank-detail-threshold N, --rank-detail-full (as for "
              "ioscore-suite ior)\n",
    .short_only = 1,
    .rank_detail = {IOS_CLI_FIELD(struct ios_mdtest_params, rank_detail)},
};

static int fail(int rank, const char *fmt, const char *a, const char *b)
{
    return ios_cli_fail(&md_tool, rank, fmt, a, b);
}

int ios_mdtest_parse(struct ios_mdtest_params *p, int argc, char **argv, int rank)
{
    memset(p, 0, sizeof *p);
    ios_cli_command_line(argc, argv, p->command, sizeof p->command);
    int rc = ios_cli_parse(&md_tool, p, argc, argv, rank, NULL);
    if (rc != 0)
        return rc;
    if (p->simulate_ppn > 0 && p->simulate_nodes > 0)
        return fail(rank, "--simulate-ppn and --simulate-nodes exclude each other%s%s", "", "");
    if (p->items && p->items_per_dir)
        return fail(rank, "not supported: -I with -n (mdtest's directory loops)%s%s", "", "");
    if (p->items == 0 && p->items_per_dir == 0)
        return fail(rank, "-n N (items per rank) or -I N (items per directory) is required%s%s", "",
                    "");
    if (p->verify && p->read_bytes > p->write_bytes)
        return fail(rank, "-X verifies what -w wrote: -e must not exceed -w%s%s", "", "");
    if (p->n_dirs > 1 && p->stride > 0)
        return fail(rank, "-N with several -d directories: mdtest refuses it%s%s", "", "");
    if (p->n_dirs > 1 && !p->unique)
        return fail(rank, "several -d directories need -u (a tree per rank), as in mdtest%s%s", "",
                    "");
    if (p->unique && p->stride > 0 && p->depth > 0)
        return fail(rank,
                    "not supported: -u with -N and -z > 0 (mdtest works below the tree of rank "
                    "r+N in subdirectories named for rank r, which no rank creates)%s%s",
                    "", "");
    if (p->files_only && p->dirs_only)
        return fail(rank, "-F and -D exclude each other%s%s", "", "");
    /* mdtest: no phase flag (-U counts as one) runs every phase, the directory rename too */
    if (!p->create && !p->stat && !p->read && !p->remove && !p->rename_dirs)
        p->create = p->stat = p->read = p->remove = p->rename_dirs = 1;
    /* nodes of the tree: 1 + b + ... + b^z, bounded */
    uint64_t nodes = 0, level = 1;
    for (int l = 0; l <= p->depth; l++) {
        nodes += level;
        if (nodes > IOS_MDTEST_MAX_NODES)
            return fail(rank, "-z and -b make a tree of more than %s directories%s", "1000000", "");
        level *= (uint64_t)p->branch;
    }
    p->nodes = nodes;
    p->leaves = level / (uint64_t)p->branch;
    uint64_t item_nodes = p->leaf ? p->leaves : p->nodes;
    if (p->items_per_dir)
        p->items = p->items_per_dir * item_nodes;
    p->per_node = p->items / item_nodes;
    if (p->per_node == 0) {
        char a[32], b[32];
        snprintf(a, sizeof a, "%" PRIu64, p->items);
        snprintf(b, sizeof b, "%" PRIu64, item_nodes);
        return fail(rank, "-n %s is fewer items than the %s directories that hold them", a, b);
    }
    return 0;
}
