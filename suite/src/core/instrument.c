/*
 * Operation latency histograms, the test-only straggler delay and rank 0's live progress
 * (contract in include/ioscore/instrument.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ioscore/instrument.h"

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
    MPI_Comm_dup(MPI_COMM_WORLD, &cfg->comm);
}

void ios_instrument_cfg_free(struct ios_instrument_cfg *cfg)
{
    if (cfg->comm != MPI_COMM_NULL && cfg->comm != 0)
        MPI_Comm_free(&cfg->comm);
}

void ios_instrument_start(struct ios_instrument *in, const struct ios_instrument_cfg *cfg, int rank,
                          const char *phase)
{
    memset(in, 0, sizeof *in);
    in->cfg = cfg;
    in->rank = rank;
    in->phase = phase;
    in->delay = cfg && cfg->delay_rank == rank && cfg->delay_us > 0;
    in->req = MPI_REQUEST_NULL;
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
    if (!in->cfg || !in->cfg->progress)
        return;
    /* Ranks may have started different numbers of reductions; the k-th reductions match on the
     * private communicator, so everyone catches up to the largest count, then waits. */
    int mine = in->started, most = 0;
    MPI_Allreduce(&mine, &most, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
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

double ios_latency_bucket_le(int b)
{
    return ldexp(1.0, b) * 1e-9;
}

static double percentile(const struct ios_latency *lat, double q)
{
    /* the smallest bucket holding the ceil(q * ops)-th operation */
    uint64_t rank = (uint64_t)ceil(q * (double)lat->ops), seen = 0;
    if (rank == 0)
        rank = 1;
    double max = (double)lat->max_ns * 1e-9;
    for (int b = 0; b < IOS_LAT_BUCKETS; b++) {
        seen += lat->count[b];
        if (seen >= rank)
            return fmin(ios_latency_bucket_le(b), max);
    }
    return max;
}

void ios_latency_summarize(const struct ios_latency *lat, struct ios_latency_summary *out)
{
    memset(out, 0, sizeof *out);
    out->ops = lat->ops;
    if (lat->ops == 0)
        return;
    out->p50 = percentile(lat, 0.50);
    out->p90 = percentile(lat, 0.90);
    out->p99 = percentile(lat, 0.99);
    out->max = (double)lat->max_ns * 1e-9;
}

void ios_latency_reduce(const struct ios_latency *mine, struct ios_latency *merged)
{
    memset(merged, 0, sizeof *merged);
    MPI_Reduce(mine->count, merged->count, IOS_LAT_BUCKETS, MPI_UINT64_T, MPI_SUM, 0,
               MPI_COMM_WORLD);
    MPI_Reduce(&mine->ops, &merged->ops, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&mine->max_ns, &merged->max_ns, 1, MPI_UINT64_T, MPI_MAX, 0, MPI_COMM_WORLD);
}
