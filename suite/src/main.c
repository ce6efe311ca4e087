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
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ioscore/acceptance.h"
#include "ioscore/cli_options.h"
#include "ioscore/config.h"
#include "ioscore/run.h"
#include "ioscore/score.h"
#include "ioscore/backend.h"
#include "ioscore/version.h"

/* Real IO500 configs are a few KiB; anything far larger is not one (and is not read whole). */
#define IOS_CONFIG_MAX_BYTES (1 << 20)

#define MAX_LISTED_FILES 1024

/* The suite's own command line: the fields of the rows of `suite_opts`. */
struct cli {
    const char *ini;
    char timestamp[32];
    const char *score_from[MAX_LISTED_FILES];
    int n_score_from;
    const char *hash_ini[MAX_LISTED_FILES];
    int n_hash_ini;
    int dry_run, cleanup, keep_data, verbose, quiet, list, version, config_hash;
    int simulate_ppn, simulate_nodes;
    int debug_delay_rank; /* -1 if unset */
    int64_t debug_delay_us;
    struct ios_rank_detail_opts rank_detail;
    /* while parsing: the list the words after --score-from/--hash-config-ini go to */
    const char **listing;
    int *n_listing;
};

#define F(member) IOS_CLI_FIELD(struct cli, member)

static int set_mode(void *params, const struct ios_cli_opt *o, const char *v, char *err, size_t len)
{
    (void)params;
    if (strcmp(v, "standard") == 0)
        return 0;
    snprintf(err, len, "%s", o->expect);
    return -1;
}

/* --score-from F.. and --hash-config-ini F..: this file and every following word that is not
 * an option (list_words takes them). */
static int start_list(struct cli *cli, const char **list, int *n, const char *file)
{
    cli->listing = list;
    cli->n_listing = n;
    if (*n < MAX_LISTED_FILES)
        list[(*n)++] = file;
    return 0;
}

static int set_score_from(void *params, const struct ios_cli_opt *o, const char *v, char *err,
                          size_t len)
{
    struct cli *cli = params;
    (void)o, (void)err, (void)len;
    return start_list(cli, cli->score_from, &cli->n_score_from, v);
}

static int set_hash_ini(void *params, const struct ios_cli_opt *o, const char *v, char *err,
                        size_t len)
{
    struct cli *cli = params;
    (void)o, (void)err, (void)len;
    return start_list(cli, cli->hash_ini, &cli->n_hash_ini, v);
}

static const struct ios_cli_opt suite_opts[] = {
    {0, "dry-run", IOS_CLI_FLAG, 0, F(dry_run), 0, 1, NULL, NULL, NULL,
     "run every pre-I/O check, print every phase's workload and sizes; touch nothing", NULL},
    {0, "cleanup", IOS_CLI_FLAG, 0, F(cleanup), 0, 1, NULL, NULL, NULL,
     "remove what an earlier run created (known names only)", NULL},
    {0, "timestamp", IOS_CLI_STR, 0, F(timestamp), 0, 0, NULL, "TS", "a time stamp",
     "use TS (%Y.%m.%d-%H.%M.%S) instead of the current time", NULL},
    {0, "keep-data", IOS_CLI_FLAG, 0, F(keep_data), 0, 1, NULL, NULL, NULL,
     "do not remove the data after scoring (see --cleanup)", NULL},
    {'v', "verbose", IOS_CLI_COUNTER, 0, F(verbose), 0, 0, NULL, NULL, NULL,
     "more output (repeatable)", NULL},
    {'q', "quiet", IOS_CLI_FLAG, 0, F(quiet), 0, 1, NULL, NULL, NULL,
     "no summary on stdout, no live progress on stderr", NULL},
    {'l', "list", IOS_CLI_FLAG, 0, F(list), 0, 1, NULL, NULL, NULL,
     "list every section and option with its default", NULL},
    {0, "config-hash", IOS_CLI_FLAG, 0, F(config_hash), 0, 1, NULL, NULL, NULL,
     "print the config hash of CONFIG.ini", NULL},
    {0, "version", IOS_CLI_FLAG, 0, F(version), 0, 1, NULL, NULL, NULL,
     "print the version and the MPI library of the build", NULL},
    {0, "mode", IOS_CLI_FUNC, 0, IOS_CLI_NO_FIELD, 0, 0, NULL, "standard",
     "standard (the only mode implemented)", "the only mode implemented", set_mode},
    {0, "simulate-ppn", IOS_CLI_INT, 0, F(simulate_ppn), 1, 1 << 20, NULL, "K", "a positive number",
     "treat ranks as block-mapped on nodes of K ranks (testing)", NULL},
    {0, "simulate-nodes", IOS_CLI_INT, 0, F(simulate_nodes), 1, 1 << 20, NULL, "K",
     "a positive number", "treat ranks as round-robin on K nodes: rank r on r mod K", NULL},
    {0, "debug-delay-rank", IOS_CLI_INT, 0, F(debug_delay_rank), 0, 100000000, "-1", "R",
     "a number in 0..100000000",
     "test only (the run is INVALID): rank R sleeps --debug-delay-us before each I/O or "
     "metadata operation (makes R a straggler)",
     NULL},
    {0, "debug-delay-us", IOS_CLI_INT, 0, F(debug_delay_us), 0, 100000000, NULL, "N",
     "a number in 0..100000000", "test only: the delay of --debug-delay-rank in us", NULL},
    {0, "score-from", IOS_CLI_FUNC, 0, IOS_CLI_NO_FIELD, 0, 0, NULL, "FILE..", "a file",
     "helper (no run): recompute the scores of result.txt/result_summary.txt files",
     set_score_from},
    {0, "hash-config-ini", IOS_CLI_FUNC, 0, IOS_CLI_NO_FIELD, 0, 0, NULL, "FILE..", "a file",
     "helper (no run): config hash of config.ini files as written", set_hash_ini},
};

static const struct ios_cli_tool suite_tool = {
    .program = "ioscore-suite",
    .tool = "ioscore-suite",
    IOS_CLI_ROWS(suite_opts),
    .usage = "usage: mpiexec -n N ioscore-suite CONFIG.ini [options]",
    .epilog = "  --rank-detail-threshold N\n"
              "                           above N ranks (default 4096) result.json keeps "
              "per-rank\n"
              "                           detail only for the 16 slowest and 16 fastest ranks "
              "plus\n"
              "                           quantiles, a rate histogram and per-host aggregates\n"
              "  --rank-detail-full       with the summary form, also write every rank's "
              "numbers to\n"
              "                           ranks-<phase>.csv.gz\n"
              "test only (the run is INVALID): --debug-delay-rank R --debug-delay-us N\n",
    .own_options = 1,
    .rank_detail = {IOS_CLI_FIELD(struct cli, rank_detail)},
};

/* The words that are not options: the files of a --score-from/--hash-config-ini list, else
 * CONFIG.ini. Returns the words used (0: an option, the table's), -1 after the error. */
static int list_words(void *params, int argc, char **argv, int i, int rank)
{
    struct cli *cli = params;
    (void)argc;
    if (argv[i][0] == '-') { /* an option ends a file list */
        cli->listing = NULL;
        return 0;
    }
    if (cli->listing) {
        if (*cli->n_listing < MAX_LISTED_FILES)
            cli->listing[(*cli->n_listing)++] = argv[i];
        return 1;
    }
    if (!cli->ini) {
        cli->ini = argv[i];
        return 1;
    }
    ios_cli_fail(&suite_tool, rank, "unexpected argument '%s'", argv[i]);
    return -1;
}

/* Returns 0; 1 after --help; 2 after printing a message (on rank 0). */
static int parse_args(int argc, char **argv, struct cli *cli, int rank)
{
    memset(cli, 0, sizeof *cli);
    int rc = ios_cli_parse(&suite_tool, cli, argc, argv, rank, list_words);
    if (rc == 0 && cli->simulate_ppn > 0 && cli->simulate_nodes > 0)
        rc = ios_cli_fail(&suite_tool, rank,
                          "--simulate-ppn and --simulate-nodes exclude each "
                          "other");
    return rc;
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
    MPI_Bcast(ts, sizeof ts, MPI_CHAR, 0, ios_test_comm);
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
    MPI_Bcast(scratch, sizeof scratch, MPI_CHAR, 0, ios_test_comm);
    if (!scratch[0])
        return 2;
    ios_path(run->resdir, sizeof run->resdir, "%s", scratch);
    run->resdir_scratch = 1;
    return 0;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path) == 0 ? 0 : -1;
}

/* The scratch result directory goes however the launch ended: finished, refused after set-up
 * (a bad -d list, a hint it cannot apply) or stopped by an error. */
static void remove_scratch(const struct ios_run *run, const char *name)
{
    if (run->rank != 0 || !run->resdir_scratch)
        return;
    if (nftw(run->resdir, remove_entry, 16, FTW_DEPTH | FTW_PHYS) != 0)
        fprintf(stderr, "ioscore-suite %s: WARNING: cannot remove the scratch directory %s\n", name,
                run->resdir);
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
    rc = ios_mdtest_run(run, &params);
    remove_scratch(run, "mdtest");
    return rc;
}

/* `ioscore-suite ior ARGS...`: stdout, and with --resultdir result.json and the CSVs. With -N
 * below the launched ranks the test runs on the first N, as IOR's test communicator, and the
 * others wait for it to end. */
static int ior_subcommand(struct ios_run *run, int argc, char **argv)
{
    static struct ios_ior_params params;
    int rc = ios_ior_parse(&params, argc, argv, run->rank);
    if (rc != 0)
        return rc == 1 ? 0 : rc;
    int idle = 0;
    if (params.num_tasks > 0 && params.num_tasks < run->size) {
        idle = run->rank >= params.num_tasks;
        MPI_Comm_split(MPI_COMM_WORLD, idle ? MPI_UNDEFINED : 0, run->rank, &ios_test_comm);
        if (!idle)
            MPI_Comm_size(ios_test_comm, &run->size);
    }
    if (!idle &&
        subcommand_setup(run, "ior", params.resultdir, params.simulate_ppn, params.simulate_nodes,
                         &params.rank_detail, params.test_file, params.verbose) != 0)
        rc = 2;
    else if (!idle)
        rc = ios_ior_run(run, &params);
    if (!idle)
        remove_scratch(run, "ior");
    MPI_Barrier(MPI_COMM_WORLD);
    return rc;
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
            ios_cli_help(&suite_tool, stderr);
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
    if (cli.timestamp[0]) {
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
