/*
 * Instrumentation of the phases' hot loops (src/core/instrument.c):
 *   - a latency histogram of every I/O or metadata operation: 64 power-of-two nanosecond
 *     buckets per rank, fixed size, no allocation; merged over ranks at the phase end;
 *   - the test-only straggler switch (--debug-delay-rank R --debug-delay-us N);
 *   - live progress on rank 0's stderr from non-blocking reductions of a counter snapshot,
 *     started at most once a second between operations (no per-operation communication).
 * Phases bracket each operation with ios_op_begin()/ios_op_end(). The environment variable
 * IOSCORE_NO_INSTRUMENTATION=1 (bench only: bench/instrumentation_overhead.py) turns the
 * latency clock and the progress reductions off.
 */
#ifndef IOSCORE_INSTRUMENT_H
#define IOSCORE_INSTRUMENT_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

/* Bucket b counts operations with latency in (2^(b-1), 2^b] ns (b = 0: <= 1 ns). Reported
 * percentiles are the upper bound of their bucket (capped at the exact max): within 2x. */
#define IOS_LAT_BUCKETS 64

struct ios_latency {
    uint64_t count[IOS_LAT_BUCKETS];
    uint64_t ops;
    uint64_t max_ns;
};

/* Summary of a histogram: percentiles and max in seconds. */
struct ios_latency_summary {
    uint64_t ops;
    double p50, p90, p99, max;
};

/* Run-wide settings, identical on every rank. */
struct ios_instrument_cfg {
    int enabled;       /* 0 with IOSCORE_NO_INSTRUMENTATION=1 */
    int progress;      /* live progress on rank 0 (off with --quiet) */
    int delay_rank;    /* --debug-delay-rank, -1 if unset */
    long delay_us;     /* --debug-delay-us */
    MPI_Comm comm;     /* duplicate of MPI_COMM_WORLD for the progress reductions */
    int stderr_is_tty; /* rank 0: one updating line instead of plain lines */
};

/* Per-phase, per-rank state. */
struct ios_instrument {
    const struct ios_instrument_cfg *cfg;
    int rank;
    int delay; /* this rank sleeps delay_us before each operation */
    struct ios_latency lat;
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

static inline void ios_latency_add(struct ios_latency *lat, uint64_t ns)
{
    int b = ns <= 1 ? 0 : 64 - __builtin_clzll(ns - 1);
    if (b >= IOS_LAT_BUCKETS)
        b = IOS_LAT_BUCKETS - 1;
    lat->count[b]++;
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

static inline void ios_op_end(struct ios_instrument *in, uint64_t t0)
{
    if (!in->cfg || !in->cfg->enabled)
        return;
    uint64_t now = ios_now_ns();
    ios_latency_add(&in->lat, now - t0);
    if (in->t0_ns)
        ios_instrument_tick(in, now);
}

/* Upper bound of bucket b in seconds. */
double ios_latency_bucket_le(int b);
/* Percentiles of a (merged) histogram. */
void ios_latency_summarize(const struct ios_latency *lat, struct ios_latency_summary *out);
/* Merges every rank's histogram into `merged` on rank 0 (MPI_Reduce on MPI_COMM_WORLD). */
void ios_latency_reduce(const struct ios_latency *mine, struct ios_latency *merged);

#endif
