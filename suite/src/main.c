/*
 * ioscore-suite: the IO500-style standard run as one MPI program.
 *
 *   mpiexec -n N ioscore-suite CONFIG.ini [options]
 *
 * main only parses arguments, reads and broadcasts the INI, works out the rank placement and
 * hands over to the scheduler (src/core/run.c). Every configuration error is reported before
 * any file is created.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ioscore/acceptance.h"
#include "ioscore/config.h"
#include "ioscore/run.h"
#include "ioscore/score.h"
#include "ioscore/backend.h"
#include "ioscore/version.h"

/* Real IO500 configs are a few KiB; anything far larger is not one (and is not read whole). */
#define IOS_CONFIG_MAX_BYTES (1 << 20)

struct cli {
    const char *ini;
    const char *timestamp;
    const char *score_from[1024];
    int n_score_from;
    const char *hash_ini[1024];
    int n_hash_ini;
    int dry_run, cleanup, keep_data, verbose, quiet, list, version, config_hash;
    int simulate_ppn, simulate_nodes;
    int debug_delay_rank; /* -1 if unset */
    struct ios_rank_detail_opts rank_detail;
    long debug_delay_us;
};

static void usage(FILE *out)
{
    fprintf(out,
            "usage: mpiexec -n N ioscore-suite CONFIG.ini [options]\n"
            "  --dry-run            run every pre-I/O check, print every phase's workload and\n"
            "                       sizes; touch nothing\n"
            "  --cleanup            remove what an earlier run created (known names only)\n"
            "  --timestamp TS       use TS (%%Y.%%m.%%d-%%H.%%M.%%S) instead of the current time\n"
            "  --keep-data          do not remove the data after scoring (see --cleanup)\n"
            "  --verbose, -v        more output (repeatable)\n"
            "  --quiet, -q          no summary on stdout, no live progress on stderr\n"
            "  --list, -l           list every section and option with its default\n"
            "  --config-hash        print the config hash of CONFIG.ini\n"
            "  --version            print the version and the MPI library of the build\n"
            "  --mode=standard      the only mode implemented\n"
            "  --simulate-ppn K     treat ranks as block-mapped on nodes of K ranks (testing)\n"
            "  --simulate-nodes K   treat ranks as round-robin on K nodes: rank r on r mod K\n"
            "  --rank-detail-threshold N\n"
            "                       above N ranks (default 4096) result.json keeps per-rank\n"
            "                       detail only for the 16 slowest and 16 fastest ranks plus\n"
            "                       quantiles, a rate histogram and per-host aggregates\n"
            "  --rank-detail-full   with the summary form, also write every rank's numbers to\n"
            "                       ranks-<phase>.csv.gz\n"
            "test only (the run is INVALID):\n"
            "  --debug-delay-rank R --debug-delay-us N\n"
            "                       rank R sleeps N us before each I/O or metadata operation\n"
            "                       (makes R a straggler)\n"
            "helpers (no run):\n"
            "  --score-from FILE.. recompute the scores of result.txt/result_summary.txt files\n"
            "  --hash-config-ini F.. config hash of config.ini files as written\n");
}

/* Returns 0, or 2 after printing a message (on rank 0). */
static int parse_args(int argc, char **argv, struct cli *cli, int rank)
{
    memset(cli, 0, sizeof *cli);
    cli->debug_delay_rank = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
        int detail = ios_rank_detail_arg(&cli->rank_detail, argc, argv, &i, "ioscore-suite", rank);
        if (detail < 0)
            return 2;
        if (detail > 0)
            continue;
        if (strcmp(a, "--dry-run") == 0)
            cli->dry_run = 1;
        else if (strcmp(a, "--cleanup") == 0)
            cli->cleanup = 1;
        else if (strcmp(a, "--keep-data") == 0)
            cli->keep_data = 1;
        else if (strcmp(a, "--verbose") == 0 || strcmp(a, "-v") == 0)
            cli->verbose++;
        else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0)
            cli->quiet = 1;
        else if (strcmp(a, "--list") == 0 || strcmp(a, "-l") == 0)
            cli->list = 1;
        else if (strcmp(a, "--version") == 0)
            cli->version = 1;
        else if (strcmp(a, "--config-hash") == 0)
            cli->config_hash = 1;
        else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            if (rank == 0)
                usage(stdout);
            return 1;
        } else if (strcmp(a, "--mode=standard") == 0) {
        } else if (strncmp(a, "--mode", 6) == 0) {
            if (rank == 0)
                fprintf(stderr,
                        "ioscore-suite: ERROR: %s: only --mode=standard is "
                        "implemented\n",
                        a);
            return 2;
        } else if (strncmp(a, "--timestamp=", 12) == 0)
            cli->timestamp = a + 12;
        else if (strcmp(a, "--timestamp") == 0 && next) {
            cli->timestamp = next;
            i++;
        } else if (strcmp(a, "--score-from") == 0 && next) {
            /* every following argument that is not an option is one more file */
            while (i + 1 < argc && argv[i + 1][0] != '-' && cli->n_score_from < 1024)
                cli->score_from[cli->n_score_from++] = argv[++i];
        } else if (strcmp(a, "--hash-config-ini") == 0 && next) {
            while (i + 1 < argc && argv[i + 1][0] != '-' && cli->n_hash_ini < 1024)
                cli->hash_ini[cli->n_hash_ini++] = argv[++i];
        } else if ((strcmp(a, "--simulate-ppn") == 0 || strcmp(a, "--simulate-nodes") == 0) &&
                   next) {
            int *k = strcmp(a, "--simulate-ppn") == 0 ? &cli->simulate_ppn : &cli->simulate_nodes;
            *k = atoi(next);
            i++;
            if (*k <= 0 || (cli->simulate_ppn > 0 && cli->simulate_nodes > 0)) {
                if (rank == 0)
                    fprintf(stderr,
                            "ioscore-suite: ERROR: %s needs a positive number, got '%s' "
                            "(and --simulate-ppn and --simulate-nodes exclude each other)\n",
                            a, next);
                return 2;
            }
        } else if ((strcmp(a, "--debug-delay-rank") == 0 || strcmp(a, "--debug-delay-us") == 0) &&
                   next) {
            char *end = NULL;
            long value = strtol(next, &end, 10);
            if (end == next || *end || value < 0 || value > 100000000) {
                if (rank == 0)
                    fprintf(stderr,
                            "ioscore-suite: ERROR: %s needs a number in 0..100000000, got "
                            "'%s'\n",
                            a, next);
                return 2;
            }
            if (strcmp(a, "--debug-delay-rank") == 0)
                cli->debug_delay_rank = (int)value;
            else
                cli->debug_delay_us = value;
            i++;
        } else if (a[0] == '-') {
            if (rank == 0) {
                fprintf(stderr, "ioscore-suite: ERROR: unknown or incomplete option '%s'\n", a);
                usage(stderr);
            }
            return 2;
        } else if (!cli->ini) {
            cli->ini = a;
        } else {
            if (rank == 0)
                fprintf(stderr, "ioscore-suite: ERROR: unexpected argument '%s'\n", a);
            return 2;
        }
    }
    return 0;
}

/* Rank 0 reads the INI and broadcasts the bytes; every rank parses them. */
static int load_config(struct ios_run *run, const char *path)
{
    long long len = -1;
    char *text = NULL;
    int err = 0;
    struct stat st;
    if (run->rank == 0 && stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        /* a device or FIFO could be read forever (/dev/zero) or block */
        fprintf(stderr, "ioscore-suite: ERROR: %s: not a regular file\n", path);
        err = EFBIG;
    } else if (run->rank == 0 && stat(path, &st) == 0 && st.st_size > IOS_CONFIG_MAX_BYTES) {
        fprintf(stderr,
                "ioscore-suite: ERROR: %s: %lld bytes is too large for an INI file (at most "
                "%d)\n",
                path, (long long)st.st_size, IOS_CONFIG_MAX_BYTES);
        err = EFBIG;
    } else if (run->rank == 0) {
        size_t n = 0;
        text = ios_read_file(path, &n);
        if (!text)
            err = errno;
        else
            len = (long long)n;
    }
    MPI_Bcast(&len, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    MPI_Bcast(&err, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (len < 0) {
        if (run->rank == 0 && err != EFBIG) /* EFBIG: already said why */
            fprintf(stderr, "ioscore-suite: ERROR: cannot read config file %s: %s\n", path,
                    strerror(err));
        return 2;
    }
    if (run->rank != 0) {
        text = calloc((size_t)len + 1, 1);
        if (!text)
            ios_fatal("out of memory");
    }
    MPI_Bcast(text, (int)len, MPI_CHAR, 0, MPI_COMM_WORLD);
    text[len] = '\0';
    ios_config_init(&run->cfg, path);
    char msg[2048];
    int rc = ios_config_check_text(path, text, (size_t)len, msg, sizeof msg);
    if (rc == 0)
        rc = ios_config_parse(&run->cfg, text, msg, sizeof msg);
    free(text);
    if (rc != 0) {
        if (run->rank == 0)
            fprintf(stderr, "ioscore-suite: ERROR: %s\n", msg);
        return 2;
    }
    return 0;
}

static void resolve_dirs(struct ios_run *run)
{
    const char *data = run->cfg.opt.global.datadir;
    const char *res = run->cfg.opt.global.resultdir;
    if (run->cfg.opt.global.timestamp_datadir)
        ios_path(run->datadir, sizeof run->datadir, "%s/%s", data, run->timestamp);
    else
        ios_path(run->datadir, sizeof run->datadir, "%s", data);
    if (run->cfg.opt.global.timestamp_resultdir)
        ios_path(run->resdir, sizeof run->resdir, "%s/%s", res, run->timestamp);
    else
        ios_path(run->resdir, sizeof run->resdir, "%s", res);
}

/*
 * The set-up of a subcommand run: its data directory (the test file or -d list), verbosity,
 * timestamp and result directory: --resultdir, else a scratch directory under $TMPDIR (or
 * /tmp) that the launch removes at its end. 0, or 2 after the error.
 */
static int subcommand_setup(struct ios_run *run, const char *name, const char *resultdir,
                            int simulate_ppn, int simulate_nodes,
                            const struct ios_rank_detail_opts *detail, const char *datadir,
                            int verbose)
{
    run->mode = name;
    snprintf(run->datadir, sizeof run->datadir, "%s", datadir);
    run->verbosity = verbose;
    char ts[32] = "";
    if (run->rank == 0)
        ios_format_time(ios_wtime(), "%Y.%m.%d-%H.%M.%S", ts, sizeof ts);
    MPI_Bcast(ts, sizeof ts, MPI_CHAR, 0, MPI_COMM_WORLD);
    snprintf(run->timestamp, sizeof run->timestamp, "%s", ts);
    ios_placement(run, simulate_ppn, simulate_nodes);
    /* as the IO500 run: every rank's numbers up to the threshold, the summary form above */
    run->rank_detail_threshold = detail->threshold;
    run->rank_detail_full = detail->full;
    ios_config_init(&run->cfg, name);
    if (resultdir[0]) {
        ios_path(run->resdir, sizeof run->resdir, "%s", resultdir);
        return 0;
    }
    char scratch[IOS_PATH_MAX] = "";
    if (run->rank == 0) {
        const char *tmp = getenv("TMPDIR");
        ios_path(scratch, sizeof scratch, "%s/ioscore-%s-XXXXXX", tmp && tmp[0] ? tmp : "/tmp",
                 name);
        if (!mkdtemp(scratch)) {
            fprintf(stderr,
                    "ioscore-suite %s: ERROR: cannot create a scratch directory %s: %s "
                    "(give --resultdir DIR)\n",
                    name, scratch, strerror(errno));
            scratch[0] = '\0';
        }
    }
    MPI_Bcast(scratch, sizeof scratch, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (!scratch[0])
        return 2;
    ios_path(run->resdir, sizeof run->resdir, "%s", scratch);
    run->resdir_scratch = 1;
    return 0;
}

/* `ioscore-suite mdtest ARGS...`: POSIX, results as for ior. */
static int mdtest_subcommand(struct ios_run *run, int argc, char **argv)
{
    static struct ios_mdtest_params params;
    int rc = ios_mdtest_parse(&params, argc, argv, run->rank);
    if (rc != 0)
        return rc == 1 ? 0 : rc;
    if (subcommand_setup(run, "mdtest", params.resultdir, params.simulate_ppn,
                         params.simulate_nodes, &params.rank_detail, params.dir_list_text,
                         params.verbose) != 0)
        return 2;
    return ios_mdtest_run(run, &params);
}

/* `ioscore-suite ior ARGS...`: stdout, and with --resultdir result.json and the CSVs. */
static int ior_subcommand(struct ios_run *run, int argc, char **argv)
{
    static struct ios_ior_params params;
    int rc = ios_ior_parse(&params, argc, argv, run->rank);
    if (rc != 0)
        return rc == 1 ? 0 : rc;
    if (subcommand_setup(run, "ior", params.resultdir, params.simulate_ppn, params.simulate_nodes,
                         &params.rank_detail, params.test_file, params.verbose) != 0)
        return 2;
    return ios_ior_run(run, &params);
}

static int finish(int code)
{
    MPI_Finalize();
    return code;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    /* a rank that dies or fails in MPI takes the job down with a message */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    static struct ios_run run;
    MPI_Comm_rank(MPI_COMM_WORLD, &run.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &run.size);
    run.version = ios_version();
    run.mode = "standard";
    run.valid = 1;

    if (argc > 1 && strcmp(argv[1], "ior") == 0) /* IOR's own command line */
        return finish(ior_subcommand(&run, argc - 1, argv + 1));
    if (argc > 1 && strcmp(argv[1], "mdtest") == 0)
        return finish(mdtest_subcommand(&run, argc - 1, argv + 1));
    struct cli cli;
    int rc = parse_args(argc, argv, &cli, run.rank);
    if (rc != 0)
        return finish(rc == 1 ? 0 : rc);
    if (cli.version) {
        if (run.rank == 0)
            printf("%s\nMPI: %s\nio_uring: %s\n", run.version, ios_mpi_library(),
                   ios_backends_optional()[0] ? "yes (-a IOURING)" : "no (built without liburing)");
        return finish(0);
    }
    if (cli.list) {
        if (run.rank == 0) {
            ios_config_list(stdout);
            ios_phases_list(stdout);
            printf("\n");
            ios_backend_list(stdout);
            printf("\n; test-only command-line options (the run is INVALID): --debug-delay-rank R "
                   "--debug-delay-us N (rank R sleeps N us before each operation)\n");
        }
        return finish(0);
    }
    if (cli.n_score_from > 0) {
        rc = 0;
        for (int i = 0; i < cli.n_score_from && run.rank == 0; i++) {
            rc |= ios_score_from_file(cli.score_from[i], stdout);
            printf("\n");
        }
        return finish(rc);
    }
    if (cli.n_hash_ini > 0) {
        for (int i = 0; i < cli.n_hash_ini && run.rank == 0; i++) {
            char *text = ios_read_file(cli.hash_ini[i], NULL);
            if (!text) {
                fprintf(stderr, "ioscore-suite: ERROR: cannot read %s: %s\n", cli.hash_ini[i],
                        strerror(errno));
                return finish(2);
            }
            printf("%X %s\n", ios_config_hash_ini_text(text), cli.hash_ini[i]);
            free(text);
        }
        return finish(0);
    }
    if (!cli.ini) {
        if (run.rank == 0)
            usage(stderr);
        return finish(2);
    }
    if ((rc = load_config(&run, cli.ini)) != 0)
        return finish(rc);
    run.config_hash = ios_config_hash(&run.cfg);
    if (cli.config_hash) {
        if (run.rank == 0)
            printf("%X\n", run.config_hash);
        return finish(0);
    }

    char ts[32] = "";
    if (cli.timestamp) {
        snprintf(ts, sizeof ts, "%s", cli.timestamp);
    } else if (run.rank == 0) {
        ios_format_time(ios_wtime(), "%Y.%m.%d-%H.%M.%S", ts, sizeof ts);
    }
    MPI_Bcast(ts, sizeof ts, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (strchr(ts, '/') || strcmp(ts, "..") == 0 || !ts[0]) {
        if (run.rank == 0)
            fprintf(stderr, "ioscore-suite: ERROR: --timestamp '%s' must be a plain name\n", ts);
        return finish(2);
    }
    snprintf(run.timestamp, sizeof run.timestamp, "%s", ts);
    ios_placement(&run, cli.simulate_ppn, cli.simulate_nodes);
    resolve_dirs(&run);
    run.verbosity = (int)run.cfg.opt.global.verbosity + cli.verbose;
    run.quiet = cli.quiet;
    run.keep_data = cli.keep_data;
    run.debug_delay_rank = cli.debug_delay_rank;
    run.rank_detail_threshold = cli.rank_detail.threshold;
    run.rank_detail_full = cli.rank_detail.full;
    run.debug_delay_us = cli.debug_delay_us;
    if ((cli.debug_delay_rank >= 0) != (cli.debug_delay_us > 0) ||
        cli.debug_delay_rank >= run.size) {
        if (run.rank == 0)
            fprintf(stderr,
                    "ioscore-suite: ERROR: --debug-delay-rank R (0..%d) and "
                    "--debug-delay-us N (> 0) go together\n",
                    run.size - 1);
        return finish(2);
    }
    /* no silent ./datafiles: the data goes only where the file says */
    if (ios_cfg_line(&run.cfg, "global", "datadir") == 0) {
        if (run.rank == 0)
            fprintf(stderr,
                    "ioscore-suite: ERROR: %s: [global] datadir is not set; ioscore-suite never "
                    "writes into a default data directory (add datadir = <directory> to "
                    "[global])\n",
                    cli.ini);
        return finish(2);
    }
    run.stonewall = (int)run.cfg.opt.debug.stonewall_time;
    run.minwrite = run.cfg.opt.global.scc ? 30 : 300;
    run.packet = ios_packet_from_string(run.cfg.opt.global.data_packet_type);

    if (cli.dry_run) {
        /* the same pre-I/O checks as the real run: dry-run OK <=> the real run starts */
        if ((rc = ios_run_validate(&run)) != 0)
            return finish(rc);
        if (run.rank == 0)
            ios_run_describe(&run, stdout);
        return finish(0);
    }
    if (cli.cleanup)
        return finish(ios_run_cleanup_only(&run));
    rc = ios_run_phases(&run);
    return finish(rc);
}
