/* Latency histogram: the log-linear layout, the relative error bound of every reported
 * percentile against the exact one over nine decades, and merge = histogram of the union. */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "ioscore/instrument.h"

/* xorshift64*: deterministic pseudo-random values */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t next_u64(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Dull;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Nearest-rank quantile of sorted values, in seconds. */
static double exact_quantile(const uint64_t *sorted, size_t n, double q)
{
    size_t rank = (size_t)ceil(q * (double)n - 1e-9);
    if (rank == 0)
        rank = 1;
    return (double)sorted[rank - 1] * 1e-9;
}

static void test_layout(void)
{
    /* every bucket holds the integers low .. high-1, contiguous, and the index agrees */
    for (int b = 0; b + 1 < IOS_LAT_BUCKETS; b++) {
        CHECK(ios_latency_bucket_high(b) == ios_latency_bucket_low(b + 1));
        uint64_t lo = ios_latency_bucket_low(b), hi = ios_latency_bucket_high(b);
        CHECK(ios_latency_bucket(lo) == b && ios_latency_bucket(hi - 1) == b);
        /* the bucket's width is at most 1/IOS_LAT_SUB of its lower bound (exact below) */
        CHECK(lo < 2 * IOS_LAT_SUB ? hi - lo == 1 : (double)(hi - lo) <= (double)lo / IOS_LAT_SUB);
    }
    CHECK(ios_latency_bucket(0) == 0);
    CHECK(ios_latency_bucket(UINT64_MAX) == IOS_LAT_BUCKETS - 1);
    CHECK(ios_latency_bucket(1ull << IOS_LAT_TOP_EXP) == IOS_LAT_BUCKETS - 1);
    CHECK(ios_latency_bucket((1ull << IOS_LAT_TOP_EXP) - 1) == IOS_LAT_BUCKETS - 1);
    CHECK(IOS_LAT_REL_ERROR <= 0.01);
    /* the fixed size merged over any number of ranks: about 18 KiB */
    CHECK(sizeof(struct ios_latency) < 20 * 1024);
}

/* Random values log-uniform over 10 ns .. 100 s: every percentile within the bound. */
static void test_error_bound(void)
{
    enum { N = 200000 };
    uint64_t *v = malloc(N * sizeof *v);
    struct ios_latency *lat = calloc(1, sizeof *lat);
    if (!v || !lat)
        abort();
    for (size_t i = 0; i < N; i++) {
        double u = (double)(next_u64() >> 11) / 9007199254740992.0;
        v[i] = (uint64_t)llround(pow(10.0, 1.0 + 10.0 * u));
        ios_latency_add(lat, v[i]);
    }
    qsort(v, N, sizeof *v, cmp_u64);
    CHECK(lat->ops == N && lat->max_ns == v[N - 1]);
    double worst = 0;
    for (int k = 1; k < 10000; k += 7) {
        double q = k / 10000.0;
        double got = ios_latency_quantile(lat, q), want = exact_quantile(v, N, q);
        worst = fmax(worst, fabs(got - want) / want);
    }
    struct ios_latency_summary s;
    ios_latency_summarize(lat, &s);
    for (int k = 0; k < IOS_LAT_QUANTILES; k++) {
        double want = exact_quantile(v, N, ios_lat_quantiles[k]);
        worst = fmax(worst, fabs(s.q[k] - want) / want);
    }
    CHECK(worst <= IOS_LAT_REL_ERROR);
    CHECK(s.max == (double)v[N - 1] * 1e-9);
    for (int k = 1; k < IOS_LAT_QUANTILES; k++)
        CHECK(s.q[k - 1] <= s.q[k]);
    CHECK(s.q[IOS_LAT_QUANTILES - 1] <= s.max);
    printf("worst relative error over 1,428 quantiles of 200,000 values: %.5f (bound %.5f)\n",
           worst, IOS_LAT_REL_ERROR);
    free(v);
    free(lat);
}

static int near(double a, double b)
{
    return fabs(a - b) <= 1e-12 * fabs(b);
}

/* Small values are exact; the max caps a percentile. */
static void test_small_and_max(void)
{
    struct ios_latency lat;
    memset(&lat, 0, sizeof lat);
    for (uint64_t ns = 1; ns <= 100; ns++)
        ios_latency_add(&lat, ns);
    CHECK(near(ios_latency_quantile(&lat, 0.5), 50e-9));
    CHECK(near(ios_latency_quantile(&lat, 0.99), 99e-9));
    CHECK(near(ios_latency_quantile(&lat, 1.0), 100e-9));
    memset(&lat, 0, sizeof lat);
    ios_latency_add(&lat, 1000001); /* bucket midpoint above the only value: capped */
    CHECK(near(ios_latency_quantile(&lat, 0.5), 1000001e-9));
    struct ios_latency_summary s;
    memset(&lat, 0, sizeof lat);
    ios_latency_summarize(&lat, &s);
    CHECK(s.ops == 0 && s.q[0] == 0 && s.max == 0);
}

/* Merging two histograms gives exactly the histogram of the union of their values. */
static void test_merge(void)
{
    struct ios_latency *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b),
                       *all = calloc(1, sizeof *all);
    if (!a || !b || !all)
        abort();
    for (int i = 0; i < 50000; i++) {
        uint64_t x = next_u64() % 5000000, y = 1000 + next_u64() % 100000000;
        ios_latency_add(a, x);
        ios_latency_add(all, x);
        ios_latency_add(b, y);
        ios_latency_add(all, y);
    }
    ios_latency_merge(a, b);
    CHECK(memcmp(a, all, sizeof *a) == 0);
    free(a);
    free(b);
    free(all);
}

/* The per-second series: seconds grow on demand, the last one takes everything after. */
static void test_series(void)
{
    struct ios_lat_series s;
    memset(&s, 0, sizeof s);
    ios_lat_series_add(&s, 0, 100);
    ios_lat_series_add(&s, 40, 200);
    ios_lat_series_add(&s, 40, 300);
    ios_lat_series_add(&s, IOS_LAT_SERIES_MAX + 5, 7);
    CHECK(s.n == IOS_LAT_SERIES_MAX);
    CHECK(s.sec[0].ops == 1 && s.sec[1].ops == 0 && s.sec[40].ops == 2 && s.sec[40].max_ns == 300);
    CHECK(s.sec[IOS_LAT_SERIES_MAX - 1].ops == 1);
    ios_lat_series_free(&s);
    CHECK(s.sec == NULL && s.n == 0);
}

/* A phase's first operations find their latency seconds made: allocating and zeroing them
 * inside the timing would add to the first operation's time (most of a one-item phase). */
static void test_series_made_before_timing(void)
{
    struct ios_instrument_cfg cfg = {.enabled = 1, .delay_rank = -1};
    struct ios_instrument in;
    ios_instrument_start(&in, &cfg, 0, "phase");
    CHECK(in.series.cap >= 16 && in.series.sec != NULL && in.series.n == 0);
    struct ios_latency *before = in.series.sec;
    for (int sec = 0; sec < 16; sec++)
        ios_lat_series_add(&in.series, sec, 1000);
    CHECK(in.series.sec == before && in.series.n == 16 && in.series.sec[15].ops == 1);
    ios_lat_series_free(&in.series);
    cfg.enabled = 0; /* IOSCORE_NO_INSTRUMENTATION: nothing made */
    ios_instrument_start(&in, &cfg, 0, "phase");
    CHECK(in.series.cap == 0 && in.series.sec == NULL);
}

int main(void)
{
    test_layout();
    test_error_bound();
    test_small_and_max();
    test_merge();
    test_series();
    test_series_made_before_timing();
    return check_finish();
}
