/*
 * Gathering, scoring and validity: rank 0 collects every rank's numbers of a phase, computes
 * its score by the phase's metric, applies the validity rules of spec §2.6, and at the end
 * computes the run's scores and score hash (src/core/score.c).
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ioscore/report.h"
#include "run_steps.h"

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
    ios_result_line(run, "; ERROR INVALID %s", msg);
}

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

static void compute_score(struct ios_phase_ctx *ctx)
{
    struct ios_phase_result *res = ctx->res;
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
static void check_phase(const struct ios_run *run, struct ios_phase_ctx *ctx)
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

void ios_gather_phase(struct ios_run *run, struct ios_phase_ctx *ctx)
{
    struct ios_phase_result *res = ctx->res;
    gather_results(run, ctx);
    if (run->rank == 0) {
        compute_score(ctx);
        check_phase(run, ctx);
    }
    MPI_Bcast(&res->score, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Bcast(&res->valid, 1, MPI_INT, 0, MPI_COMM_WORLD);
}

void ios_score_run(struct ios_run *run)
{
    int n = 0;
    const char *names[IOS_MAX_PHASES];
    enum ios_group groups[IOS_MAX_PHASES];
    double scores[IOS_MAX_PHASES];
    for (int i = 0; i < run->n_results; i++) {
        const struct ios_phase_result *res = &run->results[i];
        if (res->phase->score_group == IOS_GROUP_NONE)
            continue;
        names[n] = res->phase->name;
        groups[n] = res->phase->score_group;
        scores[n++] = res->score;
    }
    for (int i = 0; i < run->n_results; i++)
        if (!run->results[i].valid && run->valid)
            ios_run_invalidate(run, "phase %s is invalid", run->results[i].phase->name);
    run->scores = ios_group_scores(groups, scores, n);
    run->score_hash = ios_score_hash(run->version, names, scores, n, run->scores, run->valid);
}
