/*
 * mdtest's command-line syntax for `ioscore-suite mdtest`: bundled short flags (-FCr), a value
 * right after its letter or as the next word, mdtest's defaults (-b 1 -z 0 -i 1 -d ./out; none
 * of -C -T -E -r -U: all five). Every mdtest option not implemented is refused with its meaning.
 * Also derives the tree size and the items per directory (mdtest drops the remainder).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ioscore/acceptance.h"

static int fail(int rank, const char *fmt, const char *a, const char *b)
{
    if (rank == 0) {
        fprintf(stderr, "ioscore-suite mdtest: ERROR: ");
        fprintf(stderr, fmt, a, b);
        fprintf(stderr, "\n");
    }
    return 2;
}

static const struct {
    char letter;
    const char *meaning;
} md_unsupported[] = {
    {'a', "API: this subcommand uses POSIX"},
    {'B', "no barriers between phases"},
    {'c', "collective creates by task 0"},
    {'f', "first number of tasks"},
    {'G', "timestamp signature"},
    {'k', "use mknod"},
    {'l', "last number of tasks"},
    {'M', "memory per node"},
    {'p', "pre-iteration delay"},
    {'R', "random stat order"},
    {'s', "stride between task counts"},
    {'S', "shared file access"},
    {'V', "verbosity of one rank"},
    {'x', "stonewall status file"},
    {'y', "sync after each write"},
    {'Z', "print all times"},
};

static int count_arg(const char *v, long lo, long hi, long *out)
{
    char *end = NULL;
    long n = strtol(v, &end, 10);
    if (end == v || *end || n < lo || n > hi)
        return -1;
    *out = n;
    return 0;
}

static int set_dirs(struct ios_mdtest_params *p, const char *v, int rank)
{
    if (!v[0] || strlen(v) >= sizeof p->dir_list)
        return fail(rank, "-d '%s'%s: expected one or more directories separated by '@'", v, "");
    snprintf(p->dir_list, sizeof p->dir_list, "%s", v);
    snprintf(p->dir_list_text, sizeof p->dir_list_text, "%s", v);
    p->n_dirs = 0;
    char *save = NULL;
    for (char *d = strtok_r(p->dir_list, "@", &save); d; d = strtok_r(NULL, "@", &save)) {
        if (p->n_dirs == IOS_MDTEST_MAX_DIRS)
            return fail(rank, "-d: more than %s directories%s", "64", "");
        p->dirs[p->n_dirs++] = d;
    }
    if (p->n_dirs == 0)
        return fail(rank, "-d '%s'%s: no directory", v, "");
    return 0;
}

static int md_value(struct ios_mdtest_params *p, char c, const char *v, int rank)
{
    long n;
    char opt[3] = {'-', c, 0};
    switch (c) {
    case 'n':
        if (count_arg(v, 1, 1L << 40, &n) != 0)
            return fail(rank, "-n %s%s: expected items per rank >= 1", v, "");
        p->items = (uint64_t)n;
        return 0;
    case 'z':
        if (count_arg(v, 0, IOS_MDTEST_MAX_DEPTH, &n) != 0)
            return fail(rank, "-z %s%s: expected a tree depth in 0..64", v, "");
        p->depth = (int)n;
        return 0;
    case 'b':
        if (count_arg(v, 1, 1 << 20, &n) != 0)
            return fail(rank, "-b %s%s: expected a branching factor >= 1", v, "");
        p->branch = (int)n;
        return 0;
    case 'N':
        if (count_arg(v, 0, 1 << 30, &n) != 0)
            return fail(rank, "-N %s%s: expected a rank stride >= 0", v, "");
        p->stride = (int)n;
        return 0;
    case 'I':
        if (count_arg(v, 1, 1L << 40, &n) != 0)
            return fail(rank, "-I %s%s: expected items per directory >= 1", v, "");
        p->items_per_dir = (uint64_t)n;
        return 0;
    case 'W':
        if (count_arg(v, 1, 86400 * 7, &n) != 0)
            return fail(rank, "-W %s%s: expected stonewall seconds >= 1", v, "");
        p->stonewall = (int)n;
        return 0;
    case 'i':
        if (count_arg(v, 1, IOS_MDTEST_MAX_REPS, &n) != 0)
            return fail(rank, "-i %s%s: expected iterations in 1..7", v, "");
        p->reps = (int)n;
        return 0;
    case 'w':
    case 'e':
        if (ios_parse_size(v, (uint64_t *)(c == 'w' ? &p->write_bytes : &p->read_bytes)) != 0 ||
            (c == 'w' ? p->write_bytes : p->read_bytes) > (1ull << 30))
            return fail(rank, "%s %s: expected bytes per file in 0..1g", opt, v);
        return 0;
    case 'd':
        return set_dirs(p, v, rank);
    }
    return fail(rank, "internal: option %s%s", opt, "");
}

int ios_mdtest_parse(struct ios_mdtest_params *p, int argc, char **argv, int rank)
{
    memset(p, 0, sizeof *p);
    p->branch = 1;
    p->reps = 1;
    set_dirs(p, "./out", rank); /* mdtest's default test directory */
    size_t len = 0;
    for (int i = 0; i < argc && len < sizeof p->command - 1; i++)
        len += (size_t)snprintf(p->command + len, sizeof p->command - len, "%s%s", i ? " " : "",
                                argv[i]);
    for (int i = 1; i < argc; i++) {
        const char *w = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(w, "-h") == 0 || strcmp(w, "--help") == 0) {
            if (rank == 0)
                printf(
                    "usage: mpiexec -n N ioscore-suite mdtest -n N [-F|-D] [-C] [-T] [-E] "
                    "[-r] [-U] [-u [-t]] [-L] [-z depth] [-b branch] [-d dir[@dir...]] [-w bytes] "
                    "[-e bytes] [-N stride] [-i iterations] [-v] [--resultdir DIR]\n"
                    "  [--rank-detail-threshold N] [--rank-detail-full] "
                    "[--simulate-ppn K | --simulate-nodes K]\n");
            return 1;
        }
        int detail =
            ios_rank_detail_arg(&p->rank_detail, argc, argv, &i, "ioscore-suite mdtest", rank);
        if (detail < 0)
            return 2;
        if (detail > 0)
            continue;
        if (strcmp(w, "--simulate-ppn") == 0 || strcmp(w, "--simulate-nodes") == 0) {
            long n;
            if (!next || count_arg(next, 1, 1 << 20, &n) != 0)
                return fail(rank, "%s%s: expected a positive number", w, "");
            *(w[11] == 'p' ? &p->simulate_ppn : &p->simulate_nodes) = (int)n;
            if (p->simulate_ppn > 0 && p->simulate_nodes > 0)
                return fail(rank, "--simulate-ppn and --simulate-nodes exclude each other%s%s", "",
                            "");
            i++;
            continue;
        }
        if (strcmp(w, "--resultdir") == 0 || strncmp(w, "--resultdir=", 12) == 0) {
            const char *v = w[11] == '=' ? w + 12 : next;
            if (!v || !v[0] || strlen(v) >= sizeof p->resultdir - 64)
                return fail(rank, "--resultdir needs a directory%s%s", "", "");
            snprintf(p->resultdir, sizeof p->resultdir, "%s", v);
            i += w[11] != '=';
            continue;
        }
        if (w[0] != '-' || !w[1] || w[1] == '-')
            return fail(rank, "not supported: '%s'%s (mdtest takes short options)", w, "");
        for (const char *c = w + 1; *c; c++) {
            if (strchr("FDCTEruLvPXYtU", *c)) {
                p->time_unique |= *c == 't';
                p->rename_dirs |= *c == 'U';
                p->print_time |= *c == 'P';
                p->verify |= *c == 'X';
                p->sync |= *c == 'Y';
                p->files_only |= *c == 'F';
                p->dirs_only |= *c == 'D';
                p->create |= *c == 'C';
                p->stat |= *c == 'T';
                p->read |= *c == 'E';
                p->remove |= *c == 'r';
                p->unique |= *c == 'u';
                p->leaf |= *c == 'L';
                p->verbose += *c == 'v';
                continue;
            }
            if (strchr("nzbNiwedIW", *c)) {
                const char *v = c[1] ? c + 1 : next;
                if (!v)
                    return fail(rank, "-%s needs a value%s", (char[]){*c, 0}, "");
                i += !c[1];
                int rc = md_value(p, *c, v, rank);
                if (rc != 0)
                    return rc;
                break;
            }
            for (size_t k = 0; k < sizeof md_unsupported / sizeof md_unsupported[0]; k++)
                if (md_unsupported[k].letter == *c)
                    return fail(rank, "not supported: -%s (%s)", (char[]){*c, 0},
                                md_unsupported[k].meaning);
            return fail(rank, "unknown mdtest option -%s in '%s'", (char[]){*c, 0}, w);
        }
    }
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
