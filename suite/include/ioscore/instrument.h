/*
 * Instrumentation of the phases' hot loops (src/core/instrument.c):
 *   - a latency histogram of every I/O or metadata operation: log-linear nanosecond buckets
 *     (HDR-style, IOS_LAT_SUB per power of two, so a reported percentile is within 1/128 of
 *     the exact one), fixed size, no allocation; merged over ranks at the phase end through
 *     the per-host reduction, and kept per second of the phase for the time series;
 *   - the test-only straggler switch (--debug-delay-rank R --debug-delay-us N);
 *   - live progress on rank 0's stderr from non-blocking reductions of a counter snapshot,
 *     started at most once a second between operations (no per-operation communication).
 * Phases bracket each operation with ios_op_begin()/ios_op_end(). The environment variable
 * IOSCORE_NO_INSTRUMENTATION=1 (bench only: bench/instrumentation_overhead.py) turns the
 * latency clock and the progress reductions off. IOSCORE_LATENCY_TRACE=PREFIX (tests only)
 * writes every timed operation of a phase to PREFIX.<phase>.<rank> as "<second> <ns>" lines
 * (second -1: a failed operation), so that a test can compute the exact percentiles.
 */
#ifndef IOSCORE_INSTRUMENT_H
#define IOSCORE_INSTRUMENT_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

#include "ioscore/util.h"

/* Bucket layout (HDR-style log-linear). Values below 2 * IOS_LAT_SUB ns have a bucket each
 * (exact); above, every power of two [2^e, 2^(e+1)) is cut into IOS_LAT_SUB equal buckets of
 * width 2^(e - IOS_LAT_SUB_BITS). A bucket's midpoint is within 1 / (2 * IOS_LAT_SUB) = 0.78 %
 * of any value in it, which bounds the error of every reported percentile; the max is exact.
 * Values from 2^IOS_LAT_TOP_EXP ns (18 minutes) on count in the last bucket. The array has a
 * fixed size, so merging the histograms of any number of ranks is an element-wise sum. */
#define IOS_LAT_SUB_BITS 6
#define IOS_LAT_SUB (1 << IOS_LAT_SUB_BITS)
#define IOS_LAT_TOP_EXP 40
#define IOS_LAT_BUCKETS ((IOS_LAT_TOP_EXP - IOS_LAT_SUB_BITS + 1) * IOS_LAT_SUB)
#define IOS_LAT_REL_ERROR (1.0 / (2.0 * IOS_LAT_SUB))

struct ios_latency {
    uint64_t count[IOS_LAT_BUCKETS];
    uint64_t ops;
    uint64_t max_ns;
};

/* The reported percentiles, in result.json's order and spelling. */
#define IOS_LAT_QUANTILES 5
extern const double ios_lat_quantiles[IOS_LAT_QUANTILES];          /* 0.5 ... 0.9999 */
extern const char *const ios_lat_quantile_keys[IOS_LAT_QUANTILES]; /* "p50" ... "p99_99" */

/* Summary of a histogram: percentiles (nearest rank) and max in seconds. */
struct ios_latency_summary {
    uint64_t ops;
    double q[IOS_LAT_QUANTILES];
    double max;
};

/* One histogram per second of the phase (the time series' latency). Seconds from
 * IOS_LAT_SERIES_MAX on go into the last one, so a rank holds at most that many. */
#define IOS_LAT_SERIES_MAX 3600
struct ios_lat_series {
    struct ios_latency *sec;
    int n, cap;
};

/* Run-wide settings, identical on every rank. */
struct ios_instrument_cfg {
    int enabled;       /* 0 with IOSCORE_NO_INSTRUMENTATION=1 */
    int progress;      /* live progress on rank 0 (off with --quiet) */
    int delay_rank;    /* --debug-delay-rank, -1 if unset */
    long delay_us;     /* --debug-delay-us */
    MPI_Comm comm;     /* duplicate of MPI_COMM_WORLD for the progress reductions */
    int stderr_is_tty; /* rank 0: one updating line instead of plain lines */
    const char *trace; /* IOSCORE_LATENCY_TRACE, or NULL */
};

/* Per-phase, per-rank state. */
struct ios_instrument {
    const struct ios_instrument_cfg *cfg;
    int rank;
    int delay; /* this rank sleeps delay_us before each operation */
    struct ios_latency lat;
    struct ios_lat_series series; /* per second since the phase start, as the time series */
    FILE *trace;                  /* IOSCORE_LATENCY_TRACE's file of this phase and rank */
    /* progress */
    const char *phase;
    int bandwidth;       /* report MiB/s (1) or kIOPS (0) */
    double deadline_s;   /* stonewall of the phase, 0 if none */
    double total_items;  /* expected items over all ranks, 0 if unknown */
    const double *items; /* this rank's live counters (ctx->mine) */
    const double *bytes;
    uint64_t t0_ns; /* phase loop start (monotonic) */
    uint64_t last_start_ns, last_test_ns;
    int started; /* reductions started in this phase */
    int pending; /* a request is outstanding */
    MPI_Request req;
    double snapshot[2], sum[2];
    int printed_tty; /* a \r line is on the terminal */
    int lines;       /* progress lines printed in this phase (rank 0) */
};

/* Reads IOSCORE_NO_INSTRUMENTATION, duplicates the communicator (collective). */
void ios_instrument_cfg_init(struct ios_instrument_cfg *cfg, int rank, int quiet, int delay_rank,
                             long delay_us);
void ios_instrument_cfg_free(struct ios_instrument_cfg *cfg);

/* Resets the per-phase state; progress starts with ios_instrument_progress_start(). */
void ios_instrument_start(struct ios_instrument *in, const struct ios_instrument_cfg *cfg, int rank,
                          const char *phase);
/* Called by a phase right before its operation loop. */
void ios_instrument_progress_start(struct ios_instrument *in, int bandwidth, double deadline_s,
                                   double total_items, const double *items, const double *bytes);
/* Completes every outstanding progress reduction (collective; before the closing barrier). */
void ios_instrument_finish(struct ios_instrument *in);

uint64_t ios_now_ns(void);
void ios_instrument_delay(const struct ios_instrument *in);
void ios_instrument_tick(struct ios_instrument *in, uint64_t now_ns);

static inline int ios_latency_bucket(uint64_t ns)
{
    if (ns < 2 * IOS_LAT_SUB)
        return (int)ns;
    int e = 63 - __builtin_clzll(ns);
    if (e >= IOS_LAT_TOP_EXP)
        return IOS_LAT_BUCKETS - 1;
    int shift = e - IOS_LAT_SUB_BITS;
    return shift * IOS_LAT_SUB + (int)(ns >> shift);
}

static inline void ios_latency_add(struct ios_latency *lat, uint64_t ns)
{
    lat->count[ios_latency_bucket(ns)]++;
    lat->ops++;
    if (ns > lat->max_ns)
        lat->max_ns = ns;
}

/* Brackets one operation: the debug delay counts as part of its latency. */
static inline uint64_t ios_op_begin(struct ios_instrument *in)
{
    uint64_t t0 = in->cfg && in->cfg->enabled ? ios_now_ns() : 0;
    if (in->delay)
        ios_instrument_delay(in);
    return t0;
}

/* Returns the operation's latency in ns (0 when instrumentation is off); *end_ns is the
 * monotonic time it ended (0 when the clock was not read). */
static inline uint64_t ios_op_end(struct ios_instrument *in, uint64_t t0, uint64_t *end_ns)
{
    *end_ns = 0;
    if (!in->cfg || !in->cfg->enabled)
        return 0;
    uint64_t now = ios_now_ns();
    *end_ns = now;
    uint64_t ns = now - t0;
    ios_latency_add(&in->lat, ns);
    if (in->t0_ns)
        ios_instrument_tick(in, now);
    return ns;
}

/*
 * An operation loop's clock: wall-clock seconds from the monotonic reading an operation's
 * latency already took, so each operation reads the clock twice (start, end), not three
 * times; on a virtual machine one read costs about a tenth of a 4 KiB pread from page cache.
 * Realtime is read once when the loop starts; the loop's seconds then follow the monotonic
 * clock, which a clock adjustment cannot step.
 */
struct ios_loop_clock {
    double wall0;
    uint64_t ns0;
};

static inline struct ios_loop_clock ios_loop_clock_start(void)
{
    struct ios_loop_clock c;
    c.ns0 = ios_now_ns();
    c.wall0 = ios_wtime();
    return c;
}

/* Wall-clock seconds at monotonic time ns; ns 0 (not read): now. */
static inline double ios_loop_wtime(const struct ios_loop_clock *c, uint64_t ns)
{
    if (ns == 0)
        ns = ios_now_ns();
    return c->wall0 + (double)(int64_t)(ns - c->ns0) * 1e-9;
}

/* Records an operation's latency ns in the trace file (sec -1: it failed). */
void ios_instrument_trace(struct ios_instrument *in, int sec, uint64_t ns);

/* Counts a completed operation's latency into second `sec` of the phase. */
void ios_lat_series_add(struct ios_lat_series *s, int sec, uint64_t ns);
void ios_lat_series_free(struct ios_lat_series *s);

/* Bounds of bucket b in ns: it holds the integers low .. high - 1 (the last one also every
 * larger value). */
uint64_t ios_latency_bucket_low(int b);
uint64_t ios_latency_bucket_high(int b);
/* Upper bound of bucket b in seconds (result.json's "le"). */
double ios_latency_bucket_le(int b);
/* The value (ns) a bucket reports: its midpoint. */
double ios_latency_bucket_value(int b);
/* Nearest-rank quantile q (0 < q <= 1) in seconds, capped at the exact max. */
double ios_latency_quantile(const struct ios_latency *lat, double q);
/* Percentiles of a (merged) histogram. */
void ios_latency_summarize(const struct ios_latency *lat, struct ios_latency_summary *out);
/* Adds `from` into `into` (the histogram of the union of their operations). */
void ios_latency_merge(struct ios_latency *into, const struct ios_latency *from);
/*
 * Merges n histograms per rank element-wise into `merged` (n of them) on rank 0 of
 * MPI_COMM_WORLD: first each host's ranks into its leader (node), then the leaders into rank 0
 * (leaders, MPI_COMM_NULL on the other ranks) -- the route of the per-rank summary
 * (src/core/gather.c). The messages are n fixed-size histograms whatever the rank count.
 */
void ios_latency_reduce(const struct ios_latency *mine, struct ios_latency *merged, int n,
                        MPI_Comm node, MPI_Comm leaders);
/* Reduces every rank's per-second histograms the same way (collective): rank 0 gets the
 * summary of each second in *out (malloc'd; NULL elsewhere). Returns the number of seconds. */
int ios_lat_series_reduce(struct ios_lat_series *s, MPI_Comm node, MPI_Comm leaders,
                          struct ios_latency_summary **out);

#endif
