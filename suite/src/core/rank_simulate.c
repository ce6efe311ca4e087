/*
 * Synthetic ranks for the scale test and the scale benchmark: 100,000 ranks on
 * 1,000 hosts go through the same sketches, merges and writers as a real run's summary form,
 * in one process and without MPI traffic, so that their output and rank 0's memory can be
 * checked and measured without a big machine.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ioscore/rank_summary.h"

#define SIM_T0 1000.0 /* rank 0 starts first, at this wall-clock time */

/* splitmix64: a well-mixed deterministic value per (rank, stream) */
static double uniform(int64_t rank, uint64_t stream)
{
    uint64_t z = (uint64_t)rank * 0x9E3779B97F4A7C15ull + stream * 0xD1B54A32D192ED03ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)(z >> 11) / 9007199254740992.0; /* [0, 1) */
}

static int64_t per_host(int64_t n, int hosts)
{
    return hosts > 0 ? (n + hosts - 1) / hosts : n;
}

void ios_rank_synthetic(int64_t rank, int64_t n, int hosts, enum ios_metric metric,
                        struct ios_rs_rank *out)
{
    memset(out, 0, sizeof *out);
    int host = (int)(rank / per_host(n, hosts));
    out->rank = (int32_t)rank;
    snprintf(out->host, sizeof out->host, "sim%05d", host);
    struct ios_rank_stats *s = &out->stats;
    s->bytes = (double)(64ll << 20) * (double)(1 + rank % 3);
    s->items = s->bytes / (1 << 20);
    double speed = 1e9 * (0.5 + uniform(rank, 1)); /* bytes/s */
    if (host == hosts / 2)
        speed *= 0.25; /* a slow host */
    if (rank % 9973 == 17)
        speed *= 0.05; /* stragglers */
    s->start = rank == 0 ? SIM_T0 : SIM_T0 + 0.05 * uniform(rank, 2);
    s->loop_start = s->start;
    s->end = s->start + s->bytes / speed;
    s->first_done = s->start + 0.9 * (s->end - s->start);
    s->loop_end = s->end;
    s->end_before_barrier = s->end;
    out->rate = ios_rank_rate(s, metric);
    /* every operation of a rank takes the same time: 1 ms times 1 .. 4 */
    double op_s = 1e-3 * (double)(1 + rank % 4);
    out->lat.ops = (uint64_t)s->items;
    for (int k = 0; k < IOS_LAT_QUANTILES; k++)
        out->lat.q[k] = op_s;
    out->lat.max = op_s;
}

/* A synthetic rank's operations into a histogram, all at once. */
static void add_latency(struct ios_latency *lat, const struct ios_rs_rank *r)
{
    uint64_t ns = (uint64_t)llround(r->lat.max * 1e9);
    lat->count[ios_latency_bucket(ns)] += r->lat.ops;
    lat->ops += r->lat.ops;
    if (ns > lat->max_ns)
        lat->max_ns = ns;
}

void ios_rank_simulate_phase(int64_t n, int hosts, const struct ios_phase *p,
                             struct ios_phase_result *res)
{
    struct ios_rank_summary *sum = calloc(1, sizeof *sum);
    struct ios_rank_sketch *node = malloc(sizeof *node);
    struct ios_latency *node_lat = malloc(sizeof *node_lat);
    if (hosts < 1)
        hosts = 1;
    if (sum)
        sum->hosts = calloc((size_t)hosts, sizeof *sum->hosts);
    if (!sum || !node || !node_lat || !sum->hosts)
        ios_fatal("out of memory (simulation)");
    /* the earliest start (the real run's MPI_Allreduce) */
    double t0 = INFINITY;
    struct ios_rs_rank r;
    for (int64_t k = 0; k < n; k++) {
        ios_rank_synthetic(k, n, hosts, p->metric, &r);
        t0 = fmin(t0, r.stats.start);
    }
    ios_rank_sketch_init(&sum->sketch, t0);
    int64_t per = per_host(n, hosts);
    int used = 0;
    for (int h = 0; h < hosts && (int64_t)h * per < n; h++, used++) {
        ios_rank_sketch_init(node, t0);
        memset(node_lat, 0, sizeof *node_lat);
        for (int64_t k = (int64_t)h * per; k < n && k < (int64_t)(h + 1) * per; k++) {
            ios_rank_synthetic(k, n, hosts, p->metric, &r);
            if (k == (int64_t)h * per)
                ios_rs_host_init(&sum->hosts[h], r.host);
            ios_rank_sketch_add(node, &r);
            ios_rs_host_add(&sum->hosts[h], &r);
            add_latency(node_lat, &r);
        }
        ios_rank_sketch_merge(&sum->sketch, node);
        ios_latency_merge(&res->latency, node_lat); /* the leaders' reduction */
    }
    free(node);
    free(node_lat);
    sum->n_hosts = ios_rs_hosts_normalize(sum->hosts, used);
    res->phase = p;
    res->ran = 1;
    res->valid = 1;
    const struct ios_rank_totals *t = &sum->sketch.totals;
    res->items = t->items;
    res->bytes = t->bytes;
    res->t_start = t->min_start;
    res->t_end = t->max_end;
    res->t_delta = t->max_end - t->min_start;
    res->score = p->metric == IOS_METRIC_BW && res->t_delta > 0
                     ? t->bytes / res->t_delta / 1073741824.0
                     : (t->max_span > 0 ? t->items / t->max_span / 1000.0 : 0);
    ios_rank_summary_attach(res, sum, (int)n);
}
