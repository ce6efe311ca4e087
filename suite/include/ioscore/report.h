/*
 * Report files written by rank 0 from the gathered phase results: per-rank CSVs (spec §5.5),
 * the per-phase text logs and result.json (schema suite/schema/ioscore-result-1.schema.json).
 * result.txt and result_summary.txt are written line by line by the scheduler as phases
 * finish (src/core/run.c), because their order is the order of events.
 */
#ifndef IOSCORE_REPORT_H
#define IOSCORE_REPORT_H

#include "ioscore/run.h"

/* <resdir>/<phase>.csv in the IOR or mdtest layout. Returns 0 or -errno. */
int ios_report_csv(const struct ios_run *run, const struct ios_phase_result *res);
/* <phase>-timeseries.csv: the 1 s buckets of result.json in long format. */
int ios_report_timeseries_csv(const struct ios_run *run, const struct ios_phase_result *res);

/* <resdir>/<phase>.txt: parameters, per-rank table and the IOR/mdtest-style summary lines. */
int ios_report_log(const struct ios_run *run, const struct ios_phase_result *res);

/* Rewrites <resdir>/result.json from the current state (atomically). Returns 0 or -errno. */
int ios_report_json(const struct ios_run *run);

#endif
