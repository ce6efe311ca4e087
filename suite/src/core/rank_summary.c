/*
 * Mergeable per-rank sketches of a phase (include/ioscore/rank_summary.h): histograms with
 * fixed log bins, top-K lists, totals and host aggregates. Every merge is associative and
 * commutative, so MPI reductions may combine them in any order and give the same result
 * (up to floating-point summation order of the totals).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ioscore/rank_summary.h"

const char *const ios_rs_field_names[IOS_RS_FIELDS] = {"rate", "start", "first_done", "end"};
const int ios_rs_quantile_pct[IOS_RS_QUANTILES] = {0, 1, 5, 25, 50, 75, 95, 99, 100};

double ios_rank_rate(const struct ios_rank_stats *s, enum ios_metric metric)
{
    double span = s->end - s->start;
    double amount = metric == IOS_METRIC_BW ? s->bytes : s->items;
    return span > 0 ? amount / span : 0.0;
}

/* ---- totals */

void ios_rank_totals_init(struct ios_rank_totals *t)
{
    memset(t, 0, sizeof *t);
    t->first_failed = INT64_MAX;
    t->min_start = INFINITY;
    t->max_end = -INFINITY;
    t->min_span = INFINITY;
    t->min_loop = INFINITY;
    t->min_items = INFINITY;
}

void ios_rank_totals_add(struct ios_rank_totals *t, int64_t rank, const struct ios_rank_stats *s)
{
    t->ranks++;
    if (s->start < t->min_start)
        t->min_start = s->start;
    if (s->end > t->max_end)
        t->max_end = s->end;
    if (s->end - s->start > t->max_span)
        t->max_span = s->end - s->start;
    t->min_span = fmin(t->min_span, s->end - s->start);
    t->min_loop = fmin(t->min_loop, s->loop_end - s->loop_start);
    t->max_loop = fmax(t->max_loop, s->loop_end - s->loop_start);
    t->max_open = fmax(t->max_open, s->loop_start - s->start);
    t->max_close = fmax(t->max_close, s->end - s->loop_end);
    t->min_items = fmin(t->min_items, s->items);
    t->items += s->items;
    t->bytes += s->bytes;
    t->verify_errors += s->verify_errors;
    if (s->items_at_deadline > t->at_deadline_max)
        t->at_deadline_max = s->items_at_deadline;
    t->at_deadline_sum += s->items_at_deadline;
    if (s->hit_deadline)
        t->wearout_items += s->items - s->items_at_deadline;
    if (s->io_error != 0) {
        t->failed++;
        if (rank < t->first_failed)
            t->first_failed = rank;
    }
}

void ios_rank_totals_merge(struct ios_rank_totals *into, const struct ios_rank_totals *from)
{
    into->ranks += from->ranks;
    into->failed += from->failed;
    if (from->first_failed < into->first_failed)
        into->first_failed = from->first_failed;
    into->min_start = fmin(into->min_start, from->min_start);
    into->max_end = fmax(into->max_end, from->max_end);
    into->max_span = fmax(into->max_span, from->max_span);
    into->min_span = fmin(into->min_span, from->min_span);
    into->min_loop = fmin(into->min_loop, from->min_loop);
    into->max_loop = fmax(into->max_loop, from->max_loop);
    into->max_open = fmax(into->max_open, from->max_open);
    into->max_close = fmax(into->max_close, from->max_close);
    into->min_items = fmin(into->min_items, from->min_items);
    into->items += from->items;
    into->bytes += from->bytes;
    into->verify_errors += from->verify_errors;
    into->at_deadline_max = fmax(into->at_deadline_max, from->at_deadline_max);
    into->at_deadline_sum += from->at_deadline_sum;
    into->wearout_items += from->wearout_items;
}

/* Summed in rank order in the full form, reduced over every rank in the summary form. */
struct ios_rank_totals ios_phase_totals(const struct ios_phase_result *res)
{
    if (res->summary)
        return res->summary->sketch.totals;
    struct ios_rank_totals t;
    ios_rank_totals_init(&t);
    for (int r = 0; r < res->n_ranks; r++)
        ios_rank_totals_add(&t, r, &res->ranks[r]);
    return t;
}

/* ---- bins */

int ios_rs_bin(double v)
{
    if (!(v > 0)) /* 0, negative, NaN */
        return 0;
    int e = 0;
    double m = frexp(v, &e); /* v = m * 2^e, 0.5 <= m < 1 */
    if (e < IOS_RS_EMIN)
        return 0;
    if (e >= IOS_RS_EMAX)
        return IOS_RS_BINS - 1;
    int sub = (int)((m - 0.5) * 2.0 * IOS_RS_SUB);
    if (sub >= IOS_RS_SUB)
        sub = IOS_RS_SUB - 1;
    return 1 + (e - IOS_RS_EMIN) * IOS_RS_SUB + sub;
}

double ios_rs_bin_low(int bin)
{
    if (bin <= 0)
        return 0.0;
    int e = IOS_RS_EMIN + (bin - 1) / IOS_RS_SUB, sub = (bin - 1) % IOS_RS_SUB;
    return ldexp(0.5 + sub / (2.0 * IOS_RS_SUB), e);
}

double ios_rs_bin_high(int bin)
{
    if (bin <= 0)
        return ldexp(0.5, IOS_RS_EMIN);
    int e = IOS_RS_EMIN + (bin - 1) / IOS_RS_SUB, sub = (bin - 1) % IOS_RS_SUB;
    return ldexp(0.5 + (sub + 1) / (2.0 * IOS_RS_SUB), e);
}

double ios_rs_bin_value(int bin)
{
    return bin <= 0 ? 0.0 : (ios_rs_bin_low(bin) + ios_rs_bin_high(bin)) / 2.0;
}

/* ---- top-K: in the order (rate, rank), the first K are the slowest and the last K, from the
 * end, the fastest; so the two lists are disjoint whenever there are 2K ranks, even when every
 * rate is equal (the timestamp phase) */

static int slower(const struct ios_rs_rank *a, const struct ios_rs_rank *b)
{
    return a->rate < b->rate || (a->rate == b->rate && a->rank < b->rank);
}

static int faster(const struct ios_rs_rank *a, const struct ios_rs_rank *b)
{
    return a->rate > b->rate || (a->rate == b->rate && a->rank > b->rank);
}

/* Inserts r into the sorted list (at most K) if it belongs there. */
static void topk_insert(struct ios_rs_rank *list, int32_t *n, const struct ios_rs_rank *r,
                        int (*before)(const struct ios_rs_rank *, const struct ios_rs_rank *))
{
    if (*n == IOS_RS_K && !before(r, &list[IOS_RS_K - 1]))
        return;
    int pos = *n < IOS_RS_K ? *n : IOS_RS_K - 1;
    while (pos > 0 && before(r, &list[pos - 1])) {
        list[pos] = list[pos - 1];
        pos--;
    }
    list[pos] = *r;
    if (*n < IOS_RS_K)
        (*n)++;
}

/* ---- sketch */

void ios_rank_sketch_init(struct ios_rank_sketch *sk, double t0)
{
    memset(sk, 0, sizeof *sk);
    sk->t0 = t0;
    ios_rank_totals_init(&sk->totals);
    for (int f = 0; f < IOS_RS_FIELDS; f++) {
        sk->min[f] = INFINITY;
        sk->max[f] = -INFINITY;
    }
}

void ios_rank_sketch_add(struct ios_rank_sketch *sk, const struct ios_rs_rank *r)
{
    const struct ios_rank_stats *s = &r->stats;
    double first_done = s->first_done > 0 ? s->first_done : s->end; /* as result.json says */
    double v[IOS_RS_FIELDS] = {r->rate, s->start - sk->t0, first_done - sk->t0, s->end - sk->t0};
    ios_rank_totals_add(&sk->totals, r->rank, s);
    for (int f = 0; f < IOS_RS_FIELDS; f++) {
        sk->min[f] = fmin(sk->min[f], v[f]);
        sk->max[f] = fmax(sk->max[f], v[f]);
        sk->bins[f][ios_rs_bin(v[f])]++;
    }
    topk_insert(sk->slow, &sk->n_slow, r, slower);
    topk_insert(sk->fast, &sk->n_fast, r, faster);
}

void ios_rank_sketch_merge(struct ios_rank_sketch *into, const struct ios_rank_sketch *from)
{
    ios_rank_totals_merge(&into->totals, &from->totals);
    for (int f = 0; f < IOS_RS_FIELDS; f++) {
        into->min[f] = fmin(into->min[f], from->min[f]);
        into->max[f] = fmax(into->max[f], from->max[f]);
        for (int b = 0; b < IOS_RS_BINS; b++)
            into->bins[f][b] += from->bins[f][b];
    }
    for (int i = 0; i < from->n_slow; i++)
        topk_insert(into->slow, &into->n_slow, &from->slow[i], slower);
    for (int i = 0; i < from->n_fast; i++)
        topk_insert(into->fast, &into->n_fast, &from->fast[i], faster);
}

double ios_rank_sketch_quantile(const struct ios_rank_sketch *sk, enum ios_rs_field f, int pct)
{
    int64_t n = sk->totals.ranks;
    if (n <= 0)
        return 0.0;
    if (pct <= 0)
        return sk->min[f];
    if (pct >= 100)
        return sk->max[f];
    /* nearest rank: the ceil(pct/100 * n)-th smallest value (1-based) */
    int64_t target = (int64_t)ceil((double)pct / 100.0 * (double)n);
    if (target < 1)
        target = 1;
    int64_t seen = 0;
    for (int b = 0; b < IOS_RS_BINS; b++) {
        seen += sk->bins[f][b];
        if (seen >= target)
            return fmin(fmax(ios_rs_bin_value(b), sk->min[f]), sk->max[f]);
    }
    return sk->max[f];
}

static int by_rank(const void *a, const void *b)
{
    int32_t x = ((const struct ios_rs_rank *)a)->rank, y = ((const struct ios_rs_rank *)b)->rank;
    return (x > y) - (x < y);
}

int ios_rank_sketch_named(const struct ios_rank_sketch *sk, struct ios_rs_rank *out)
{
    int n = 0;
    for (int i = 0; i < sk->n_slow; i++)
        out[n++] = sk->slow[i];
    for (int i = 0; i < sk->n_fast; i++) {
        int dup = 0;
        for (int k = 0; k < sk->n_slow && !dup; k++)
            dup = sk->slow[k].rank == sk->fast[i].rank;
        if (!dup)
            out[n++] = sk->fast[i];
    }
    qsort(out, (size_t)n, sizeof *out, by_rank);
    return n;
}

void ios_rank_summary_attach(struct ios_phase_result *res, struct ios_rank_summary *sum, int procs)
{
    struct ios_rs_rank named[2 * IOS_RS_K];
    int n = ios_rank_sketch_named(&sum->sketch, named);
    res->summary = sum;
    res->procs = procs;
    res->failed_ranks = (int)sum->sketch.totals.failed;
    res->n_ranks = n;
    res->ranks = calloc((size_t)n + 1, sizeof *res->ranks);
    res->hosts = calloc((size_t)n + 1, sizeof *res->hosts);
    res->lat_ranks = calloc((size_t)n + 1, sizeof *res->lat_ranks);
    res->rank_ids = calloc((size_t)n + 1, sizeof *res->rank_ids);
    if (!res->ranks || !res->hosts || !res->lat_ranks || !res->rank_ids)
        ios_fatal("out of memory (phase results)");
    for (int i = 0; i < n; i++) {
        res->ranks[i] = named[i].stats;
        memcpy(res->hosts[i], named[i].host, IOS_HOST_MAX);
        res->lat_ranks[i] = named[i].lat;
        res->rank_ids[i] = named[i].rank;
    }
}

/* ---- hosts */

void ios_rs_host_init(struct ios_rs_host *h, const char *host)
{
    memset(h, 0, sizeof *h);
    snprintf(h->host, sizeof h->host, "%s", host);
    h->rate_min = INFINITY;
    h->rate_max = -INFINITY;
    h->start_min = INFINITY;
    h->end_max = -INFINITY;
}

void ios_rs_host_add(struct ios_rs_host *h, const struct ios_rs_rank *r)
{
    h->ranks++;
    h->items += r->stats.items;
    h->bytes += r->stats.bytes;
    h->rate_sum += r->rate;
    h->rate_min = fmin(h->rate_min, r->rate);
    h->rate_max = fmax(h->rate_max, r->rate);
    h->start_min = fmin(h->start_min, r->stats.start);
    h->end_max = fmax(h->end_max, r->stats.end);
}

void ios_rs_host_merge(struct ios_rs_host *into, const struct ios_rs_host *from)
{
    into->ranks += from->ranks;
    into->items += from->items;
    into->bytes += from->bytes;
    into->rate_sum += from->rate_sum;
    into->rate_min = fmin(into->rate_min, from->rate_min);
    into->rate_max = fmax(into->rate_max, from->rate_max);
    into->start_min = fmin(into->start_min, from->start_min);
    into->end_max = fmax(into->end_max, from->end_max);
}

static int by_host(const void *a, const void *b)
{
    return strcmp(((const struct ios_rs_host *)a)->host, ((const struct ios_rs_host *)b)->host);
}

int ios_rs_hosts_normalize(struct ios_rs_host *hosts, int n)
{
    if (n <= 0)
        return 0;
    qsort(hosts, (size_t)n, sizeof *hosts, by_host);
    int out = 0;
    for (int i = 1; i < n; i++) {
        if (strcmp(hosts[i].host, hosts[out].host) == 0)
            ios_rs_host_merge(&hosts[out], &hosts[i]);
        else
            hosts[++out] = hosts[i];
    }
    return out + 1;
}

/* ---- result.json */

static void json_rank_list(struct ios_json *j, const char *key, const struct ios_rs_rank *list,
                           int n)
{
    ios_json_begin_array(j, key);
    for (int i = 0; i < n; i++)
        ios_json_int(j, NULL, list[i].rank);
    ios_json_end_array(j);
}

/* The rate histogram: the fine bins from the lowest to the highest occupied one, grouped into
 * at most IOS_RS_HIST_MAX buckets of equal bin count (so its counts are exact). */
static void json_histogram(struct ios_json *j, const struct ios_rank_sketch *sk)
{
    const uint32_t *bins = sk->bins[IOS_RS_RATE];
    int lo = 0, hi = IOS_RS_BINS - 1;
    while (lo < IOS_RS_BINS && bins[lo] == 0)
        lo++;
    while (hi > lo && bins[hi] == 0)
        hi--;
    ios_json_begin_object(j, "histogram");
    ios_json_begin_object(j, "rate");
    if (lo >= IOS_RS_BINS) { /* no ranks */
        ios_json_begin_array(j, "edges");
        ios_json_end_array(j);
        ios_json_begin_array(j, "counts");
        ios_json_end_array(j);
    } else {
        int span = hi - lo + 1;
        int per = (span + IOS_RS_HIST_MAX - 1) / IOS_RS_HIST_MAX;
        ios_json_begin_array(j, "edges");
        for (int b = lo; b <= hi; b += per)
            ios_json_double(j, NULL, ios_rs_bin_low(b));
        ios_json_double(j, NULL, ios_rs_bin_high(hi));
        ios_json_end_array(j);
        ios_json_begin_array(j, "counts");
        for (int b = lo; b <= hi; b += per) {
            int64_t c = 0;
            for (int k = b; k < b + per && k <= hi; k++)
                c += bins[k];
            ios_json_int(j, NULL, c);
        }
        ios_json_end_array(j);
    }
    ios_json_end_object(j);
    ios_json_end_object(j);
}

void ios_rank_summary_json(struct ios_json *j, const struct ios_rank_summary *sum)
{
    const struct ios_rank_sketch *sk = &sum->sketch;
    ios_json_begin_object(j, "rank_summary");
    ios_json_int(j, "count", sk->totals.ranks);
    ios_json_string(j, "full_file", sum->full_file[0] ? sum->full_file : NULL);
    ios_json_double(j, "quantile_rel_error", IOS_RS_REL_ERROR);
    ios_json_begin_object(j, "quantiles");
    for (int f = 0; f < IOS_RS_FIELDS; f++) {
        ios_json_begin_object(j, ios_rs_field_names[f]);
        for (int q = 0; q < IOS_RS_QUANTILES; q++) {
            char key[8];
            snprintf(key, sizeof key, "p%d", ios_rs_quantile_pct[q]);
            ios_json_double(j, key, ios_rank_sketch_quantile(sk, f, ios_rs_quantile_pct[q]));
        }
        ios_json_end_object(j);
    }
    ios_json_end_object(j);
    json_histogram(j, sk);
    json_rank_list(j, "slowest", sk->slow, sk->n_slow);
    json_rank_list(j, "fastest", sk->fast, sk->n_fast);
    ios_json_begin_array(j, "hosts");
    for (int h = 0; h < sum->n_hosts; h++) {
        const struct ios_rs_host *x = &sum->hosts[h];
        ios_json_begin_object(j, NULL);
        ios_json_string(j, "host", x->host);
        ios_json_int(j, "ranks", x->ranks);
        ios_json_double(j, "items", x->items);
        ios_json_double(j, "bytes", x->bytes);
        ios_json_double(j, "rate_sum", x->rate_sum);
        ios_json_double(j, "rate_min", x->rate_min);
        ios_json_double(j, "rate_max", x->rate_max);
        ios_json_double(j, "start_min", x->start_min - sk->t0);
        ios_json_double(j, "end_max", x->end_max - sk->t0);
        ios_json_end_object(j);
    }
    ios_json_end_array(j);
    ios_json_end_object(j);
}

/* ---- options */

int ios_rank_detail_option(struct ios_rank_detail_opts *o, const char *arg, const char *next,
                           char *err, size_t err_len)
{
    static const char threshold[] = "--rank-detail-threshold";
    if (strcmp(arg, "--rank-detail-full") == 0) {
        o->full = 1;
        return 1;
    }
    size_t n = sizeof threshold - 1;
    if (strncmp(arg, threshold, n) != 0 || (arg[n] != 0 && arg[n] != '='))
        return 0;
    const char *value = arg[n] == '=' ? arg + n + 1 : next;
    char *end = NULL;
    long v = value ? strtol(value, &end, 10) : 0;
    if (!value || end == value || *end || v < 1 || v > 100000000) {
        snprintf(err, err_len, "%s needs a number in 1..100000000, got '%s'", threshold,
                 value ? value : "");
        return -1;
    }
    o->threshold = (int)v;
    return arg[n] == '=' ? 1 : 2;
}

int ios_rank_detail_arg(struct ios_rank_detail_opts *o, int argc, char **argv, int *i,
                        const char *program, int rank)
{
    char why[160];
    int used =
        ios_rank_detail_option(o, argv[*i], *i + 1 < argc ? argv[*i + 1] : NULL, why, sizeof why);
    if (used < 0 && rank == 0)
        fprintf(stderr, "%s: ERROR: %s\n", program, why);
    if (used <= 0)
        return used;
    *i += used - 1;
    return 1;
}
