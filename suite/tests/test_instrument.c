/* Latency histogram: power-of-two bucket boundaries, percentiles, exact max. */
#include <math.h>

#include "check.h"
#include "ioscore/instrument.h"

static int close_rel(double a, double b)
{
    return fabs(a - b) <= 1e-12 * fabs(b);
}

int main(void)
{
    struct ios_latency lat;
    memset(&lat, 0, sizeof lat);
    /* bucket b holds (2^(b-1), 2^b] ns */
    ios_latency_add(&lat, 0);
    ios_latency_add(&lat, 1);
    CHECK(lat.count[0] == 2);
    ios_latency_add(&lat, 2);
    CHECK(lat.count[1] == 1);
    ios_latency_add(&lat, 3);
    ios_latency_add(&lat, 4);
    CHECK(lat.count[2] == 2);
    ios_latency_add(&lat, 5);
    CHECK(lat.count[3] == 1);
    ios_latency_add(&lat, UINT64_MAX);
    CHECK(lat.count[IOS_LAT_BUCKETS - 1] == 1);
    CHECK(lat.ops == 7);
    CHECK(lat.max_ns == UINT64_MAX);
    CHECK(close_rel(ios_latency_bucket_le(10), 1024e-9));

    /* 98 ops of 1000 ns (bucket 10, le 1.024 us), 2 of 1 ms (bucket 20, le 1.048576 ms) */
    struct ios_latency_summary s;
    memset(&lat, 0, sizeof lat);
    for (int i = 0; i < 98; i++)
        ios_latency_add(&lat, 1000);
    ios_latency_add(&lat, 1000000);
    ios_latency_add(&lat, 999999);
    ios_latency_summarize(&lat, &s);
    CHECK(s.ops == 100);
    CHECK(close_rel(s.p50, 1024e-9));
    CHECK(close_rel(s.p90, 1024e-9));
    CHECK(close_rel(s.p99, 1e-3)); /* bucket bound 1.048576 ms, capped at the exact max */
    CHECK(close_rel(s.max, 1e-3));
    CHECK(s.p50 <= s.p90 && s.p90 <= s.p99 && s.p99 <= s.max);

    memset(&lat, 0, sizeof lat);
    ios_latency_summarize(&lat, &s);
    CHECK(s.ops == 0 && s.p50 == 0 && s.max == 0);
    return check_finish();
}
