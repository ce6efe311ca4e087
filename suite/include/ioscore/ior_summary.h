/*
 * What `ioscore-suite ior` prints where IOR prints it (src/acceptance/ior_summary.c): IOR's
 * result document in its three -O summaryFormat layouts (the default text, JSON, CSV) on
 * stdout or in -O summaryFile, and the per-rank CSV of -O saveRankPerformanceDetailsCSV.
 * The values are ioscore's measurements with IOR's meanings (its ReduceIterResults and
 * summary definitions); ioscore's own sections (measurement notes, per-rank tables, log lines)
 * go to ios_ior_out_extra(p), after IOR's document and never inside a line IOR prints.
 *
 * Rank 0 calls everything here (the -O output keys are rows of ior_options.c); in IOR's order:
 * open, header, results_start, per repetition rows and remove, end_results, summary, finish,
 * each with the launch's document (struct ios_ior_doc, in ior_run.c's launch state).
 */
#ifndef IOSCORE_IOR_SUMMARY_H
#define IOSCORE_IOR_SUMMARY_H

#include <stdio.h>

#include "ioscore/acceptance.h"
#include "ioscore/json.h"

/* -O summaryFormat */
enum ios_ior_format { IOS_IOR_TEXT = 0, IOS_IOR_JSON, IOS_IOR_CSV };

/* One row of IOR's results table, by IOR's definitions (its ReduceIterResults). */
struct ios_ior_row {
    double mib, iops, latency, open, io, close, total, bytes, ops_total;
    double sw_time, sw_bytes;
};

/* One operation's rows over the repetitions (the summary table's input). */
struct ios_ior_series {
    const char *access;
    int n;
    struct ios_ior_row rows[IOS_IOR_MAX_REPS];
};

/* Rank 0's IOR document of one launch, in progress (zeroed before ios_ior_out_open). */
struct ios_ior_doc {
    FILE *out; /* IOR's result stream: stdout or the -O summaryFile */
    int format, tasks;
    int json_open;
    struct ios_json j;
};

/* Before any I/O: opens the summary file and starts the per-rank CSV (truncated, IOR's header).
 * 0, or -1 after printing the error. */
int ios_ior_out_open(struct ios_ior_doc *d, const struct ios_ior_params *p);

/* Where ioscore's own lines and IOR's log lines go: stdout, or stderr when stdout carries a
 * JSON or CSV document (every rank may call it). */
FILE *ios_ior_out_extra(const struct ios_ior_params *p);

/* IOR's stonewall lines with -O stoneWallingWearOut=1 (every rank calls it; the per-rank line
 * from -v on): each rank's transfers when it stopped, and over the ranks (rank 0's `all`). */
struct ios_ior_stonewall {
    double min_pairs, max_pairs, min_bytes, mean_bytes, time; /* time: rank 0's, to the stop */
};
void ios_ior_out_stonewall(const struct ios_ior_params *p, int rank, double pairs,
                           const struct ios_ior_stonewall *all);

/* IOR's header, test start and options; then (after any ioscore lines about the setup) the
 * results table's heading. */
void ios_ior_out_header(struct ios_ior_doc *d, const struct ios_run *run,
                        const struct ios_ior_params *p, int collective, int32_t seed);
void ios_ior_out_results_start(struct ios_ior_doc *d);
/* A row of the results table; a remove row (-v, without -k) with its time. */
void ios_ior_out_row(struct ios_ior_doc *d, const char *access, const struct ios_ior_row *row,
                     const struct ios_ior_params *p, int iter);
void ios_ior_out_remove(struct ios_ior_doc *d, const struct ios_ior_params *p, double seconds,
                        int iter);
/* After the repetitions: closes the results, and at -v prints IOR's Max Write/Max Read. */
void ios_ior_out_end_results(struct ios_ior_doc *d, const struct ios_ior_params *p,
                             const struct ios_ior_series *write, const struct ios_ior_series *read);
/* IOR's "Summary of all tests" of the write and read series. */
void ios_ior_out_summary(struct ios_ior_doc *d, const struct ios_run *run,
                         const struct ios_ior_params *p, const struct ios_ior_series *series,
                         int n_series);
/* IOR's last line ("Finished"); writes a JSON document out and closes the summary file. */
void ios_ior_out_finish(struct ios_ior_doc *d);

/* -O saveRankPerformanceDetailsCSV: one access's rows, from every rank's time with and without
 * open/close (2 per rank, by rank) and the bytes all ranks moved. */
void ios_ior_out_rank_times(const struct ios_ior_params *p, const char *access, const double *times,
                            int nranks, double agg_bytes);

#endif
