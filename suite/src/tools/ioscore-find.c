/*
 * ioscore-find: the suite's parallel find as a standalone, pfind-compatible tool.
 *
 *   ioscore-find DIR [-newer FILE] [-size Nc] [-name PATTERN] [-C] [-q] [-v] [--csv FILE]
 *                [--range-split=auto|off|any]
 *
 * Runs under mpirun or as a single process. Rank 0 prints the path of every match of every
 * rank (unless -q), then pfind's summary line, the IO500 result keys and, last,
 * "MATCHED <found>/<total-files>" so the tool also works as an IO500 external find script.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <inttypes.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ioscore/find.h"

struct cli {
    struct ioscore_find_opts opts;
    const char *csv_path;
    int quiet;
};

static void usage(FILE *to)
{
    fprintf(to, "usage: ioscore-find DIR [-newer FILE] [-size Nc] [-name PATTERN] [-C] [-q] [-v]\n"
                "                    [--csv FILE] [--range-split=auto|off|any]\n"
                "  -newer FILE   match entries whose ctime (whole seconds) is >= FILE's ctime\n"
                "  -size Nc      match entries of exactly N bytes (only the 'c' unit exists)\n"
                "  -name PATTERN pfind pattern: '*' = any text, matched anywhere in the name\n"
                "  -C            cross into other file systems (default: stay on DIR's)\n"
                "  -q            quiet: do not print matching paths, only the summary\n"
                "  -v            report every error (default: the first few per rank) and how\n"
                "                each rank's work was shared (stderr)\n"
                "  --csv FILE    write pfind's per-rank find.csv to FILE\n"
                "  --range-split=auto  several ranks read one big directory, split by offset\n"
                "                cookies, on tmpfs, ext4, xfs and btrfs (default); elsewhere the\n"
                "                reader hands batches of names to idle ranks\n"
                "  --range-split=off   always share big directories as batches of names\n"
                "                (--no-range-split is the same)\n"
                "  --range-split=any   split on any file system whose cookies are monotonic;\n"
                "                each range start is verified, a mismatch is counted as an error\n"
                "Non-directory entries are scanned; symlinks are never followed below DIR.\n");
}

/* Returns 0, or 2 after printing (on rank 0) what is wrong. */
static int parse_size(const char *text, int64_t *out)
{
    size_t len = strlen(text);
    if (len < 2 || text[len - 1] != 'c')
        return -1;
    int64_t value = 0;
    for (size_t i = 0; i + 1 < len; i++) {
        if (text[i] < '0' || text[i] > '9' || value > (INT64_MAX - 9) / 10)
            return -1;
        value = value * 10 + (text[i] - '0');
    }
    *out = value;
    return 0;
}

static int parse_args(int argc, char **argv, struct cli *cli, int rank)
{
    memset(cli, 0, sizeof(*cli));
    cli->opts.size_bytes = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int has_value = i + 1 < argc;
        if (strcmp(a, "-newer") == 0 || strcmp(a, "-size") == 0 || strcmp(a, "-name") == 0 ||
            strcmp(a, "--csv") == 0) {
            if (!has_value) {
                if (rank == 0)
                    fprintf(stderr, "ioscore-find: option %s needs a value\n", a);
                return 2;
            }
            const char *v = argv[++i];
            if (strcmp(a, "-newer") == 0) {
                cli->opts.newer_file = v;
            } else if (strcmp(a, "-name") == 0) {
                cli->opts.name_pattern = v;
            } else if (strcmp(a, "--csv") == 0) {
                cli->csv_path = v;
            } else if (parse_size(v, &cli->opts.size_bytes) != 0) {
                if (rank == 0)
                    fprintf(stderr,
                            "ioscore-find: -size '%s': expected a byte count like 3901c "
                            "(only the 'c' unit is supported)\n",
                            v);
                return 2;
            }
        } else if (strcmp(a, "-C") == 0) {
            cli->opts.cross_mounts = 1;
        } else if (strcmp(a, "-q") == 0) {
            cli->quiet = 1;
        } else if (strcmp(a, "-v") == 0) {
            cli->opts.verbose++;
        } else if (strcmp(a, "--no-range-split") == 0 || strcmp(a, "--range-split=off") == 0) {
            cli->opts.range_split = IOSCORE_FIND_RANGE_OFF;
        } else if (strcmp(a, "--range-split=auto") == 0) {
            cli->opts.range_split = IOSCORE_FIND_RANGE_AUTO;
        } else if (strcmp(a, "--range-split=any") == 0) {
            cli->opts.range_split = IOSCORE_FIND_RANGE_ANY;
        } else if (a[0] == '-' && a[1] != '\0') {
            if (rank == 0) {
                fprintf(stderr, "ioscore-find: unknown option '%s'\n", a);
                usage(stderr);
            }
            return 2;
        } else if (cli->opts.root == NULL) {
            cli->opts.root = a;
        } else {
            if (rank == 0)
                fprintf(stderr, "ioscore-find: more than one directory given ('%s', '%s')\n",
                        cli->opts.root, a);
            return 2;
        }
    }
    if (cli->opts.root == NULL) {
        if (rank == 0)
            usage(stderr);
        return 2;
    }
    if (ioscore_find_check_pattern(cli->opts.name_pattern) != 0) {
        if (rank == 0)
            fprintf(stderr, "ioscore-find: -name '%s' is not a valid pattern\n",
                    cli->opts.name_pattern);
        return 2;
    }
    return 0;
}

/* Rank 0 checks the two paths up front, so the message can say which one is wrong. */
static int check_paths(const struct cli *cli)
{
    struct stat st;
    if (cli->opts.newer_file != NULL && stat(cli->opts.newer_file, &st) != 0) {
        fprintf(stderr, "ioscore-find: -newer '%s': %s\n", cli->opts.newer_file, strerror(errno));
        return 1;
    }
    if (stat(cli->opts.root, &st) != 0) {
        fprintf(stderr, "ioscore-find: '%s': %s\n", cli->opts.root, strerror(errno));
        return 1;
    }
    if (!S_ISDIR(st.st_mode)) {
        fprintf(stderr, "ioscore-find: '%s' is not a directory\n", cli->opts.root);
        return 1;
    }
    return 0;
}

/* -v: every rank's share of the work, on rank 0's stderr (collective). */
static void print_sharing(const struct ioscore_find_result *res, int rank, int size)
{
    enum { N = 5 };
    const struct ioscore_find_counts *m = &res->mine;
    uint64_t mine[N] = {m->entries_read, m->checked, m->found, m->ranges_given,
                        m->name_batches_given};
    uint64_t *all = rank == 0 ? malloc(sizeof(mine) * (size_t)size) : NULL;
    MPI_Gather(mine, N, MPI_UINT64_T, all, N, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (all == NULL)
        return;
    for (int r = 0; r < size; r++) {
        const uint64_t *v = all + (size_t)r * N;
        fprintf(stderr,
                "ioscore-find: rank %d read %" PRIu64 " entries, classified %" PRIu64
                ", found %" PRIu64 "; gave away %" PRIu64 " directory ranges and %" PRIu64
                " name batches\n",
                r, v[0], v[1], v[2], v[3], v[4]);
    }
    free(all);
}

static void print_summary(const struct ioscore_find_result *res)
{
    const struct ioscore_find_counts *t = &res->total;
    /* pfind's line (with its rates), then the keys IO500 writes to result.txt */
    printf("[DONE] rate: %.3f kiops time: %.1fs found: %" PRIu64 " (scanned %" PRIu64
           " files, scanned dirents: %" PRIu64 ", unknown dirents: %" PRIu64 ")\n",
           res->rate / 1000, t->runtime_s, t->found, t->scanned, t->checked, t->unknown);
    printf("found           = %" PRIu64 "\n", t->found);
    printf("total-files     = %" PRIu64 "\n", t->scanned);
    printf("time            = %f\n", t->runtime_s);
    printf("rate            = %f\n", res->rate);
    printf("errors          = %" PRIu64 "\n", t->errors);
    printf("dirs            = %" PRIu64 "\n", t->dirs);
    printf("MATCHED %" PRIu64 "/%" PRIu64 "\n", t->found, t->scanned);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout); /* without MPI, like pfind's --help */
            return 0;
        }
    }
    MPI_Init(&argc, &argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    struct cli cli;
    int status = parse_args(argc, argv, &cli, rank);
    if (status == 0 && rank == 0)
        status = check_paths(&cli);
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (status != 0) {
        MPI_Finalize();
        return status;
    }

    cli.opts.print_matches = cli.quiet ? NULL : stdout;
    struct ioscore_find_result res;
    int rc = ioscore_find_run(MPI_COMM_WORLD, &cli.opts, &res);
    if (rc != 0) {
        if (rank == 0)
            fprintf(stderr, "ioscore-find: scanning '%s' failed: %s\n", cli.opts.root,
                    strerror(-rc));
        MPI_Finalize();
        return 1;
    }
    if (cli.csv_path != NULL) {
        int csv_rc = ioscore_find_write_csv(MPI_COMM_WORLD, &res, cli.csv_path);
        if (csv_rc != 0) {
            if (rank == 0)
                fprintf(stderr, "ioscore-find: --csv '%s': %s\n", cli.csv_path, strerror(-csv_rc));
            MPI_Finalize();
            return 1;
        }
    }
    if (cli.opts.verbose) {
        int size = 1;
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        print_sharing(&res, rank, size);
    }
    /* matched paths of every rank are out before rank 0's summary (as far as mpirun keeps
     * the order of different ranks' output) */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        print_summary(&res);
    MPI_Finalize();
    return 0;
}
