/*
 * The scheduler's steps, each in its own file (used by src/core/run.c only):
 *   gather.c   gathering of per-rank numbers, scores and validity (BENCHMARK-RULES §2.6, §3)
 *   datadir.c  the data directory: creation with its marker, final cleanup, --cleanup
 */
#ifndef IOSCORE_RUN_STEPS_H
#define IOSCORE_RUN_STEPS_H

#include "ioscore/run.h"

/* After a phase ran on every rank: gathers its numbers to rank 0, scores it and checks its
 * validity there; every rank learns the score and the verdict. */
void ios_gather_phase(struct ios_run *run, struct ios_phase_ctx *ctx);
/* At the end of the run: invalid phases invalidate the run; BW, MD, SCORE and the hash. */
void ios_score_run(struct ios_run *run);

/* Rank 0 creates the result and data directories and the marker; fatal (exit 2) on failure. */
void ios_datadir_prepare(struct ios_run *run);
/* After a scored run, on every rank: every phase's cleanup, then the marker and datadir. */
void ios_datadir_cleanup(struct ios_run *run);

#endif
