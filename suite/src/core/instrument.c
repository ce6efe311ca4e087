/*
 * Operation latency histograms, the test-only straggler delay and rank 0's live progress
 * (contract in include/ioscore/instrument.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ioscore/instrument.h"
#include "ioscore/util.h"

#define NS_PER_S 1000000000ull
#define PROGRESS_INTERVAL_NS NS_PER_S /* a new reduction at most once a second */
#define TEST_INTERVAL_NS 10000000ull  /* MPI_Test at most every 10 ms: keeps the loop cheap */

uint64_t ios_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

void ios_instrument_cfg_init(struct ios_instrument_cfg *cfg, int rank, int quiet, int delay_rank,
                             long delay_us)
{
    memset(cfg, 0, sizeof *cfg);
    const char *off = getenv("IOSCORE_NO_INSTRUMENTATION");
    cfg->enabled = !(off && *off && strcmp(off, "0") != 0);
    cfg->progress = cfg->enabled && !quiet;
    cfg->delay_rank = delay_rank;
    cfg->delay_us = delay_us;
    cfg->stderr_is_tty = rank == 0 && isatty(STDERR_FILENO);
    const char *trace = getenv("IOSCORE_LATENCY_TRACE");
    cfg->trace = cfg->enabled && trace && *trace ? trace : NULL;
    MPI_Comm_dup(ios_test_comm, &cfg->comm);
}

void ios_instrument_cfg_free(struct ios_instrument_cfg *cfg)
{
    if (cfg->comm != MPI_COMM_NULL && cfg->comm != 0)
        MPI_Comm_free(&cfg->comm);
}

static void series_reserve(struct ios_lat_series *s, int n);

/* Seconds of latency series made before a phase's timing starts: their first allocation and
 * zeroing (tens of KiB) would otherwise land in the first operation's time, and in a short
 * phase (mdtest's one-directory tree) be most of the phase. */
#define SERIES_RESERVED_SECONDS 16

void ios_instrument_start(struct ios_instrument *in, const struct ios_instrument_cfg *cfg, int rank,
                          const char *phase)
{
    memset(in, 0, sizeof *in);
    in->cfg = cfg;
    in->rank = rank;
    in->phase = phase;
    in->delay = cfg && cfg->delay_rank == rank && cfg->delay_us > 0;
    in->req = MPI_REQUEST_NULL;
    if (cfg && cfg->enabled)
        series_reserve(&in->series, SERIES_RESERVED_SECONDS);
    if (cfg && cfg->trace) {
        char path[4096];
        snprintf(path, sizeof path, "%s.%s.%d", cfg->trace, phase, rank);
        in->trace = fopen(path, "w");
        if (!in->trace)
            fprintf(stderr, "ioscore-suite: WARNING: cannot write the latency trace %s\n", path);
    }
}

void ios_instrument_trace(struct ios_instrument *in, int sec, uint64_t ns)
{
    fprintf(in->trace, "%d %llu\n", sec, (unsigned long long)ns);
}

void ios_instrument_progress_start(struct ios_instrument *in, int bandwidth, double deadline_s,
                                   double total_items, const double *items, const double *bytes)
{
    if (!in->cfg || !in->cfg->progress)
        return;
    in->bandwidth = bandwidth;
    in->deadline_s = deadline_s;
    in->total_items = total_items;
    in->items = items;
    in->bytes = bytes;
    in->t0_ns = ios_now_ns();
    in->last_start_ns = in->t0_ns;
}

void ios_instrument_delay(const struct ios_instrument *in)
{
    struct timespec ts = {(time_t)(in->cfg->delay_us / 1000000),
                          (long)(in->cfg->delay_us % 1000000) * 1000};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

static void print_progress(struct ios_instrument *in, uint64_t now)
{
    double elapsed = (double)(now - in->t0_ns) / 1e9;
    double items = in->sum[0], bytes = in->sum[1];
    char rate[48], limit[32] = "", eta[32] = "";
    double t = elapsed > 0 ? elapsed : 1e-9;
    if (in->bandwidth)
        snprintf(rate, sizeof rate, "%.1f MiB/s", bytes / t / 1048576.0);
    else
        snprintf(rate, sizeof rate, "%.3f kIOPS", items / t / 1000.0);
    if (in->deadline_s > 0) {
        snprintf(limit, sizeof limit, "/%.0f", in->deadline_s);
        snprintf(eta, sizeof eta, "  ETA %.0f s", fmax(0.0, in->deadline_s - elapsed));
    } else if (in->total_items > 0 && items > 0) {
        snprintf(eta, sizeof eta, "  ETA %.0f s",
                 fmax(0.0, (in->total_items - items) * elapsed / items));
    }
    if (in->cfg->stderr_is_tty) {
        fprintf(stderr, "\r%s: %.1f%s s  %s  %.0f items%s\033[K", in->phase, elapsed, limit, rate,
                items, eta);
        in->printed_tty = 1;
    } else {
        fprintf(stderr, "ioscore-suite: progress: %s: %.1f%s s  %s  %.0f items%s\n", in->phase,
                elapsed, limit, rate, items, eta);
    }
    fflush(stderr);
    in->lines++;
}

static void start_reduction(struct ios_instrument *in, uint64_t now)
{
    in->snapshot[0] = in->items ? *in->items : 0;
    in->snapshot[1] = in->bytes ? *in->bytes : 0;
    MPI_Ireduce(in->snapshot, in->sum, 2, MPI_DOUBLE, MPI_SUM, 0, in->cfg->comm, &in->req);
    in->pending = 1;
    in->started++;
    in->last_start_ns = now;
}

/* Between operations: completes the outstanding reduction (rank 0 prints it) and starts the
 * next one once a second has passed. MPI_Test is rate-limited so the clock read dominates. */
void ios_instrument_tick(struct ios_instrument *in, uint64_t now)
{
    if (in->pending) {
        if (now - in->last_test_ns < TEST_INTERVAL_NS)
            return;
        in->last_test_ns = now;
        int done = 0;
        MPI_Test(&in->req, &done, MPI_STATUS_IGNORE);
        if (!done)
            return;
        in->pending = 0;
        if (in->rank == 0)
            print_progress(in, now);
    }
    if (now - in->last_start_ns >= PROGRESS_INTERVAL_NS)
        start_reduction(in, now);
}

void ios_instrument_finish(struct ios_instrument *in)
{
    if (in->trace) {
        fclose(in->trace);
        in->trace = NULL;
    }
    if (!in->cfg || !in->cfg->progress)
        return;
    /* Ranks may have started different numbers of reductions; the k-th reductions match on the
     * private communicator, so everyone catches up to the largest count, then waits. */
    int mine = in->started, most = 0;
    MPI_Allreduce(&mine, &most, 1, MPI_INT, MPI_MAX, ios_test_comm);
    if (in->pending)
        MPI_Wait(&in->req, MPI_STATUS_IGNORE);
    in->pending = 0;
    while (in->started < most) {
        start_reduction(in, in->last_start_ns);
        MPI_Wait(&in->req, MPI_STATUS_IGNORE);
        in->pending = 0;
    }
    if (in->rank == 0 && in->printed_tty) {
        fputc('\n', stderr);
        in->printed_tty = 0;
    }
}

const double ios_lat_quantiles[IOS_LAT_QUANTILES] = {0.50, 0.90, 0.99, 0.999, 0.9999};
const char *const ios_lat_quantile_keys[IOS_LAT_QUANTILES] = {"p50", "p90", "p99", "p99_9",
                                                              "p99_99"};

uint64_t ios_latency_bucket_low(int b)
{
    if (b < 2 * IOS_LAT_SUB)
        return (uint64_t)b;
    int shift = b / IOS_LAT_SUB - 1;
    return (uint64_t)(b % IOS_LAT_SUB + IOS_LAT_SUB) << shift;
}

uint64_t ios_latency_bucket_high(int b)
{
    if (b < 2 * IOS_LAT_SUB)
        return (uint64_t)b + 1;
    return ios_latency_bucket_low(b) + (1ull << (b / IOS_LAT_SUB - 1));
}

double ios_latency_bucket_le(int b)
{
    return (double)ios_latency_bucket_high(b) * 1e-9;
}

double ios_latency_bucket_value(int b)
{
    if (b < 2 * IOS_LAT_SUB)
        return (double)b;
    uint64_t low = ios_latency_bucket_low(b);
    uint64_t width = 1ull << (b / IOS_LAT_SUB - 1);
    return (double)low + (double)(width - 1) / 2.0;
}

double ios_latency_quantile(const struct ios_latency *lat, double q)
{
    /* nearest rank: the bucket holding the ceil(q * ops)-th smallest operation */
    uint64_t rank = (uint64_t)ceil(q * (double)lat->ops - 1e-9), seen = 0;
    if (rank == 0)
        rank = 1;
    double max = (double)lat->max_ns;
    for (int b = 0; b < IOS_LAT_BUCKETS; b++) {
        seen += lat->count[b];
        if (seen >= rank)
            return fmin(ios_latency_bucket_value(b), max) * 1e-9;
    }
    return max * 1e-9;
}

void ios_latency_summarize(const struct ios_latency *lat, struct ios_latency_summary *out)
{
    memset(out, 0, sizeof *out);
    out->ops = lat->ops;
    if (lat->ops == 0)
        return;
    for (int k = 0; k < IOS_LAT_QUANTILES; k++)
        out->q[k] = ios_latency_quantile(lat, ios_lat_quantiles[k]);
    out->max = (double)lat->max_ns * 1e-9;
}

void ios_latency_merge(struct ios_latency *into, const struct ios_latency *from)
{
    for (int b = 0; b < IOS_LAT_BUCKETS; b++)
        into->count[b] += from->count[b];
    into->ops += from->ops;
    if (from->max_ns > into->max_ns)
        into->max_ns = from->max_ns;
}

/* Room for seconds 0 .. n-1 (n <= IOS_LAT_SERIES_MAX), the new ones empty. */
static void series_reserve(struct ios_lat_series *s, int n)
{
    if (n <= s->cap)
        return;
    int cap = s->cap ? s->cap : 16;
    while (cap < n)
        cap *= 2;
    if (cap > IOS_LAT_SERIES_MAX)
        cap = IOS_LAT_SERIES_MAX;
    struct ios_latency *bigger = realloc(s->sec, (size_t)cap * sizeof *bigger);
    if (!bigger) {
        fprintf(stderr, "ioscore-suite: ERROR: out of memory (latency time series)\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(bigger + s->cap, 0, (size_t)(cap - s->cap) * sizeof *bigger);
    s->sec = bigger;
    s->cap = cap;
}

void ios_lat_series_add(struct ios_lat_series *s, int sec, uint64_t ns)
{
    if (sec < 0)
        sec = 0;
    if (sec >= IOS_LAT_SERIES_MAX)
        sec = IOS_LAT_SERIES_MAX - 1;
    if (sec >= s->cap)
        series_reserve(s, sec + 1);
    ios_latency_add(&s->sec[sec], ns);
    if (sec + 1 > s->n)
        s->n = sec + 1;
}

void ios_lat_series_free(struct ios_lat_series *s)
{
    free(s->sec);
    memset(s, 0, sizeof *s);
}

static void merge_op(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    const struct ios_latency *a = in;
    struct ios_latency *b = inout;
    for (int i = 0; i < *len; i++)
        ios_latency_merge(&b[i], &a[i]);
}

void ios_latency_reduce(const struct ios_latency *mine, struct ios_latency *merged, int n,
                        MPI_Comm node, MPI_Comm leaders)
{
    if (n <= 0)
        return;
    int world = 0;
    MPI_Comm_rank(ios_test_comm, &world);
    MPI_Datatype type;
    MPI_Op op;
    MPI_Type_contiguous((int)sizeof *mine, MPI_BYTE, &type);
    MPI_Type_commit(&type);
    MPI_Op_create(merge_op, 1, &op);
    struct ios_latency *host = NULL;
    if (leaders != MPI_COMM_NULL) {
        host = calloc((size_t)n, sizeof *host);
        if (!host) {
            fprintf(stderr, "ioscore-suite: ERROR: out of memory (latency)\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    MPI_Reduce(mine, host, n, type, op, 0, node);
    if (leaders != MPI_COMM_NULL)
        MPI_Reduce(host, world == 0 ? merged : NULL, n, type, op, 0, leaders);
    free(host);
    MPI_Op_free(&op);
    MPI_Type_free(&type);
}

int ios_lat_series_reduce(struct ios_lat_series *s, MPI_Comm node, MPI_Comm leaders,
                          struct ios_latency_summary **out)
{
    int n = 0, world = 0;
    *out = NULL;
    MPI_Comm_rank(ios_test_comm, &world);
    MPI_Allreduce(&s->n, &n, 1, MPI_INT, MPI_MAX, ios_test_comm);
    if (n == 0)
        return 0;
    series_reserve(s, n); /* every rank sends n seconds; the ones it never reached are empty */
    struct ios_latency *merged = world == 0 ? calloc((size_t)n, sizeof *merged) : NULL;
    if (world == 0 && !merged) {
        fprintf(stderr, "ioscore-suite: ERROR: out of memory (latency time series)\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    ios_latency_reduce(s->sec, merged, n, node, leaders);
    if (world == 0) {
        *out = calloc((size_t)n, sizeof **out);
        if (!*out) {
            fprintf(stderr, "ioscore-suite: ERROR: out of memory (latency time series)\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        for (int k = 0; k < n; k++)
            ios_latency_summarize(&merged[k], &(*out)[k]);
    }
    free(merged);
    return n;
}
