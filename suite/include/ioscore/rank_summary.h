/*
 * The bounded per-rank summary of a phase (result.json "rank_summary"): above the
 * rank-detail threshold rank 0 never holds every rank's numbers. Each rank's numbers go into a
 * mergeable sketch (fixed log-bin histograms for the quantiles, the K slowest and K fastest
 * ranks, the totals the score needs) and into its host's aggregate; node leaders merge their
 * node's ranks and the leaders' sketches are reduced to rank 0 (src/core/gather.c), so rank 0's
 * memory is O(hosts + bins + K), not O(ranks). Everything here is MPI-free so that the unit
 * test and the simulation (tests/test_rank_summary.c, src/tools/ioscore-simulate-ranks.c)
 * feed synthetic ranks through the same code.
 */
#ifndef IOSCORE_RANK_SUMMARY_H
#define IOSCORE_RANK_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#include "ioscore/json.h"
#include "ioscore/phase.h"

#define IOS_RANK_DETAIL_THRESHOLD 4096 /* default: above it result.json has the summary form */
#define IOS_RS_K 16                    /* slowest and fastest ranks named */
/* Quantile bins: a value v = m * 2^e (0.5 <= m < 1) with EMIN <= e < EMAX falls in one of SUB
 * linear mantissa bins of its power of two; the bin midpoint is within 1/(2*SUB) = 0.78 % of
 * any value in the bin. Smaller values (below 2^-21, about 0.5 us or 0.5 B/s) count as 0;
 * larger ones (above 2^43, 8.8e12) as the top bin. p0 and p100 are exact. */
#define IOS_RS_SUB 64
#define IOS_RS_EMIN (-20)
#define IOS_RS_EMAX 44
#define IOS_RS_BINS ((IOS_RS_EMAX - IOS_RS_EMIN) * IOS_RS_SUB + 1) /* bin 0: zero */
#define IOS_RS_REL_ERROR (1.0 / (2.0 * IOS_RS_SUB))
#define IOS_RS_HIST_MAX 32 /* buckets of the rate histogram in result.json */

/* The summarised fields, in result.json's "quantiles" order. */
enum ios_rs_field { IOS_RS_RATE, IOS_RS_START, IOS_RS_FIRST_DONE, IOS_RS_END, IOS_RS_FIELDS };
extern const char *const ios_rs_field_names[IOS_RS_FIELDS];
#define IOS_RS_QUANTILES 9
extern const int ios_rs_quantile_pct[IOS_RS_QUANTILES]; /* 0 1 5 25 50 75 95 99 100 */

/* One rank as a named rank of result.json (times absolute; the writers subtract t0). */
struct ios_rs_rank {
    int32_t rank;
    int32_t pad;
    double rate; /* bytes or items per second of its own span, as result.json's "rate" */
    char host[IOS_HOST_MAX];
    struct ios_rank_stats stats;
    struct ios_latency_summary lat;
};

/* The sums, extremes and counts the score and validity rules need (src/core/gather.c). */
struct ios_rank_totals {
    int64_t ranks, failed;
    int64_t first_failed; /* lowest failed rank, INT64_MAX if none */
    double min_start, max_end, min_span, max_span;
    double min_loop, max_loop;  /* loop_end - loop_start */
    double max_open, max_close; /* loop_start - start, end - loop_end (IOR's open/close) */
    double min_items;           /* the fewest items of a rank (what every rank did) */
    double items, bytes, verify_errors;
    double at_deadline_max, at_deadline_sum, wearout_items;
};

/* A host's aggregate ("hosts" of the summary). */
struct ios_rs_host {
    char host[IOS_HOST_MAX];
    int64_t ranks;
    double items, bytes, rate_sum, rate_min, rate_max, start_min, end_max;
};

struct ios_rank_sketch {
    double t0; /* the phase's earliest start: histogram times are relative to it */
    struct ios_rank_totals totals;
    double min[IOS_RS_FIELDS], max[IOS_RS_FIELDS];
    uint32_t bins[IOS_RS_FIELDS][IOS_RS_BINS];
    int32_t n_slow, n_fast;
    struct ios_rs_rank slow[IOS_RS_K]; /* slowest first (rate ascending, then rank) */
    struct ios_rs_rank fast[IOS_RS_K]; /* fastest first (rate descending, then rank descending) */
};

/* What result.json's summary form holds of a phase (rank 0, after the reductions). */
struct ios_rank_summary {
    struct ios_rank_sketch sketch;
    int n_hosts;
    struct ios_rs_host *hosts; /* sorted by name */
    char full_file[128];       /* --rank-detail-full: the per-rank file's name in resdir, or "" */
};

/* Per-rank rate as result.json reports it: bytes (bandwidth phases) or items per second. */
double ios_rank_rate(const struct ios_rank_stats *s, enum ios_metric metric);

void ios_rank_totals_init(struct ios_rank_totals *t);
/* Adds rank `rank`'s numbers; adding ranks in rank order gives the same sums as always. */
void ios_rank_totals_add(struct ios_rank_totals *t, int64_t rank, const struct ios_rank_stats *s);
void ios_rank_totals_merge(struct ios_rank_totals *into, const struct ios_rank_totals *from);
/* A gathered phase's totals over all its ranks, in either form (rank 0). */
struct ios_rank_totals ios_phase_totals(const struct ios_phase_result *res);

void ios_rank_sketch_init(struct ios_rank_sketch *sk, double t0);
void ios_rank_sketch_add(struct ios_rank_sketch *sk, const struct ios_rs_rank *r);
void ios_rank_sketch_merge(struct ios_rank_sketch *into, const struct ios_rank_sketch *from);

void ios_rs_host_init(struct ios_rs_host *h, const char *host);
void ios_rs_host_add(struct ios_rs_host *h, const struct ios_rs_rank *r);
void ios_rs_host_merge(struct ios_rs_host *into, const struct ios_rs_host *from);
/* Sorts hosts by name and merges equal names; returns the new count. */
int ios_rs_hosts_normalize(struct ios_rs_host *hosts, int n);

/* The bin of a value and the value a bin stands for (its midpoint; 0 for bin 0). */
int ios_rs_bin(double v);
double ios_rs_bin_value(int bin);
double ios_rs_bin_low(int bin);
double ios_rs_bin_high(int bin);
/* Nearest-rank quantile pct (0..100) of a field: exact at 0 and 100, else within
 * IOS_RS_REL_ERROR (values below 2^-21: absolute error below 2^-21). */
double ios_rank_sketch_quantile(const struct ios_rank_sketch *sk, enum ios_rs_field f, int pct);

/* The named ranks: the union of the slowest and fastest, sorted by rank. Returns the count
 * (<= 2K) written to out. */
int ios_rank_sketch_named(const struct ios_rank_sketch *sk, struct ios_rs_rank *out);

/* Rank 0's view of a summarised phase: res takes sum and keeps its named ranks in ranks, hosts,
 * lat_ranks and rank_ids (the arrays the reports read), with procs ranks in all. */
void ios_rank_summary_attach(struct ios_phase_result *res, struct ios_rank_summary *sum, int procs);

/* ---- simulation without a big machine (src/core/rank_simulate.c) */

/* Rank `rank` of `n` synthetic ranks block-mapped on `hosts` hosts ("sim<h>"): a spread of
 * rates with a slow host and a few stragglers, deterministic per rank. */
void ios_rank_synthetic(int64_t rank, int64_t n, int hosts, enum ios_metric metric,
                        struct ios_rs_rank *out);
/* What rank 0 holds after gathering a phase of n synthetic ranks in the summary form: every
 * host's ranks go through its own sketch and host aggregate (the host leader's reduction),
 * the hosts' sketches are merged (the leaders' reduction) and their aggregates collected. */
void ios_rank_simulate_phase(int64_t n, int hosts, const struct ios_phase *p,
                             struct ios_phase_result *res);

/* Rank 0's view of a summarised phase: res takes sum and keeps its named ranks in ranks, hosts,
 * lat_ranks and rank_ids (the arrays the reports read), with procs ranks in all. */
void ios_rank_summary_attach(struct ios_phase_result *res, struct ios_rank_summary *sum, int procs);

/* ---- simulation without a big machine (src/core/rank_simulate.c) */

/* Rank `rank` of `n` synthetic ranks block-mapped on `hosts` hosts ("sim<h>"): a spread of
 * rates with a slow host and a few stragglers, deterministic per rank. */
void ios_rank_synthetic(int64_t rank, int64_t n, int hosts, enum ios_metric metric,
                        struct ios_rs_rank *out);
/* What rank 0 holds after gathering a phase of n synthetic ranks in the summary form: every
 * host's ranks go through its own sketch and host aggregate (the host leader's reduction),
 * the hosts' sketches are merged (the leaders' reduction) and their aggregates collected. */
void ios_rank_simulate_phase(int64_t n, int hosts, const struct ios_phase *p,
                             struct ios_phase_result *res);

/* --rank-detail-full: ranks-<phase>.csv.gz (ranks-<phase>.csv without zlib) in resdir, written
 * row by row by rank 0 (src/report/rank_file.c). */
struct ios_run;
struct ios_rank_file;
void ios_rank_file_name(const struct ios_phase *p, char *buf, size_t len);
struct ios_rank_file *ios_rank_file_open(const struct ios_run *run,
                                         const struct ios_phase_result *res);
void ios_rank_file_row(struct ios_rank_file *f, const struct ios_rs_rank *r, double t0);
int ios_rank_file_close(struct ios_rank_file *f); /* 0 or -1 */

/* result.json's "rank_summary" object (member "rank_summary" of the open phase object). */
void ios_rank_summary_json(struct ios_json *j, const struct ios_rank_summary *sum);

/* The rank-detail options of the IO500 run and of the acceptance subcommands:
 * --rank-detail-threshold N (also =N) and --rank-detail-full. Returns how many arguments arg
 * (and next) used, 0 when arg is not one of them, -1 with the reason in err. */
struct ios_rank_detail_opts {
    int threshold; /* 0: IOS_RANK_DETAIL_THRESHOLD */
    int full;
};
int ios_rank_detail_option(struct ios_rank_detail_opts *o, const char *arg, const char *next,
                           char *err, size_t err_len);
/* The same for a command-line parser at argv[*i]: 1 when it was one (*i then at the last
 * word it used), 0 when not, -1 after printing "PROGRAM: ERROR: reason" on rank 0. */
int ios_rank_detail_arg(struct ios_rank_detail_opts *o, int argc, char **argv, int *i,
                        const char *program, int rank);

#endif
