/*
 * The IOR transfer engine (src/core/xfer_engine.c), shared by the IO500 IOR phases
 * (src/phases/ior.c) and `ioscore-suite ior` (src/acceptance/ior_run.c): one file opened with
 * the phase's backend, a loop of equal transfers (pattern stamped per transfer on writes,
 * verified on reads) under the stonewall with wear-out, fsync inside the timing, close, and
 * the per-rank times the engine's gathering expects (start, loop_start, first_done, loop_end,
 * end). Callers only say where the data is and in which order.
 */
#ifndef IOSCORE_XFER_H
#define IOSCORE_XFER_H

#include <stdint.h>

#include "ioscore/run.h"

struct ios_xfer_job;

typedef uint64_t (*ios_xfer_offset_fn)(const struct ios_xfer_job *job, uint64_t i);
typedef void (*ios_xfer_hook_fn)(struct ios_phase_ctx *ctx, struct ios_xfer_job *job);

struct ios_xfer_job {
    /* what the caller sets */
    char path[IOS_PATH_MAX];
    int write;             /* else read */
    int shared;            /* one file for every rank (IOS_OPEN_SHARED, collective lockstep) */
    int target;            /* the rank whose data is accessed: the pattern of a verified read */
    uint64_t xfer;         /* bytes per transfer */
    uint64_t count;        /* transfers of this rank */
    double deadline;       /* s after the loop start, 0 = none (the stonewall) */
    double min_time;       /* s: repeat the count transfers until the loop ran this long */
    int wearout;           /* after the deadline, go on to the busiest rank's count */
    int fsync;             /* write: fsync inside the timing */
    int fsync_per_write;   /* write: fsyncs after every transfer, inside the timing */
    int barriers;          /* a barrier after the open and after the loop (IOR -g) */
    int remove_first;      /* write: remove the old file first (IOR unless -E) */
    int verify;            /* read: compare every transfer with the target's pattern */
    double progress_total; /* items of all ranks for the live progress, 0 = unknown */
    enum ios_packet packet;
    ios_xfer_offset_fn offset;    /* file offset of transfer i */
    void *arg;                    /* the caller's state for offset and the hooks */
    ios_xfer_hook_fn opened;      /* after a successful open, before the barrier, or NULL */
    ios_xfer_hook_fn stonewalled; /* deadline > 0: after the wear-out, in the timing, or NULL */
    /* what the engine fills */
    int64_t handle;
    int open_ok;
    unsigned long long max_pairs;  /* deadline > 0: the busiest rank's count at the deadline */
    double open_done, close_start; /* this rank's: after its open, before its close (after the
                                      -g barriers around the loop: IOR's open and close timers) */
};

/* Runs the job on every rank (collective: barriers, the deadline reduction, shared opens). */
void ios_xfer_run(struct ios_phase_ctx *ctx, struct ios_xfer_job *job);

#endif
