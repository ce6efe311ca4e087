/*
 * The scheduler: validation before any I/O, the phase loop in the standard order (BENCHMARK-RULES
 * §1.2, step 9) and what happens around each phase (cache dropping, the pause hook, barriers,
 * instrumentation). Its steps live in their own files (run_steps.h): gathering, scoring and
 * validity in gather.c, the data directory and cleanup in datadir.c; result.txt and the
 * summary are written as each phase finishes (src/report/result_txt.c), so an aborted run
 * still records what finished.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ioscore/hash.h"
#include "ioscore/report.h"
#include "run_steps.h"

static void now_text(char *buf, size_t len)
{
    ios_format_time(ios_wtime(), "%Y-%m-%d %H:%M:%S", buf, len);
}

/* Rank 0 waits while <pause-dir>/<phase> exists (debug hook; the run is already invalid). */
static void pause_if_requested(struct ios_run *run, const char *phase)
{
    const char *pause_dir = run->cfg.opt.debug.pause_dir;
    if (!pause_dir || run->rank != 0)
        return;
    char path[IOS_PATH_MAX];
    ios_path(path, sizeof path, "%s/%s", pause_dir, phase);
    ios_result_line(run, "; Checking for pause file %s", path);
    double t0 = ios_wtime();
    while (access(path, F_OK) == 0)
        usleep(100000);
    char text[32];
    snprintf(text, sizeof text, "%.4f", ios_wtime() - t0);
    ios_result_key(run, "t_pause", text);
}

static void drop_caches(struct ios_run *run)
{
    if (!run->cfg.opt.global.drop_caches)
        return;
    const char *cmd = run->cfg.opt.global.drop_caches_cmd;
    if (cmd && system(cmd) != 0 && run->rank == 0)
        fprintf(stderr, "ioscore-suite: WARNING: drop-caches-cmd failed: %s\n", cmd);
    MPI_Barrier(ios_test_comm);
}

struct ios_phase_result *ios_run_one_phase(struct ios_run *run, const struct ios_phase *p)
{
    if (run->n_results >= IOS_MAX_PHASES)
        ios_fatal("more than %d phases in one run", IOS_MAX_PHASES);
    struct ios_phase_result *res = &run->results[run->n_results++];
    memset(res, 0, sizeof *res);
    res->phase = p;
    res->valid = 1;
    struct ios_phase_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.run = run;
    ctx.phase = p;
    ctx.res = res;
    ctx.seed = p->seed_key ? ios_phase_seed(p->seed_key, run->timestamp) : 0;
    char err[IOS_MSG_MAX];
    if (run->backend)
        ctx.be = *run->backend;
    else if (ios_backend_for_phase(&run->cfg, p->name, p->group, &ctx.be, err, sizeof err) != 0)
        ios_fatal("[%s] %s", p->name, err); /* checked before any I/O; cannot happen here */
    int enabled = run->backend ? 1 : ios_cfg_run(&run->cfg, p->name, p->group);

    if (p->type != IOS_PHASE_DUMMY && enabled)
        drop_caches(run);
    MPI_Barrier(ios_test_comm);
    res->t_start = ios_wtime();
    ios_result_line(run, "%s", "");
    ios_result_line(run, "[%s]", p->name);
    if (run->verbosity > 0) {
        char text[32];
        ios_format_time(res->t_start, "%Y-%m-%d %H:%M:%S", text, sizeof text);
        ios_result_key(run, "t_start", text);
    }
    pause_if_requested(run, p->name);
    MPI_Barrier(ios_test_comm);
    double start = ios_wtime();
    res->t_start = start;
    ios_timeseries_start(&ctx.ts, start);
    ios_instrument_start(&ctx.instr, &run->instr, run->rank, p->name);
    if (enabled) {
        res->ran = 1;
        p->run(&ctx);
    }
    ios_instrument_finish(&ctx.instr); /* no progress reduction outlives the phase */
    MPI_Barrier(ios_test_comm);        /* the phase ends when every rank is done */
    res->t_end = ios_wtime();
    res->t_delta = res->t_end - start;
    ios_gather_phase(run, &ctx);
    ios_report_phase(run, res);
    ios_timeseries_free(&ctx.ts);
    ios_lat_series_free(&ctx.instr.series);

    /* I/O errors stop the run; every rank agrees through rank 0's view */
    int failed = run->rank == 0 && res->failed_ranks > 0;
    MPI_Bcast(&failed, 1, MPI_INT, 0, ios_test_comm);
    if (failed) {
        run->aborted = 1;
        snprintf(run->abort_reason, sizeof run->abort_reason, "stopped after %s: %.400s", p->name,
                 run->rank == 0 && res->n_reasons ? res->reasons[0] : "I/O errors");
    }
    if (run->rank == 0 && ios_report_json(run) != 0)
        fprintf(stderr, "ioscore-suite: WARNING: cannot write result.json\n");
    return res;
}

int ios_run_phases(struct ios_run *run)
{
    int rc = ios_run_validate(run);
    if (rc != 0)
        return rc;
    /* test hook: the real run's verdict up to here, without creating anything */
    if (getenv("IOSCORE_DEBUG_STOP_BEFORE_IO")) {
        if (run->rank == 0)
            fprintf(stderr, "ioscore-suite: IOSCORE_DEBUG_STOP_BEFORE_IO: stopping after the "
                            "pre-I/O checks\n");
        return 0;
    }
    ios_datadir_prepare(run);
    run->t_run_start = ios_wtime();
    ios_report_open(run);
    char now[32];
    now_text(now, sizeof now);
    if (run->verbosity > 0)
        ios_result_line(run, "; START %s", now);
    if (run->cfg.opt.debug.pause_dir)
        ios_run_invalidate(run, "pause-dir is set");
    if (run->stonewall != run->minwrite)
        ios_run_invalidate(run, "stonewall-time is %ds; a valid run needs %ds", run->stonewall,
                           run->minwrite);
    if (run->cfg.opt.mdtest_hard.files_per_dir > 0)
        ios_run_invalidate(run, "files-per-dir is set");
    if (run->debug_delay_rank >= 0) {
        ios_run_invalidate(run,
                           "test-only option --debug-delay-rank %d --debug-delay-us %ld was used",
                           run->debug_delay_rank, run->debug_delay_us);
        if (run->rank == 0)
            fprintf(stderr,
                    "ioscore-suite: WARNING: test-only --debug-delay-rank %d --debug-delay-us %ld: "
                    "rank %d sleeps before each operation; the run is INVALID\n",
                    run->debug_delay_rank, run->debug_delay_us, run->debug_delay_rank);
    }
    ios_instrument_cfg_init(&run->instr, run->rank, run->quiet, run->debug_delay_rank,
                            run->debug_delay_us);
    ios_result_line(run, "%s", "");
    if (run->rank == 0)
        ios_report_json(run);

    int n = 0;
    const struct ios_phase *const *phases = ios_standard_phases(&n);
    for (int i = 0; i < n && !run->aborted; i++)
        ios_run_one_phase(run, phases[i]);

    if (run->aborted) {
        ios_run_invalidate(run, "run %s", run->abort_reason);
        if (run->rank == 0)
            fprintf(stderr,
                    "ioscore-suite: ERROR: run %s; data left in %s (remove it with "
                    "--cleanup)\n",
                    run->abort_reason, run->datadir);
    }
    ios_score_run(run);
    ios_report_scores(run);
    if (!run->aborted && !run->keep_data)
        ios_datadir_cleanup(run);
    run->t_run_end = ios_wtime();
    run->finished = 1;
    ios_instrument_cfg_free(&run->instr);
    now_text(now, sizeof now);
    if (run->verbosity > 0)
        ios_result_line(run, "; END %s", now);
    if (run->rank == 0)
        ios_report_json(run);
    ios_report_close(run);
    return run->aborted ? 3 : 0;
}

void ios_run_describe(const struct ios_run *run, FILE *out)
{
    int n = 0;
    const struct ios_phase *const *phases = ios_standard_phases(&n);
    fprintf(out, "ioscore-suite %s: DRY RUN (nothing is created, written or deleted)\n",
            run->version);
    fprintf(out, "procs %d, nodes %d, ranks on node 0: %d, IOR shift %d, mdtest shift %d\n",
            run->size, run->nnodes, run->ppn0, ios_ior_shift(run), ios_mdtest_shift(run));
    fprintf(out, "datadir %s\nresultdir %s\ntimestamp %s\nstonewall-time %d s%s\n", run->datadir,
            run->resdir, run->timestamp, run->stonewall,
            run->stonewall != run->minwrite ? " (INVALID: a valid run needs 300 s)" : "");
    fprintf(out, "config-hash %X\n", run->config_hash);
    for (int i = 0; i < n; i++) {
        const struct ios_phase *p = phases[i];
        int enabled = ios_cfg_run(&run->cfg, p->name, p->group);
        fprintf(out, "\n[%s]%s  api: %s\n", p->name, enabled ? "" : " (run = FALSE: skipped)",
                ios_cfg_api(&run->cfg, p->name, p->group));
        if (p->describe)
            p->describe(run, out);
    }
}
