/*
 * Gathering, scoring and validity: rank 0 collects a phase's per-rank numbers, computes its
 * score by the phase's metric, applies the validity rules of BENCHMARK-RULES §2.6, and at the end
 * computes the run's scores and score hash (src/core/score.c).
 *
 * Up to the rank-detail threshold rank 0 gathers every rank's numbers (the full form). Above it
 * (the summary form, include/ioscore/rank_summary.h) nothing of size O(ranks) reaches rank 0:
 * every rank's numbers go into a mergeable sketch, node leaders reduce their node's sketches
 * and host aggregates, and the leaders' sketches are reduced to rank 0 while their host
 * aggregates are gathered (O(hosts)). The time series is reduced to the phase aggregate.
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ioscore/hash.h"
#include "ioscore/rank_summary.h"
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

static void gather_full(struct ios_run *run, struct ios_phase_ctx *ctx)
{
    struct ios_phase_result *res = ctx->res;
    int n = run->size;
    if (run->rank == 0) {
        res->n_ranks = n;
        res->procs = n;
        res->ranks = calloc((size_t)n, sizeof *res->ranks);
        res->hosts = calloc((size_t)n, sizeof *res->hosts);
        if (!res->ranks || !res->hosts)
            ios_fatal("out of memory (phase results)");
    }
    MPI_Gather(&ctx->mine, IOS_RANK_STATS_DOUBLES, MPI_DOUBLE, res->ranks, IOS_RANK_STATS_DOUBLES,
               MPI_DOUBLE, 0, ios_test_comm);
    /* the hosts of the per-rank rows: gathered with them, no run-wide table of them */
    MPI_Gather(run->host, IOS_HOST_MAX, MPI_CHAR, res->hosts, IOS_HOST_MAX, MPI_CHAR, 0,
               ios_test_comm);

    /* time series: align every rank's buckets to the longest one */
    int len = ctx->ts.n, max_len = 0;
    MPI_Allreduce(&len, &max_len, 1, MPI_INT, MPI_MAX, ios_test_comm);
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
                   ios_test_comm);
    free(mine);
    if (run->rank == 0)
        for (int r = 0; r < n; r++)
            for (int b = 0; b < max_len; b++)
                res->ts_aggregate[b] += res->ts_per_rank[(size_t)r * (size_t)max_len + (size_t)b];

    /* operation latency: every rank's own percentiles; the histograms merge in gather_latency */
    struct ios_latency_summary own;
    ios_latency_summarize(&ctx->instr.lat, &own);
    if (run->rank == 0) {
        res->lat_ranks = calloc((size_t)n, sizeof *res->lat_ranks);
        if (!res->lat_ranks)
            ios_fatal("out of memory (latency)");
    }
    MPI_Gather(&own, (int)sizeof own, MPI_BYTE, res->lat_ranks, (int)sizeof own, MPI_BYTE, 0,
               ios_test_comm);

    /* the first error message of any rank, for the reports */
    char *all = NULL;
    if (run->rank == 0) {
        all = calloc((size_t)n, IOS_MSG_MAX);
        if (!all)
            ios_fatal("out of memory (errors)");
    }
    MPI_Gather(ctx->error, IOS_MSG_MAX, MPI_CHAR, all, IOS_MSG_MAX, MPI_CHAR, 0, ios_test_comm);
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
        res->failed_ranks = failed;
        if (failed)
            ios_phase_invalidate(res, "I/O errors on %d rank(s); first: %.200s", failed, first);
        if (failed) /* kept for result.json: which ranks failed on which files */
            res->errors = (char(*)[IOS_MSG_MAX])all;
        else
            free(all);
    }
}

/* ---- the summary form */

struct node_part {
    struct ios_rank_sketch sketch;
    struct ios_rs_host host;
};

static void merge_node_parts(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    struct node_part *a = in, *b = inout;
    for (int i = 0; i < *len; i++) {
        ios_rank_sketch_merge(&b[i].sketch, &a[i].sketch);
        ios_rs_host_merge(&b[i].host, &a[i].host);
    }
}

static void merge_sketches(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    struct ios_rank_sketch *a = in, *b = inout;
    for (int i = 0; i < *len; i++)
        ios_rank_sketch_merge(&b[i], &a[i]);
}

/* --rank-detail-full: rank 0 writes every rank's row, asking CHUNK ranks at a time so that
 * neither its memory nor its unexpected-message queue grows with the rank count. */
#define FULL_CHUNK 1024
static void stream_full_file(struct ios_run *run, struct ios_phase_result *res,
                             const struct ios_rs_rank *mine, double t0)
{
    int go = 0;
    if (run->rank != 0) {
        MPI_Recv(&go, 1, MPI_INT, 0, 21, ios_test_comm, MPI_STATUS_IGNORE);
        if (go)
            MPI_Send(mine, (int)sizeof *mine, MPI_BYTE, 0, 22, ios_test_comm);
        return;
    }
    struct ios_rank_file *file = ios_rank_file_open(run, res);
    go = file != NULL;
    struct ios_rs_rank *chunk = malloc(FULL_CHUNK * sizeof *chunk);
    MPI_Request *reqs = malloc(FULL_CHUNK * sizeof *reqs);
    if (!chunk || !reqs)
        ios_fatal("out of memory (per-rank file)");
    for (int from = 0; from < run->size; from += FULL_CHUNK) {
        int to = from + FULL_CHUNK < run->size ? from + FULL_CHUNK : run->size;
        for (int r = from; r < to; r++)
            if (r != 0)
                MPI_Send(&go, 1, MPI_INT, r, 21, ios_test_comm);
        if (!go)
            continue;
        for (int r = from; r < to; r++) {
            if (r == 0) {
                chunk[0] = *mine;
                reqs[0] = MPI_REQUEST_NULL;
            } else
                MPI_Irecv(&chunk[r - from], (int)sizeof *chunk, MPI_BYTE, r, 22, ios_test_comm,
                          &reqs[r - from]);
        }
        /* one MPI_Wait each, not MPI_Waitall(..., MPI_STATUSES_IGNORE): MPICH defines that as
         * (MPI_Status *)1, which GCC's -Wstringop-overflow reads as an empty array */
        for (int i = 0; i < to - from; i++)
            MPI_Wait(&reqs[i], MPI_STATUS_IGNORE);
        for (int r = from; r < to; r++)
            ios_rank_file_row(file, &chunk[r - from], t0);
    }
    free(chunk);
    free(reqs);
    if (file && ios_rank_file_close(file) == 0)
        ios_rank_file_name(res->phase, res->summary->full_file, sizeof res->summary->full_file);
    else
        fprintf(stderr, "ioscore-suite: WARNING: cannot write the per-rank file of %s\n",
                res->phase->name);
}

/* Rank 0 receives the first failed rank's message (every rank knows which one it is). */
static void first_error(struct ios_run *run, struct ios_phase_ctx *ctx, int64_t first_failed)
{
    MPI_Bcast(&first_failed, 1, MPI_INT64_T, 0, ios_test_comm);
    if (first_failed == INT64_MAX)
        return;
    char msg[IOS_MSG_MAX];
    memcpy(msg, ctx->error, sizeof msg);
    if (first_failed != 0) {
        if (run->rank == first_failed)
            MPI_Send(ctx->error, IOS_MSG_MAX, MPI_CHAR, 0, 23, ios_test_comm);
        else if (run->rank == 0)
            MPI_Recv(msg, IOS_MSG_MAX, MPI_CHAR, (int)first_failed, 23, ios_test_comm,
                     MPI_STATUS_IGNORE);
    }
    if (run->rank == 0) {
        struct ios_phase_result *res = ctx->res;
        msg[IOS_MSG_MAX - 1] = 0;
        ios_phase_invalidate(res, "I/O errors on %d rank(s); first: %.200s", res->failed_ranks,
                             msg);
    }
}

static void gather_summary(struct ios_run *run, struct ios_phase_ctx *ctx)
{
    struct ios_phase_result *res = ctx->res;
    double t0 = 0;
    MPI_Allreduce(&ctx->mine.start, &t0, 1, MPI_DOUBLE, MPI_MIN, ios_test_comm);
    struct ios_rs_rank mine;
    memset(&mine, 0, sizeof mine);
    mine.rank = run->rank;
    mine.rate = ios_rank_rate(&ctx->mine, ctx->phase->metric);
    snprintf(mine.host, sizeof mine.host, "%s", run->host);
    mine.stats = ctx->mine;
    ios_latency_summarize(&ctx->instr.lat, &mine.lat);

    /* each host's ranks into its leader, then the leaders into rank 0 (src/core/placement.c) */
    MPI_Comm host = run->node_comm, leaders = run->leaders_comm;
    struct node_part *part = malloc(sizeof *part), *node = malloc(sizeof *node);
    if (!part || !node)
        ios_fatal("out of memory (rank sketch)");
    ios_rank_sketch_init(&part->sketch, t0);
    ios_rank_sketch_add(&part->sketch, &mine);
    ios_rs_host_init(&part->host, run->host);
    ios_rs_host_add(&part->host, &mine);
    MPI_Datatype part_type, sketch_type;
    MPI_Op part_op, sketch_op;
    MPI_Type_contiguous((int)sizeof *part, MPI_BYTE, &part_type);
    MPI_Type_commit(&part_type);
    MPI_Type_contiguous((int)sizeof part->sketch, MPI_BYTE, &sketch_type);
    MPI_Type_commit(&sketch_type);
    MPI_Op_create(merge_node_parts, 1, &part_op);
    MPI_Op_create(merge_sketches, 1, &sketch_op);
    MPI_Reduce(part, node, 1, part_type, part_op, 0, host);
    if (leaders != MPI_COMM_NULL) {
        int n_leaders = 0;
        MPI_Comm_size(leaders, &n_leaders);
        if (run->rank == 0) {
            res->summary = calloc(1, sizeof *res->summary);
            res->summary->hosts = calloc((size_t)n_leaders, sizeof *res->summary->hosts);
            if (!res->summary || !res->summary->hosts)
                ios_fatal("out of memory (rank summary)");
        }
        MPI_Reduce(&node->sketch, run->rank == 0 ? &res->summary->sketch : NULL, 1, sketch_type,
                   sketch_op, 0, leaders);
        MPI_Gather(&node->host, (int)sizeof node->host, MPI_BYTE,
                   run->rank == 0 ? res->summary->hosts : NULL, (int)sizeof node->host, MPI_BYTE, 0,
                   leaders);
        if (run->rank == 0)
            res->summary->n_hosts = ios_rs_hosts_normalize(res->summary->hosts, n_leaders);
    }
    MPI_Op_free(&part_op);
    MPI_Op_free(&sketch_op);
    MPI_Type_free(&part_type);
    MPI_Type_free(&sketch_type);
    free(part);
    free(node);

    int64_t first_failed = INT64_MAX;
    if (run->rank == 0) {
        ios_rank_summary_attach(res, res->summary, run->size);
        first_failed = res->summary->sketch.totals.first_failed;
    }

    /* the time series: the aggregate only */
    int len = ctx->ts.n, max_len = 0;
    MPI_Allreduce(&len, &max_len, 1, MPI_INT, MPI_MAX, ios_test_comm);
    uint64_t *buckets = calloc((size_t)(max_len ? max_len : 1), sizeof *buckets);
    if (!buckets)
        ios_fatal("out of memory (time series)");
    if (len > 0)
        memcpy(buckets, ctx->ts.buckets, (size_t)len * sizeof *buckets);
    if (run->rank == 0) {
        res->ts_len = max_len;
        res->ts_per_rank = NULL;
        res->ts_aggregate = calloc((size_t)(max_len ? max_len : 1), sizeof(uint64_t));
        if (!res->ts_aggregate)
            ios_fatal("out of memory (time series)");
    }
    if (max_len > 0)
        MPI_Reduce(buckets, res->ts_aggregate, max_len, MPI_UINT64_T, MPI_SUM, 0, ios_test_comm);
    free(buckets);

    first_error(run, ctx, first_failed);
    if (run->rank_detail_full)
        stream_full_file(run, res, &mine, t0);
}

/* Both forms: the latency histograms of the phase and of each of its seconds, merged over
 * every rank through the per-host reduction; fixed-size messages whatever the rank count. */
static void gather_latency(struct ios_run *run, struct ios_phase_ctx *ctx)
{
    struct ios_phase_result *res = ctx->res;
    ios_latency_reduce(&ctx->instr.lat, &res->latency, 1, run->node_comm, run->leaders_comm);
    res->lat_series_len = ios_lat_series_reduce(&ctx->instr.series, run->node_comm,
                                                run->leaders_comm, &res->lat_series);
}

static int summary_form(const struct ios_run *run)
{
    int threshold =
        run->rank_detail_threshold > 0 ? run->rank_detail_threshold : IOS_RANK_DETAIL_THRESHOLD;
    return run->size > threshold;
}

static void compute_score(struct ios_phase_ctx *ctx, const struct ios_rank_totals *t)
{
    struct ios_phase_result *res = ctx->res;
    double min_start = t->min_start, max_end = t->max_end, max_span = t->max_span;
    double bytes = t->bytes, items = t->items;
    res->items = items;
    res->bytes = bytes;
    res->verify_errors = t->verify_errors;
    res->items_at_deadline_max = t->at_deadline_max;
    res->items_at_deadline_sum = t->at_deadline_sum;
    res->wearout_items = t->wearout_items;
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

/* Validity checks of BENCHMARK-RULES §2.6 for one phase (rank 0). */
static void check_phase(const struct ios_run *run, struct ios_phase_ctx *ctx,
                        const struct ios_rank_totals *t)
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
            double t_ior = t->max_end - t->min_start;
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
    if (summary_form(run))
        gather_summary(run, ctx);
    else
        gather_full(run, ctx);
    gather_latency(run, ctx);
    if (run->rank == 0) {
        struct ios_rank_totals totals = ios_phase_totals(res);
        compute_score(ctx, &totals);
        check_phase(run, ctx, &totals);
    }
    MPI_Bcast(&res->score, 1, MPI_DOUBLE, 0, ios_test_comm);
    MPI_Bcast(&res->valid, 1, MPI_INT, 0, ios_test_comm);
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
