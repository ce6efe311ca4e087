/*
 * find (BENCHMARK-RULES §1.3.6, §6): the parallel find engine (src/find/, find.h) over the
 * whole data directory with the fixed predicate -newer <resdir>/timestampfile -size 3901c
 * -name *01*. Score = scanned entries / engine runtime / 1000. Only the first `nproc` ranks
 * take part when nproc is set. An external script (`external-script`) runs on rank 0 instead,
 * its last line "MATCHED <found>/<total>" giving the counts.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ioscore/find.h"
#include "ioscore/phases.h"

static int participants(const struct ios_run *run)
{
    int64_t nproc = run->cfg.opt.find.nproc;
    return nproc > 0 && nproc < run->size ? (int)nproc : run->size;
}

/*
 * pfind -H 1 (pfind-parallelize-single-dir-access-using-hashing) is the engine's cookie-range
 * splitting of one directory among ranks; without it a directory has one reader, as in pfind.
 */
static enum ioscore_find_range_policy range_split(const struct ios_run *run)
{
    return run->cfg.opt.find.hash_single_dirs ? IOSCORE_FIND_RANGE_AUTO : IOSCORE_FIND_RANGE_OFF;
}

static void run_external(struct ios_phase_ctx *ctx, const char *script)
{
    struct ios_run *run = ctx->run;
    unsigned long long totals[2] = {0, 0}; /* found, scanned */
    int failed = 0;
    double t0 = ios_wtime();
    if (run->rank == 0) {
        char cmd[IOS_PATH_MAX * 3];
        snprintf(cmd, sizeof cmd,
                 "%s %s %s %s -newer %s/timestampfile -size 3901c -name "
                 "\"*01*\"",
                 run->cfg.opt.find.external_mpi_args, script, run->cfg.opt.find.external_extra_args,
                 run->datadir, run->resdir);
        ios_phase_key(ctx, "exe", "%s", cmd);
        FILE *p = popen(cmd, "r");
        char line[1024], last[1024] = "";
        unsigned long long lines = 0;
        while (p && fgets(line, sizeof line, p)) {
            lines++;
            snprintf(last, sizeof last, "%s", line);
        }
        int status = p ? pclose(p) : -1;
        last[strcspn(last, "\n")] = '\0';
        ios_phase_key(ctx, "nproc", "%d", participants(run));
        ios_phase_key(ctx, "last-output", "\"%s\"", last);
        if (sscanf(last, "MATCHED %llu/%llu", &totals[0], &totals[1]) != 2) {
            fprintf(stderr,
                    "ioscore-suite: find: WARNING: the external script did not end "
                    "with 'MATCHED <found>/<total>'; counting its %llu output lines\n",
                    lines);
            totals[0] = totals[1] = lines;
        }
        if (status != 0)
            failed = 1;
        ios_phase_key(ctx, "total-files", "%llu", totals[1]);
        ios_phase_key(ctx, "found", "%llu", totals[0]);
    }
    MPI_Bcast(totals, 2, MPI_UNSIGNED_LONG_LONG, 0, ios_test_comm);
    MPI_Bcast(&failed, 1, MPI_INT, 0, ios_test_comm);
    double elapsed = ios_wtime() - t0;
    ctx->res->has_find = 1;
    ctx->res->found = totals[0];
    ctx->res->scanned = totals[1];
    ctx->score = elapsed > 0 ? (double)totals[1] / elapsed / 1000.0 : 0;
    if (failed && run->rank == 0)
        ios_phase_invalidate(ctx->res, "the external find script exited with an error");
}

static void find_run(struct ios_phase_ctx *ctx)
{
    struct ios_run *run = ctx->run;
    ctx->mine.start = ios_wtime();
    const char *script = run->cfg.opt.find.external_script;
    if (script) {
        run_external(ctx, script);
        ctx->mine.end = ctx->mine.end_before_barrier = ios_wtime();
        return;
    }
    if (!(ctx->be.ops->caps & IOS_CAP_NAMESPACE)) {
        /* nothing to scan: the run is invalid through the zero score */
        if (run->rank == 0)
            ios_phase_invalidate(ctx->res, "backend %s has no namespace to scan",
                                 ctx->be.ops->name);
        ctx->mine.end = ctx->mine.end_before_barrier = ios_wtime();
        return;
    }
    int nproc = participants(run);
    MPI_Comm comm;
    MPI_Comm_split(ios_test_comm, run->rank < nproc ? 0 : MPI_UNDEFINED, run->rank, &comm);
    char newer[IOS_PATH_MAX], csv[IOS_PATH_MAX];
    ios_path(newer, sizeof newer, "%s/timestampfile", run->resdir);
    ios_path(csv, sizeof csv, "%s/find.csv", run->resdir);
    ios_phase_key(ctx, "exe", "ioscore-find %s -newer %s -size 3901c -name *01*", run->datadir,
                  newer);
    ios_phase_key(ctx, "nproc", "%d", nproc);
    struct ioscore_find_result result;
    memset(&result, 0, sizeof result);
    int rc = 0;
    if (comm != MPI_COMM_NULL) {
        struct ioscore_find_opts opts = {
            .root = run->datadir,
            .name_pattern = "*01*",
            .newer_file = newer,
            .size_bytes = 3901,
            .cross_mounts = 1,
            .verbose = run->verbosity > 4,
            .range_split = range_split(run),
            .steal_next = run->cfg.opt.find.steal_next,
            .print_matches = NULL,
        };
        rc = ioscore_find_run(comm, &opts, &result);
        if (rc == 0) {
            int csv_rc = ioscore_find_write_csv(comm, &result, csv);
            if (csv_rc != 0 && run->rank == 0)
                fprintf(stderr, "ioscore-suite: WARNING: cannot write %s: %s\n", csv,
                        strerror(-csv_rc));
        }
        MPI_Comm_free(&comm);
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, ios_test_comm);
    if (rc != 0 && run->rank == 0) {
        ios_phase_invalidate(ctx->res, "the find engine failed on %s: %s", run->datadir,
                             strerror(-rc));
    }
    ctx->mine.items = (double)result.mine.scanned;
    ctx->mine.end = ctx->mine.end_before_barrier = ios_wtime();
    ios_phase_key(ctx, "found", "%" PRIu64, result.total.found);
    ios_phase_key(ctx, "total-files", "%" PRIu64, result.total.scanned);
    ctx->res->has_find = 1;
    ctx->res->found = result.total.found;
    ctx->res->scanned = result.total.scanned;
    ctx->score = rc == 0 ? result.rate / 1000.0 : 0.0;
}

static void find_describe(const struct ios_run *run, FILE *out)
{
    const char *script = run->cfg.opt.find.external_script;
    fprintf(out,
            "  %s %s -newer %s/timestampfile -size 3901c -name *01* on %d rank(s); score "
            "= scanned entries / runtime / 1000\n",
            script ? script : "find engine", run->datadir, run->resdir, participants(run));
    if (!script)
        fprintf(out,
                "  pfind keys: single-directory splitting by cookie ranges %s (-H), steal "
                "from rank-1 half of the time %s (-N); pfind-queue-length recorded only\n",
                range_split(run) == IOSCORE_FIND_RANGE_AUTO ? "on" : "off",
                run->cfg.opt.find.steal_next ? "on" : "off");
}

const struct ios_phase ios_phase_find = {
    .name = "find",
    .group = NULL,
    .score_group = IOS_GROUP_MD,
    .type = IOS_PHASE_READ,
    .metric = IOS_METRIC_CUSTOM,
    .unit = IOS_UNIT_KIOPS,
    .pattern = "parallel namespace scan of the whole data directory (-newer, -size 3901c, "
               "-name *01*)",
    .creates = "<resdir>/find.csv",
    .run = find_run,
    .describe = find_describe,
};
