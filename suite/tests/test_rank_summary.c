/*
 * The summary form at scale without a big machine: 100,000 synthetic ranks on 1,000
 * hosts through the sketches, host aggregates and merges (ios_rank_simulate_phase, the code the
 * node leaders and rank 0 run), checked against exact values computed here from every rank:
 * quantiles within the stated error, the slowest and fastest ranks exact, per-host sums exact,
 * totals exact; merging in another order gives the same sketch; the JSON writer's output.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ioscore/json.h"
#include "ioscore/rank_summary.h"
#include "ioscore/run.h"

#define N 100000
#define HOSTS 1000

static struct ios_rs_rank all[N];
static double values[IOS_RS_FIELDS][N];

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int cmp_slow(const void *a, const void *b)
{
    const struct ios_rs_rank *x = a, *y = b;
    if (x->rate != y->rate)
        return x->rate < y->rate ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* nearest rank, as the sketch defines it */
static double exact_quantile(const double *sorted, int n, int pct)
{
    if (pct <= 0)
        return sorted[0];
    long k = (long)ceil(pct / 100.0 * n);
    if (k < 1)
        k = 1;
    return sorted[k > n ? n - 1 : k - 1];
}

static void test_bins(void)
{
    CHECK(ios_rs_bin(0) == 0);
    CHECK(ios_rs_bin(-1) == 0);
    CHECK(ios_rs_bin(NAN) == 0);
    CHECK(ios_rs_bin(1e-9) == 0); /* below 2^-21 */
    CHECK(ios_rs_bin(1e300) == IOS_RS_BINS - 1);
    int ok = 1;
    for (double v = 1e-6; v < 1e12; v *= 1.013) {
        int b = ios_rs_bin(v);
        ok &= ios_rs_bin_low(b) <= v && v < ios_rs_bin_high(b);
        ok &= fabs(ios_rs_bin_value(b) - v) <= IOS_RS_REL_ERROR * v;
    }
    CHECK(ok);
    for (int b = 1; b + 1 < IOS_RS_BINS; b++)
        ok &= ios_rs_bin_high(b) == ios_rs_bin_low(b + 1);
    CHECK(ok);
}

static void test_small_named(void)
{
    /* fewer ranks than 2K: every rank is named once, sorted by rank */
    struct ios_rank_sketch *sk = malloc(sizeof *sk);
    ios_rank_sketch_init(sk, 1000.0);
    struct ios_rs_rank r;
    for (int k = 9; k >= 0; k--) {
        ios_rank_synthetic(k, 10, 2, IOS_METRIC_BW, &r);
        if (k == 7 || k == 3)
            r.stats.io_error = -5; /* EIO */
        ios_rank_sketch_add(sk, &r);
    }
    CHECK(sk->totals.failed == 2 && sk->totals.first_failed == 3);
    struct ios_rs_rank named[2 * IOS_RS_K];
    int n = ios_rank_sketch_named(sk, named);
    CHECK(n == 10);
    int sorted = 1;
    for (int i = 0; i < n; i++)
        sorted &= named[i].rank == i;
    CHECK(sorted);
    CHECK(sk->n_slow == 10 && sk->n_fast == 10);
    CHECK(sk->slow[0].rate <= sk->slow[9].rate && sk->fast[0].rate >= sk->fast[9].rate);
    free(sk);
}

/* What the acceptance tables need of every rank (IOR's open/close columns, the fewest items
 * a -k manifest records): merged totals equal the totals of all ranks added at once. */
static void test_totals_for_acceptance(void)
{
    struct ios_rank_totals all_t, a, b;
    ios_rank_totals_init(&all_t);
    ios_rank_totals_init(&a);
    ios_rank_totals_init(&b);
    for (int k = 0; k < 8; k++) {
        struct ios_rank_stats s = {.start = 10,
                                   .loop_start = 10 + 0.1 * k,
                                   .loop_end = 20,
                                   .end = 20 + (k == 5 ? 2.0 : 0.5),
                                   .items = 100 - k};
        ios_rank_totals_add(&all_t, k, &s);
        ios_rank_totals_add(k % 2 ? &a : &b, k, &s);
    }
    ios_rank_totals_merge(&a, &b);
    CHECK(fabs(a.max_open - 0.7) < 1e-12 && a.max_open == all_t.max_open);
    CHECK(a.max_close == 2.0 && all_t.max_close == 2.0);
    CHECK(a.min_items == 93 && all_t.min_items == 93);
}

static void test_detail_option(void)
{
    struct ios_rank_detail_opts o = {0, 0};
    char err[160] = "";
    CHECK(ios_rank_detail_option(&o, "--rank-detail-threshold", "2", err, sizeof err) == 2);
    CHECK(o.threshold == 2 && !o.full);
    CHECK(ios_rank_detail_option(&o, "--rank-detail-threshold=77", NULL, err, sizeof err) == 1);
    CHECK(o.threshold == 77);
    CHECK(ios_rank_detail_option(&o, "--rank-detail-full", "x", err, sizeof err) == 1 && o.full);
    CHECK(ios_rank_detail_option(&o, "--rank-detail-thresholds", "2", err, sizeof err) == 0);
    CHECK(ios_rank_detail_option(&o, "-b", "2", err, sizeof err) == 0);
    CHECK(ios_rank_detail_option(&o, "--rank-detail-threshold", "0", err, sizeof err) == -1);
    CHECK(strstr(err, "got '0'") != NULL);
    CHECK(ios_rank_detail_option(&o, "--rank-detail-threshold", NULL, err, sizeof err) == -1);
    CHECK(ios_rank_detail_option(&o, "--rank-detail-threshold=4k", NULL, err, sizeof err) == -1);
    CHECK(o.threshold == 77); /* unchanged by the refused values */

    /* As the parsers call it: the index ends on the last word used. */
    char *argv[] = {"ior",
                    "--rank-detail-threshold",
                    "5",
                    "--rank-detail-full",
                    "-b",
                    "--rank-detail-threshold=x",
                    "--rank-detail-threshold",
                    NULL};
    int argc = 7, i = 1;
    struct ios_rank_detail_opts p = {0, 0};
    CHECK(ios_rank_detail_arg(&p, argc, argv, &i, "test", 1) == 1 && i == 2 && p.threshold == 5);
    i = 3;
    CHECK(ios_rank_detail_arg(&p, argc, argv, &i, "test", 1) == 1 && i == 3 && p.full);
    i = 4;
    CHECK(ios_rank_detail_arg(&p, argc, argv, &i, "test", 1) == 0 && i == 4);
    i = 5;
    CHECK(ios_rank_detail_arg(&p, argc, argv, &i, "test", 1) == -1 && i == 5);
    i = 6; /* the last word: no value after it */
    CHECK(ios_rank_detail_arg(&p, argc, argv, &i, "test", 1) == -1 && p.threshold == 5);
}

static void test_scale(void)
{
    static const struct ios_phase phase = {.name = "ior-easy-write", .metric = IOS_METRIC_BW};
    struct ios_phase_result res;
    memset(&res, 0, sizeof res);
    ios_rank_simulate_phase(N, HOSTS, &phase, &res);
    const struct ios_rank_summary *sum = res.summary;
    const struct ios_rank_sketch *sk = &sum->sketch;

    /* exact values from every rank */
    double t0 = INFINITY, items = 0, bytes = 0;
    for (int k = 0; k < N; k++) {
        ios_rank_synthetic(k, N, HOSTS, IOS_METRIC_BW, &all[k]);
        t0 = fmin(t0, all[k].stats.start);
        items += all[k].stats.items;
        bytes += all[k].stats.bytes;
    }
    for (int k = 0; k < N; k++) {
        const struct ios_rank_stats *s = &all[k].stats;
        values[IOS_RS_RATE][k] = all[k].rate;
        values[IOS_RS_START][k] = s->start - t0;
        values[IOS_RS_FIRST_DONE][k] = s->first_done - t0;
        values[IOS_RS_END][k] = s->end - t0;
    }
    CHECK(sk->t0 == t0);
    CHECK(sk->totals.ranks == N);
    CHECK(sk->totals.items == items);
    CHECK(sk->totals.bytes == bytes);
    CHECK(res.procs == N);
    CHECK(res.failed_ranks == 0);

    /* quantiles within the stated error (absolute 2^-21 for values that count as 0) */
    int within = 1;
    for (int f = 0; f < IOS_RS_FIELDS; f++) {
        qsort(values[f], N, sizeof(double), cmp_double);
        for (int q = 0; q < IOS_RS_QUANTILES; q++) {
            int pct = ios_rs_quantile_pct[q];
            double exact = exact_quantile(values[f], N, pct);
            double got = ios_rank_sketch_quantile(sk, f, pct);
            double bound = (pct == 0 || pct == 100) ? 0 : IOS_RS_REL_ERROR * exact + ldexp(1, -21);
            if (fabs(got - exact) > bound) {
                within = 0;
                fprintf(stderr, "field %s p%d: %.9g vs exact %.9g\n", ios_rs_field_names[f], pct,
                        got, exact);
            }
        }
    }
    CHECK(within);

    /* the slowest and fastest ranks: exact, in order */
    qsort(all, N, sizeof all[0], cmp_slow);
    int slow_ok = sk->n_slow == IOS_RS_K, fast_ok = sk->n_fast == IOS_RS_K;
    for (int i = 0; i < IOS_RS_K; i++) {
        slow_ok &= sk->slow[i].rank == all[i].rank && sk->slow[i].rate == all[i].rate;
        fast_ok &= sk->fast[i].rank == all[N - 1 - i].rank;
    }
    CHECK(slow_ok);
    CHECK(fast_ok);
    CHECK(strcmp(sk->slow[0].host, all[0].host) == 0);
    /* the named ranks are the phase's per-rank rows, sorted by rank */
    CHECK(res.n_ranks == 2 * IOS_RS_K);
    int sorted = 1;
    for (int i = 1; i < res.n_ranks; i++)
        sorted &= res.rank_ids[i - 1] < res.rank_ids[i];
    CHECK(sorted);

    /* per-host aggregates: exact sums and extremes */
    CHECK(sum->n_hosts == HOSTS);
    int hosts_ok = 1;
    for (int h = 0; h < HOSTS; h++) {
        const struct ios_rs_host *x = &sum->hosts[h];
        double hi = 0, hb = 0, rmin = INFINITY, rmax = 0, rsum = 0;
        int64_t ranks = 0;
        struct ios_rs_rank r;
        for (int k = h * (N / HOSTS); k < (h + 1) * (N / HOSTS); k++) {
            ios_rank_synthetic(k, N, HOSTS, IOS_METRIC_BW, &r);
            ranks++;
            hi += r.stats.items;
            hb += r.stats.bytes;
            rmin = fmin(rmin, r.rate);
            rmax = fmax(rmax, r.rate);
            rsum += r.rate;
        }
        char name[16];
        snprintf(name, sizeof name, "sim%05d", h);
        hosts_ok &= strcmp(x->host, name) == 0 && x->ranks == ranks && x->items == hi &&
                    x->bytes == hb && x->rate_min == rmin && x->rate_max == rmax &&
                    fabs(x->rate_sum - rsum) <= 1e-9 * rsum;
    }
    CHECK(hosts_ok);

    /* merging the hosts in another order (a different reduction tree) gives the same sketch */
    struct ios_rank_sketch *node = malloc(sizeof *node), *total = malloc(sizeof *total);
    ios_rank_sketch_init(total, t0);
    for (int h = HOSTS - 1; h >= 0; h -= 2) {
        ios_rank_sketch_init(node, t0);
        for (int hh = h; hh >= h - 1 && hh >= 0; hh--)
            for (int k = hh * (N / HOSTS); k < (hh + 1) * (N / HOSTS); k++) {
                struct ios_rs_rank r;
                ios_rank_synthetic(k, N, HOSTS, IOS_METRIC_BW, &r);
                ios_rank_sketch_add(node, &r);
            }
        ios_rank_sketch_merge(total, node);
    }
    CHECK(memcmp(total->bins, sk->bins, sizeof sk->bins) == 0);
    int same_top = 1;
    for (int i = 0; i < IOS_RS_K; i++)
        same_top &=
            total->slow[i].rank == sk->slow[i].rank && total->fast[i].rank == sk->fast[i].rank;
    CHECK(same_top);
    CHECK(total->totals.items == sk->totals.items && total->min[0] == sk->min[0]);
    free(node);
    free(total);

    /* the JSON writer: the rank_summary object, bounded in size */
    struct ios_json j;
    ios_json_init(&j);
    ios_json_begin_object(&j, NULL);
    ios_rank_summary_json(&j, sum);
    ios_json_end_object(&j);
    char *text = malloc(j.len + 1); /* without the layout's blanks (no string has one) */
    size_t len = 0;
    for (size_t i = 0; i < j.len; i++)
        if (j.buf[i] != ' ' && j.buf[i] != '\n')
            text[len++] = j.buf[i];
    text[len] = 0;
    CHECK(strstr(text, "\"count\":100000,") != NULL);
    CHECK(strstr(text, "\"host\":\"sim00500\"") != NULL);
    char slowest[64];
    snprintf(slowest, sizeof slowest, "\"slowest\":[%d,", all[0].rank);
    CHECK(strstr(text, slowest) != NULL);
    CHECK(j.len < (size_t)HOSTS * 400 + 8192); /* O(hosts), not O(ranks) */
    int64_t hist = 0;                          /* the histogram's counts add up to every rank */
    const char *counts = strstr(text, "\"counts\":[");
    CHECK(counts != NULL);
    for (const char *c = counts ? counts + 10 : ""; *c && *c != ']';) {
        char *end;
        hist += strtoll(c, &end, 10);
        c = *end == ',' ? end + 1 : end;
    }
    CHECK(hist == N);
    free(text);
    ios_json_free(&j);
}

/* The simulated hosts: block mapping by ppn, round-robin by node count, else the real name. */
static void test_simulated_hosts(void)
{
    char h[IOS_HOST_MAX];
    ios_simulated_host("cn7", 5, 2, 0, h, sizeof h);
    CHECK(strcmp(h, "cn7#node2") == 0);
    ios_simulated_host("cn7", 5, 0, 3, h, sizeof h);
    CHECK(strcmp(h, "cn7#node2") == 0);
    ios_simulated_host("cn7", 6, 0, 3, h, sizeof h);
    CHECK(strcmp(h, "cn7#node0") == 0);
    ios_simulated_host("cn7", 6, 0, 0, h, sizeof h);
    CHECK(strcmp(h, "cn7") == 0);
}

int main(void)
{
    test_simulated_hosts();
    test_bins();
    test_small_named();
    test_totals_for_acceptance();
    test_detail_option();
    test_scale();
    return check_finish();
}
