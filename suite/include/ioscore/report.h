/*
 * Report files written by rank 0 from the gathered phase results: result.txt and
 * result_summary.txt line by line as phases finish, because their order is the order of events
 * (src/report/result_txt.c), per-rank CSVs (BENCHMARK-RULES §5.5), the per-phase text logs and
 * result.json (schema suite/schema/ioscore-result-1.schema.json).
 */
#ifndef IOSCORE_REPORT_H
#define IOSCORE_REPORT_H

#include "ioscore/run.h"

/* Opens config-orig.ini, config.ini, result_summary.txt and result.txt with its [run] part. */
void ios_report_open(struct ios_run *run);
/* One result.txt line (rank 0, when open). */
void ios_result_line(const struct ios_run *run, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* "key             = value" in result.txt. */
void ios_result_key(const struct ios_run *run, const char *key, const char *value);
/* The end of a phase: its result.txt keys, reasons and score, its summary line, its CSVs and
 * text log. */
void ios_report_phase(const struct ios_run *run, const struct ios_phase_result *res);
/* The [SCORE] section and the summary's score line. */
void ios_report_scores(const struct ios_run *run);
/* Closes result.txt and result_summary.txt. */
void ios_report_close(struct ios_run *run);

/* <resdir>/<phase>.csv in the IOR or mdtest layout. Returns 0 or -errno. */
int ios_report_csv(const struct ios_run *run, const struct ios_phase_result *res);
/* <phase>-timeseries.csv: the 1 s buckets of result.json in long format. */
int ios_report_timeseries_csv(const struct ios_run *run, const struct ios_phase_result *res);
/* <phase>-latency.csv: the per-second latency percentiles of result.json as a table. */
int ios_report_latency_csv(const struct ios_run *run, const struct ios_phase_result *res);

/* <resdir>/<phase>.txt: parameters, per-rank table and the IOR/mdtest-style summary lines. */
int ios_report_log(const struct ios_run *run, const struct ios_phase_result *res);

/* Rewrites <resdir>/result.json from the current state (atomically). Returns 0 or -errno. */
int ios_report_json(const struct ios_run *run);

#endif
