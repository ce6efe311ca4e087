/*
 * The scheduler: validation before any I/O, the phase loop in the spec's order (§1.2 step 9),
 * gathering of per-rank numbers, scores, validity checks, result files written as each phase
 * finishes (so an aborted run still records what finished), and the final cleanup.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ioscore/hash.h"
#include "ioscore/report.h"
#include "ioscore/run.h"

/* ---------------------------------------------------------------- small shared helpers */

int ios_ior_shift(const struct ios_run *run)
{
    int s = run->block_mapped ? run->ppn0 : 1;
    return run->size > 0 ? s % run->size : 0;
}

int ios_mdtest_shift(const struct ios_run *run)
{
    int s = (run->nnodes > 1 && run->block_mapped) ? run->ppn0 : 1;
    return run->size > 0 ? s % run->size : 0;
}

static void result_line(struct ios_run *run, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void result_line(struct ios_run *run, const char *fmt, ...)
{
    if (run->rank != 0 || !run->result_txt)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(run->result_txt, fmt, ap);
    va_end(ap);
    fputc('\n', run->result_txt);
    fflush(run->result_txt);
}

static void result_key(struct ios_run *run, const char *key, const char *value)
{
    result_line(run, "%-15s = %s", key, value);
}

void ios_run_invalidate(struct ios_run *run, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    run->valid = 0;
    if (run->n_reasons < IOS_MAX_REASONS)
        snprintf(run->reasons[run->n_reasons++], sizeof run->reasons[0], "%s", msg);
    result_line(run, "; ERROR INVALID %s", msg);
}

void ios_phase_invalidate(struct ios_phase_result *res, const char *fmt, ...)
{
    res->valid = 0;
    if (res->n_reasons >= IOS_MAX_REASONS)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(res->reasons[res->n_reasons++], sizeof res->reasons[0], fmt, ap);
    va_end(ap);
}

void ios_phase_error(struct ios_phase_ctx *ctx, int neg_errno, const char *fmt, ...)
{
    if (ctx->mine.io_error != 0)
        return;
    ctx->mine.io_error = neg_errno ? neg_errno : -EIO;
    char what[IOS_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(ctx->error, sizeof ctx->error, "rank %d: %.400s: %s", ctx->run->rank, what,
             strerror(neg_errno < 0 ? -neg_errno : EIO));
    fprintf(stderr, "ioscore-suite: %s: ERROR: %s\n", ctx->phase->name, ctx->error);
}

void ios_phase_key(struct ios_phase_ctx *ctx, const char *key, const char *fmt, ...)
{
    struct ios_phase_result *res = ctx->res;
    if (ctx->run->rank != 0 || res->n_keys >= IOS_MAX_KEYS)
        return;
    struct ios_kv *kv = &res->keys[res->n_keys++];
    snprintf(kv->key, sizeof kv->key, "%s", key);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(kv->value, sizeof kv->value, fmt, ap);
    va_end(ap);
}

void ios_status_write(struct ios_run *run, const char *name, int64_t count)
{
    if (run->rank != 0)
        return;
    char path[IOS_PATH_MAX], text[32];
    ios_path(path, sizeof path, "%s/%s.stonewall", run->resdir, name);
    int n = snprintf(text, sizeof text, "%lld", (long long)count); /* no newline, as IO500 */
    int rc = ios_write_file_atomic(path, text, (size_t)n);
    if (rc != 0)
        fprintf(stderr, "ioscore-suite: WARNING: cannot write status file %s: %s\n", path,
                strerror(-rc));
}

int64_t ios_status_read_bcast(struct ios_run *run, const char *name)
{
    long long value = -1;
    if (run->rank == 0) {
        char path[IOS_PATH_MAX];
        ios_path(path, sizeof path, "%s/%s.stonewall", run->resdir, name);
        FILE *f = fopen(path, "r");
        if (!f || fscanf(f, "%lld", &value) != 1) {
            fprintf(stderr,
                    "ioscore-suite: WARNING: cannot read status file %s; the phase "
                    "runs without a count limit\n",
                    path);
            value = -1;
        }
        if (f)
            fclose(f);
    }
    MPI_Bcast(&value, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    return value;
}

void *ios_alloc_buffer(const struct ios_backend *be, size_t size)
{
    void *buf = NULL;
    size_t align = be->alignment < 64 ? 64 : be->alignment;
    size_t rounded = (size + align - 1) / align * align;
    if (posix_memalign(&buf, align, rounded ? rounded : align) != 0)
        ios_fatal("cannot allocate a %zu-byte I/O buffer", size);
    memset(buf, 0, rounded);
    return buf;
}

void ios_timeseries_start(struct ios_timeseries *ts, double t0)
{
    free(ts->buckets);
    memset(ts, 0, sizeof *ts);
    ts->t0 = t0;
}

void ios_timeseries_add(struct ios_timeseries *ts, double now)
{
    double rel = now - ts->t0;
    int bucket = rel < 0 ? 0 : (int)rel;
    if (bucket >= 1000000)
        bucket = 999999;
    if (bucket >= ts->cap) {
        int cap = ts->cap ? ts->cap : 64;
        while (cap <= bucket)
            cap *= 2;
        uint64_t *bigger = realloc(ts->buckets, (size_t)cap * sizeof *bigger);
        if (!bigger)
            ios_fatal("out of memory (time series)");
        memset(bigger + ts->cap, 0, (size_t)(cap - ts->cap) * sizeof *bigger);
        ts->buckets = bigger;
        ts->cap = cap;
    }
    ts->buckets[bucket]++;
    if (bucket + 1 > ts->n)
        ts->n = bucket + 1;
}

void ios_timeseries_free(struct ios_timeseries *ts)
{
    free(ts->buckets);
    memset(ts, 0, sizeof *ts);
}

static void now_text(char *buf, size_t len)
{
    ios_format_time(ios_wtime(), "%Y-%m-%d %H:%M:%S", buf, len);
}

/* ---------------------------------------------------------------- directories */

/*
 * Rank 0 creates the directories and the marker (checked by ios_run_validate); every rank
 * learns the outcome. Fatal on failure.
 */
static void prepare_directories(struct ios_run *run)
{
    char err[IOS_PATH_MAX * 3] = "";
    int rc = 0;
    if (run->rank == 0) {
        int e = ios_mkdir_p(run->resdir, 0700);
        if (e != 0) {
            snprintf(err, sizeof err, "cannot create result directory %s: %s", run->resdir,
                     strerror(-e));
            rc = -1;
        }
        if (rc == 0) {
            e = ios_mkdir_p(run->datadir, 0700);
            if (e != 0) {
                snprintf(err, sizeof err, "cannot create data directory %s: %s", run->datadir,
                         strerror(-e));
                rc = -1;
            }
        }
        if (rc == 0) {
            char marker[IOS_PATH_MAX];
            ios_path(marker, sizeof marker, "%s/%s", run->datadir, IOS_MARKER_NAME);
            char text[IOS_PATH_MAX + 128];
            int n = snprintf(text, sizeof text, "ioscore %s\ntimestamp %s\nresultdir %s\n",
                             run->version, run->timestamp, run->resdir);
            e = ios_write_file_atomic(marker, text, (size_t)n);
            if (e != 0) {
                snprintf(err, sizeof err, "cannot write %s: %s", marker, strerror(-e));
                rc = -1;
            }
        }
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rc != 0) {
        if (run->rank == 0)
            fprintf(stderr, "ioscore-suite: ERROR: %s\n", err);
        MPI_Finalize();
        exit(2);
    }
}

/* ---------------------------------------------------------------- outputs of rank 0 */

static FILE *open_output(const struct ios_run *run, const char *name)
{
    char path[IOS_PATH_MAX];
    ios_path(path, sizeof path, "%s/%s", run->resdir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        ios_fatal("cannot create %s: %s", path, strerror(errno));
    return f;
}

static void open_outputs(struct ios_run *run)
{
    if (run->rank != 0)
        return;
    FILE *orig = open_output(run, "config-orig.ini");
    fputs(run->cfg.text ? run->cfg.text : "", orig);
    fclose(orig);
    FILE *eff = open_output(run, "config.ini");
    ios_config_write_ini(&run->cfg, eff);
    fclose(eff);
    run->summary = open_output(run, "result_summary.txt");
    run->result_txt = open_output(run, "result.txt");
    char hash[16];
    snprintf(hash, sizeof hash, "%X", run->config_hash);
    result_line(run, "[run]");
    char procs[16];
    snprintf(procs, sizeof procs, "%d", run->size);
    result_key(run, "procs", procs);
    result_key(run, "version", run->version);
    result_key(run, "config-hash", hash);
    result_key(run, "result-dir", run->resdir);
    result_key(run, "mode", run->mode);
    fprintf(run->summary, "IO500 version %s (%s)\n", run->version, run->mode);
    fflush(run->summary);
    if (!run->quiet)
        printf("IO500 version %s (%s)\n", run->version, run->mode);
}

static void summary_line(struct ios_run *run, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void summary_line(struct ios_run *run, const char *fmt, ...)
{
    if (run->rank != 0)
        return;
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(run->summary, "%s\n", line);
    fflush(run->summary);
    if (!run->quiet) {
        printf("%s\n", line);
        fflush(stdout);
    }
}

/* ---------------------------------------------------------------- one phase */

static void gather_results(struct ios_run *run, struct ios_phase_ctx *ctx)
{
    struct ios_phase_result *res = ctx->res;
    int n = run->size;
    if (run->rank == 0) {
        res->n_ranks = n;
        res->ranks = calloc((size_t)n, sizeof *res->ranks);
        res->hosts = calloc((size_t)n, sizeof *res->hosts);
        if (!res->ranks || !res->hosts)
            ios_fatal("out of memory (phase results)");
        memcpy(res->hosts, run->hosts, (size_t)n * sizeof *res->hosts);
    }
    MPI_Gather(&ctx->mine, IOS_RANK_STATS_DOUBLES, MPI_DOUBLE, res->ranks, IOS_RANK_STATS_DOUBLES,
               MPI_DOUBLE, 0, MPI_COMM_WORLD);

    /* time series: align every rank's buckets to the longest one */
    int len = ctx->ts.n, max_len = 0;
    MPI_Allreduce(&len, &max_len, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    uint64_t *mine = calloc((size_t)(max_len ? max_len : 1), sizeof *mine);
    if (!mine)
        ios_fatal("out of memory (time series)");
    if (len > 0)
        memcpy(mine, ctx->ts.buckets, (size_t)len * sizeof *mine);
    if (run->rank == 0) {
        res->ts_len = max_len;
        res->ts_per_rank = calloc((size_t)n * (size_t)(max_len ? max_len : 1), sizeof(uint64_t));
        res->ts_aggregate = calloc((size_t)(max_len ? max_len : 1), sizeof(uint64_t));
    }
    if (max_len > 0)
        MPI_Gather(mine, max_len, MPI_UINT64_T, res->ts_per_rank, max_len, MPI_UINT64_T, 0,
                   MPI_COMM_WORLD);
    free(mine);
    if (run->rank == 0)
        for (int r = 0; r < n; r++)
            for (int b = 0; b < max_len; b++)
                res->ts_aggregate[b] += res->ts_per_rank[(size_t)r * (size_t)max_len + (size_t)b];

    /* operation latency: the merged histogram (MPI_Reduce) and every rank's own */
    ios_latency_reduce(&ctx->instr.lat, &res->latency);
    if (run->rank == 0) {
        res->lat_ranks = calloc((size_t)n, sizeof *res->lat_ranks);
        if (!res->lat_ranks)
            ios_fatal("out of memory (latency)");
    }
    MPI_Gather(&ctx->instr.lat, (int)sizeof ctx->instr.lat, MPI_BYTE, res->lat_ranks,
               (int)sizeof ctx->instr.lat, MPI_BYTE, 0, MPI_COMM_WORLD);

    /* the first error message of any rank, for the reports */
    char *all = NULL;
    if (run->rank == 0) {
        all = calloc((size_t)n, IOS_MSG_MAX);
        if (!all)
            ios_fatal("out of memory (errors)");
    }
    MPI_Gather(ctx->error, IOS_MSG_MAX, MPI_CHAR, all, IOS_MSG_MAX, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (run->rank == 0) {
        int failed = 0;
        const char *first = NULL;
        for (int r = 0; r < n; r++) {
            if (res->ranks[r].io_error != 0) {
                failed++;
                if (!first)
                    first = all + (size_t)r * IOS_MSG_MAX;
            }
        }
        if (failed)
            ios_phase_invalidate(res, "I/O errors on %d rank(s); first: %.200s", failed, first);
        free(all);
    }
}

static void compute_score(struct ios_run *run, struct ios_phase_ctx *ctx)
{
    struct ios_phase_result *res = ctx->res;
    if (run->rank != 0)
        return;
    double min_start = INFINITY, max_end = -INFINITY, max_span = 0;
    double items = 0, bytes = 0, verify = 0, at_deadline_max = 0, at_deadline_sum = 0;
    for (int r = 0; r < res->n_ranks; r++) {
        const struct ios_rank_stats *s = &res->ranks[r];
        if (s->start < min_start)
            min_start = s->start;
        if (s->end > max_end)
            max_end = s->end;
        if (s->end - s->start > max_span)
            max_span = s->end - s->start;
        items += s->items;
        bytes += s->bytes;
        verify += s->verify_errors;
        if (s->items_at_deadline > at_deadline_max)
            at_deadline_max = s->items_at_deadline;
        at_deadline_sum += s->items_at_deadline;
    }
    res->items = items;
    res->bytes = bytes;
    res->verify_errors = verify;
    res->items_at_deadline_max = at_deadline_max;
    res->items_at_deadline_sum = at_deadline_sum;
    res->wearout_items = 0;
    for (int r = 0; r < res->n_ranks; r++)
        if (res->ranks[r].hit_deadline)
            res->wearout_items += res->ranks[r].items - res->ranks[r].items_at_deadline;
    switch (ctx->phase->metric) {
    case IOS_METRIC_BW:
        res->score = max_end > min_start ? bytes / (max_end - min_start) / 1073741824.0 : 0;
        break;
    case IOS_METRIC_MD:
        res->score = max_span > 0 ? items / max_span / 1000.0 : 0;
        break;
    case IOS_METRIC_CUSTOM:
        res->score = ctx->score;
        break;
    case IOS_METRIC_NONE:
        res->score = 0;
        break;
    }
}

/* Validity checks of spec §2.6 for one phase (rank 0). */
static void check_phase(struct ios_run *run, struct ios_phase_ctx *ctx)
{
    struct ios_phase_result *res = ctx->res;
    const struct ios_phase *p = ctx->phase;
    if (!res->ran) {
        ios_phase_invalidate(res, "phase disabled by run = FALSE; every standard phase must run");
        return;
    }
    if (res->verify_errors > 0)
        ios_phase_invalidate(res, "%.0f data verification errors", res->verify_errors);
    if (p->stonewalled) {
        if (p->metric == IOS_METRIC_BW) {
            double t_ior = 0, min_start = INFINITY, max_end = -INFINITY;
            for (int r = 0; r < res->n_ranks; r++) {
                min_start = fmin(min_start, res->ranks[r].start);
                max_end = fmax(max_end, res->ranks[r].end);
            }
            t_ior = max_end - min_start;
            if (t_ior < run->stonewall)
                ios_phase_invalidate(res, "write time %.3f s is below the stonewall time %d s",
                                     t_ior, run->stonewall);
        }
        if (res->t_delta < run->stonewall)
            ios_phase_invalidate(res, "phase time %.3f s is below the stonewall time %d s",
                                 res->t_delta, run->stonewall);
        if (res->t_delta < run->minwrite)
            ios_phase_invalidate(res, "write phase ran %.3f s; the rules need at least %d s",
                                 res->t_delta, run->minwrite);
    }
    if (p->type != IOS_PHASE_DUMMY && p->metric != IOS_METRIC_NONE && res->score <= 0.0)
        ios_phase_invalidate(res, "score is 0");
    if (res->has_find && res->found == 0)
        ios_phase_invalidate(res, "find found no matching file");
}

/* Rank 0 waits while <pause-dir>/<phase> exists (debug hook; the run is already invalid). */
static void pause_if_requested(struct ios_run *run, const char *phase)
{
    const char *pause_dir = ios_cfg_str(&run->cfg, "debug", "pause-dir");
    if (!pause_dir || run->rank != 0)
        return;
    char path[IOS_PATH_MAX];
    ios_path(path, sizeof path, "%s/%s", pause_dir, phase);
    result_line(run, "; Checking for pause file %s", path);
    double t0 = ios_wtime();
    while (access(path, F_OK) == 0)
        usleep(100000);
    char text[32];
    snprintf(text, sizeof text, "%.4f", ios_wtime() - t0);
    result_key(run, "t_pause", text);
}

static void drop_caches(struct ios_run *run)
{
    if (!ios_cfg_bool(&run->cfg, "global", "drop-caches", 0))
        return;
    const char *cmd = ios_cfg_str(&run->cfg, "global", "drop-caches-cmd");
    if (cmd && system(cmd) != 0 && run->rank == 0)
        fprintf(stderr, "ioscore-suite: WARNING: drop-caches-cmd failed: %s\n", cmd);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void write_phase_outputs(struct ios_run *run, struct ios_phase_ctx *ctx)
{
    struct ios_phase_result *res = ctx->res;
    const struct ios_phase *p = ctx->phase;
    if (run->rank != 0)
        return;
    for (int k = 0; k < res->n_keys; k++)
        result_key(run, res->keys[k].key, res->keys[k].value);
    for (int k = 0; k < res->n_reasons; k++)
        result_line(run, "; ERROR INVALID %s", res->reasons[k]);
    char score[64];
    snprintf(score, sizeof score, "%f", res->score);
    if (p->type != IOS_PHASE_DUMMY)
        result_key(run, "score", score);
    const char *unit = p->name[0] == 'i' ? "GiB/s" : "kIOPS";
    summary_line(run, "%s %20s %15s %s : time %.3f seconds%s",
                 p->score_group != IOS_GROUP_NONE ? "[RESULT]" : "[      ]", p->name, score, unit,
                 res->t_delta, res->valid ? "" : " [INVALID]");
    if (run->verbosity > 0) {
        char text[64];
        snprintf(text, sizeof text, "%.4f", res->t_delta);
        result_key(run, "t_delta", text);
        ios_format_time(res->t_end, "%Y-%m-%d %H:%M:%S", text, sizeof text);
        result_key(run, "t_end", text);
    }
    if (res->ran && p->csv_kind) {
        int rc = ios_report_csv(run, res);
        if (rc != 0)
            fprintf(stderr, "ioscore-suite: WARNING: cannot write %s.csv: %s\n", p->name,
                    strerror(-rc));
    }
    if (res->ran && res->ts_len > 0) {
        int rc = ios_report_timeseries_csv(run, res);
        if (rc != 0)
            fprintf(stderr, "ioscore-suite: WARNING: cannot write %s-timeseries.csv: %s\n", p->name,
                    strerror(-rc));
    }
    if (res->ran && p->has_log) {
        int rc = ios_report_log(run, res);
        if (rc != 0)
            fprintf(stderr, "ioscore-suite: WARNING: cannot write %s.txt: %s\n", p->name,
                    strerror(-rc));
    }
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
    MPI_Barrier(MPI_COMM_WORLD);
    res->t_start = ios_wtime();
    result_line(run, "%s", "");
    result_line(run, "[%s]", p->name);
    if (run->verbosity > 0) {
        char text[32];
        ios_format_time(res->t_start, "%Y-%m-%d %H:%M:%S", text, sizeof text);
        result_key(run, "t_start", text);
    }
    pause_if_requested(run, p->name);
    MPI_Barrier(MPI_COMM_WORLD);
    double start = ios_wtime();
    res->t_start = start;
    ios_timeseries_start(&ctx.ts, start);
    ios_instrument_start(&ctx.instr, &run->instr, run->rank, p->name);
    if (enabled) {
        res->ran = 1;
        p->run(&ctx);
    }
    ios_instrument_finish(&ctx.instr); /* no progress reduction outlives the phase */
    MPI_Barrier(MPI_COMM_WORLD);       /* the phase ends when every rank is done */
    res->t_end = ios_wtime();
    res->t_delta = res->t_end - start;
    gather_results(run, &ctx);
    compute_score(run, &ctx);
    if (run->rank == 0)
        check_phase(run, &ctx);
    MPI_Bcast(&res->score, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Bcast(&res->valid, 1, MPI_INT, 0, MPI_COMM_WORLD);
    write_phase_outputs(run, &ctx);
    ios_timeseries_free(&ctx.ts);

    /* I/O errors stop the run; every rank agrees through rank 0's view */
    int failed = 0;
    if (run->rank == 0)
        for (int r = 0; r < res->n_ranks; r++)
            failed |= res->ranks[r].io_error != 0;
    MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (failed) {
        run->aborted = 1;
        snprintf(run->abort_reason, sizeof run->abort_reason, "stopped after %s: %.400s", p->name,
                 run->rank == 0 && res->n_reasons ? res->reasons[0] : "I/O errors");
    }
    if (run->rank == 0 && ios_report_json(run) != 0)
        fprintf(stderr, "ioscore-suite: WARNING: cannot write result.json\n");
    return res;
}

/* ---------------------------------------------------------------- cleanup after scoring */

static void cleanup_remove(struct ios_run *run, const struct ios_backend *be, const char *path,
                           int is_dir)
{
    int rc = is_dir ? be->ops->rmdir((struct ios_backend *)be, path)
                    : be->ops->unlink((struct ios_backend *)be, path);
    if (rc != 0 && rc != -ENOENT && run->verbosity > 0)
        fprintf(stderr, "ioscore-suite: rank %d: WARNING: cannot remove %s: %s\n", run->rank, path,
                strerror(-rc));
}

/* Unlink/rmdir of known names only, never recursive (spec §1.5). */
static void final_cleanup(struct ios_run *run)
{
    char path[IOS_PATH_MAX], err[IOS_MSG_MAX];
    struct ios_backend be;
    if (ios_backend_for_phase(&run->cfg, "ior-easy-write", "ior-easy", &be, err, sizeof err) != 0)
        return;
    if (run->rank == 0) {
        static const char *status[] = {"ior-easy", "mdtest-easy", "ior-hard", "mdtest-hard"};
        for (int i = 0; i < 4; i++) {
            ios_path(path, sizeof path, "%s/%s.stonewall", run->resdir, status[i]);
            unlink(path); /* POSIX: status files always live in resdir */
        }
    }
    int fpp = ios_cfg_bool(&run->cfg, "ior-easy", "filePerProc", 1);
    int unique = ios_cfg_bool(&run->cfg, "ior-easy", "uniqueDir", 0);
    if (fpp) {
        if (unique) {
            ios_path(path, sizeof path, "%s/ior-easy/%d/ior_file_easy.%08d", run->datadir,
                     run->rank, run->rank);
            cleanup_remove(run, &be, path, 0);
            ios_path(path, sizeof path, "%s/ior-easy/%d", run->datadir, run->rank);
            cleanup_remove(run, &be, path, 1);
        } else {
            ios_path(path, sizeof path, "%s/ior-easy/ior_file_easy.%08d", run->datadir, run->rank);
            cleanup_remove(run, &be, path, 0);
        }
    } else if (run->rank == 0) {
        ios_path(path, sizeof path, "%s/ior-easy/ior_file_easy", run->datadir);
        cleanup_remove(run, &be, path, 0);
    }
    /* unlike the reference, wait for every rank's unlink before the rmdir */
    MPI_Barrier(MPI_COMM_WORLD);
    if (run->rank == 0) {
        struct ios_backend hard;
        if (ios_backend_for_phase(&run->cfg, "ior-hard-write", "ior-hard", &hard, err,
                                  sizeof err) != 0)
            hard = be;
        ios_path(path, sizeof path, "%s/ior-hard/file", run->datadir);
        cleanup_remove(run, &hard, path, 0);
        for (int i = 0; i < 4; i++) {
            ios_path(path, sizeof path, "%s/%s", run->datadir, ios_known_top_dirs[i]);
            cleanup_remove(run, &be, path, 1);
        }
        ios_path(path, sizeof path, "%s/%s", run->datadir, IOS_MARKER_NAME);
        unlink(path);
        if (rmdir(run->datadir) != 0 && errno != ENOENT)
            fprintf(stderr, "ioscore-suite: WARNING: data directory %s not removed: %s\n",
                    run->datadir, strerror(errno));
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* ---------------------------------------------------------------- the run */

static void write_scores(struct ios_run *run)
{
    int n = 0;
    const char *names[IOS_MAX_PHASES];
    double scores[IOS_MAX_PHASES];
    for (int i = 0; i < run->n_results; i++) {
        const struct ios_phase_result *res = &run->results[i];
        if (res->phase->score_group == IOS_GROUP_NONE)
            continue;
        names[n] = res->phase->name;
        scores[n++] = res->score;
    }
    for (int i = 0; i < run->n_results; i++)
        if (!run->results[i].valid && run->valid)
            ios_run_invalidate(run, "phase %s is invalid", run->results[i].phase->name);
    run->scores = ios_compute_scores(names, scores, n);
    run->score_hash = ios_score_hash(run->version, names, scores, n, run->scores, run->valid);
    result_line(run, "%s", "");
    result_line(run, "[SCORE]");
    result_line(run, "%-15s = %f", "MD", run->scores.md);
    result_line(run, "%-15s = %f", "BW", run->scores.bw);
    result_line(run, "%-15s = %f%s", "SCORE", run->scores.total, run->valid ? "" : " [INVALID]");
    result_line(run, "%-15s = %X", "hash", run->score_hash);
    summary_line(run, "[SCORE ] Bandwidth %f GiB/s : IOPS %f kiops : TOTAL %f%s", run->scores.bw,
                 run->scores.md, run->scores.total, run->valid ? "" : " [INVALID]");
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
    prepare_directories(run);
    run->t_run_start = ios_wtime();
    open_outputs(run);
    char now[32];
    now_text(now, sizeof now);
    if (run->verbosity > 0)
        result_line(run, "; START %s", now);
    if (ios_cfg_str(&run->cfg, "debug", "pause-dir"))
        ios_run_invalidate(run, "pause-dir is set");
    if (run->stonewall != run->minwrite)
        ios_run_invalidate(run, "stonewall-time is %ds; a valid run needs %ds", run->stonewall,
                           run->minwrite);
    if (ios_cfg_int(&run->cfg, "mdtest-hard", "files-per-dir", 0) > 0)
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
    result_line(run, "%s", "");
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
    write_scores(run);
    if (!run->aborted && !run->keep_data)
        final_cleanup(run);
    run->t_run_end = ios_wtime();
    run->finished = 1;
    ios_instrument_cfg_free(&run->instr);
    now_text(now, sizeof now);
    if (run->verbosity > 0)
        result_line(run, "; END %s", now);
    if (run->rank == 0) {
        ios_report_json(run);
        fclose(run->result_txt);
        fclose(run->summary);
        run->result_txt = run->summary = NULL;
    }
    return run->aborted ? 3 : 0;
}

/* ---------------------------------------------------------------- --cleanup */

/* Does `name` look like "<prefix><digits>[.<digits>]" exactly? */
static int matches_numbered(const char *name, const char *prefix, int parts)
{
    size_t len = strlen(prefix);
    if (strncmp(name, prefix, len) != 0)
        return 0;
    const char *p = name + len;
    for (int part = 0; part < parts; part++) {
        if (part > 0) {
            if (*p != '.')
                return 0;
            p++;
        }
        if (*p < '0' || *p > '9')
            return 0;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    return *p == '\0';
}

/* Unlinks the entries of `dir` accepted by `ours`; returns how many were removed. */
static long unlink_known(const char *dir, int (*ours)(const char *name))
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    long removed = 0;
    struct dirent *e;
    char path[IOS_PATH_MAX];
    while ((e = readdir(d)) != NULL) {
        if (!ours(e->d_name))
            continue;
        ios_path(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && unlink(path) == 0)
            removed++;
    }
    closedir(d);
    return removed;
}

static int is_ior_easy_file(const char *n)
{
    return strcmp(n, "ior_file_easy") == 0 || matches_numbered(n, "ior_file_easy.", 1);
}
static int is_ior_hard_file(const char *n)
{
    return strcmp(n, "file") == 0;
}
static int is_mdtest_file(const char *n)
{
    return matches_numbered(n, "file.mdtest.", 2);
}

static void rmdir_quiet(const char *path, int verbose)
{
    if (rmdir(path) != 0 && errno != ENOENT && verbose)
        fprintf(stderr, "ioscore-suite: kept %s: %s\n", path, strerror(errno));
}

/* Removes the per-rank/tree directories named like ours inside `dir`, then `dir`. */
static long cleanup_tree_dirs(const char *dir, const char *prefix, int parts, int verbose)
{
    long removed = 0;
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    struct dirent *e;
    char path[IOS_PATH_MAX];
    while ((e = readdir(d)) != NULL) {
        if (!matches_numbered(e->d_name, prefix, parts))
            continue;
        ios_path(path, sizeof path, "%s/%s", dir, e->d_name);
        removed += unlink_known(path, is_mdtest_file);
        rmdir_quiet(path, verbose);
    }
    closedir(d);
    return removed;
}

int ios_run_cleanup_only(struct ios_run *run)
{
    int rc = 0;
    if (run->rank == 0) {
        char marker[IOS_PATH_MAX], path[IOS_PATH_MAX], sub[IOS_PATH_MAX];
        ios_path(marker, sizeof marker, "%s/%s", run->datadir, IOS_MARKER_NAME);
        if (access(marker, F_OK) != 0) {
            fprintf(stderr,
                    "ioscore-suite: ERROR: --cleanup: %s has no %s marker of an ioscore "
                    "run; nothing removed (pass --timestamp of the run to clean when "
                    "timestamp-datadir = TRUE)\n",
                    run->datadir, IOS_MARKER_NAME);
            rc = 2;
        } else {
            int v = run->verbosity > 0;
            long removed = 0;
            ios_path(path, sizeof path, "%s/ior-easy", run->datadir);
            removed += unlink_known(path, is_ior_easy_file);
            DIR *d = opendir(path); /* uniqueDir: <rank>/ior_file_easy.%08d */
            struct dirent *e;
            while (d && (e = readdir(d)) != NULL) {
                if (!matches_numbered(e->d_name, "", 1))
                    continue;
                ios_path(sub, sizeof sub, "%s/%s", path, e->d_name);
                removed += unlink_known(sub, is_ior_easy_file);
                rmdir_quiet(sub, v);
            }
            if (d)
                closedir(d);
            rmdir_quiet(path, v);
            ios_path(path, sizeof path, "%s/ior-hard", run->datadir);
            removed += unlink_known(path, is_ior_hard_file);
            rmdir_quiet(path, v);
            ios_path(path, sizeof path, "%s/mdtest-easy/test-dir.0-0", run->datadir);
            removed += cleanup_tree_dirs(path, "mdtest_tree.", 2, v);
            rmdir_quiet(path, v);
            ios_path(path, sizeof path, "%s/mdtest-easy", run->datadir);
            rmdir_quiet(path, v);
            ios_path(path, sizeof path, "%s/mdtest-hard", run->datadir);
            d = opendir(path); /* files-per-dir: test-dir.0-<k> for k = 0, 1, ... */
            while (d && (e = readdir(d)) != NULL) {
                if (!matches_numbered(e->d_name, "test-dir.0-", 1))
                    continue;
                ios_path(sub, sizeof sub, "%s/%s", path, e->d_name);
                removed += cleanup_tree_dirs(sub, "mdtest_tree.", 1, v);
                rmdir_quiet(sub, v);
            }
            if (d)
                closedir(d);
            rmdir_quiet(path, v);
            static const char *status[] = {"ior-easy", "mdtest-easy", "ior-hard", "mdtest-hard"};
            for (int i = 0; i < 4; i++) {
                ios_path(path, sizeof path, "%s/%s.stonewall", run->resdir, status[i]);
                if (unlink(path) == 0)
                    removed++;
            }
            unlink(marker);
            rmdir_quiet(run->datadir, 1);
            if (!run->quiet)
                printf("ioscore-suite: --cleanup removed %ld files below %s\n", removed,
                       run->datadir);
        }
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return rc;
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
