/*
 * The phase interface: what a phase is (struct ios_phase, the one source of a phase's facts:
 * unit, metric, access pattern, options, the files it creates and how they go away), what its
 * run callback works with (struct ios_phase_ctx) and what is reported about it (struct
 * ios_phase_result), plus the services a phase calls. The run state it runs in is
 * include/ioscore/run.h; the phase objects are src/phases/, ordered by src/phases/table.c.
 * No code outside the phase table decides anything from a phase's name: it reads these facts.
 */
#ifndef IOSCORE_PHASE_H
#define IOSCORE_PHASE_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

#include "ioscore/backend.h"
#include "ioscore/instrument.h"
#include "ioscore/score.h"
#include "ioscore/util.h"

#define IOS_MAX_REASONS 8
#define IOS_MAX_KEYS 8
#define IOS_HOST_MAX 64

enum ios_phase_type { IOS_PHASE_DUMMY, IOS_PHASE_WRITE, IOS_PHASE_READ, IOS_PHASE_REMOVE };

/* How the score is computed from the gathered per-rank numbers. */
enum ios_metric {
    IOS_METRIC_NONE,   /* timestamp: always 0 */
    IOS_METRIC_BW,     /* sum bytes / (max end - min start) / 2^30 */
    IOS_METRIC_MD,     /* sum items / max(end_r - start_r) / 1000 */
    IOS_METRIC_CUSTOM, /* the phase sets ctx->score (find) */
};

/* The unit of a phase's score; unset (phases built at run time): GiB/s for IOS_METRIC_BW,
 * kIOPS otherwise. */
enum ios_unit { IOS_UNIT_BY_METRIC = 0, IOS_UNIT_GIB_S, IOS_UNIT_KIOPS };

/* mdtest's 11 operations, in the column order of its CSV (BENCHMARK-RULES §5.5); NONE: not an
 * mdtest operation. */
enum ios_md_op {
    IOS_MD_NONE = 0,
    IOS_MD_DIR_CREATE,
    IOS_MD_DIR_STAT,
    IOS_MD_DIR_READ,
    IOS_MD_DIR_RENAME,
    IOS_MD_DIR_REMOVE,
    IOS_MD_FILE_CREATE,
    IOS_MD_FILE_STAT,
    IOS_MD_FILE_READ,
    IOS_MD_FILE_REMOVE,
    IOS_MD_TREE_CREATE,
    IOS_MD_TREE_REMOVE,
};
#define IOS_MD_OPS 11

/* One rank's numbers for one phase. Times are wall-clock seconds (ios_wtime). */
struct ios_rank_stats {
    double start;              /* IOR: before open; mdtest: after the start barrier */
    double loop_start;         /* start of the I/O loop (the stonewall clock) */
    double first_done;         /* end of the main loop, before wear-out, sync and close */
    double loop_end;           /* end of the I/O loop including wear-out and fsync */
    double end;                /* IOR: after close; mdtest: after sync and the closing barrier */
    double end_before_barrier; /* mdtest per-rank CSV time */
    double items, bytes;
    double items_at_deadline, bytes_at_deadline;
    double hit_deadline;
    double verify_errors;
    double io_error; /* -errno of the first failure, 0 if none */
    double data_of;  /* 1 + the rank whose data an IOR phase accessed (its file under -F), 0 if
                        none: which file a rank read, whatever shift chose it */
};
#define IOS_RANK_STATS_DOUBLES ((int)(sizeof(struct ios_rank_stats) / sizeof(double)))

/* Completed items per second since the phase start (1 s buckets), for result.json. */
struct ios_timeseries {
    double t0;
    uint64_t *buckets;
    int n, cap;
};
void ios_timeseries_start(struct ios_timeseries *ts, double t0);
void ios_timeseries_add(struct ios_timeseries *ts, double now);
void ios_timeseries_free(struct ios_timeseries *ts);

struct ios_kv {
    char key[32];
    char value[1024];
};

/* Everything reported about one phase (complete on rank 0). */
struct ios_phase_result {
    const struct ios_phase *phase;
    int ran; /* 0 when run=FALSE */
    double score;
    double t_delta;        /* IO500 wall-clock phase time */
    double t_start, t_end; /* wall clock */
    int valid;
    int n_reasons;
    char reasons[IOS_MAX_REASONS][256];
    double items, bytes, verify_errors;
    int has_stonewall;
    double deadline_s, items_at_deadline_max, items_at_deadline_sum, wearout_items;
    double stonewall_time; /* rank 0's loop time up to the collective step */
    int n_ranks;
    struct ios_rank_stats *ranks;
    char (*hosts)[IOS_HOST_MAX];
    int ts_len;
    uint64_t *ts_aggregate;  /* ts_len buckets */
    uint64_t *ts_per_rank;   /* n_ranks x ts_len */
    uint64_t found, scanned; /* find only */
    int has_find;
    int n_keys; /* phase-specific result.txt keys, in order */
    struct ios_kv keys[IOS_MAX_KEYS];
    struct ios_latency latency;             /* merged over ranks; latency.ops == 0: not measured */
    struct ios_latency_summary *lat_ranks;  /* each rank's own percentiles (n_ranks), or NULL */
    int lat_series_len;                     /* seconds of the latency time series */
    struct ios_latency_summary *lat_series; /* merged over ranks, per second, or NULL */
    /* Summary form (more ranks than the rank-detail threshold, include/ioscore/rank_summary.h):
     * ranks/hosts/lat_ranks hold only the named (slowest and fastest) ranks, rank_ids their
     * rank numbers, ts_per_rank is NULL. Full form: summary and rank_ids are NULL. */
    struct ios_rank_summary *summary;
    int32_t *rank_ids;
    int procs;                   /* ranks that ran the phase (n_ranks in the full form) */
    int failed_ranks;            /* ranks with an I/O error */
    char (*errors)[IOS_MSG_MAX]; /* full form: every rank's first error ("" if none), or NULL */
};

struct ios_run;
struct ios_rank_summary;

/* What a phase's run callback works with. */
struct ios_phase_ctx {
    struct ios_run *run;
    const struct ios_phase *phase;
    struct ios_backend be;
    int32_t seed;
    struct ios_rank_stats mine;
    struct ios_timeseries ts;
    struct ios_phase_result *res; /* rank 0 may add keys/extra; other ranks: scratch */
    double score;                 /* IOS_METRIC_CUSTOM only */
    char error[IOS_MSG_MAX];      /* first error on this rank */
    FILE *log;                    /* rank 0: <resdir>/<phase>.txt, or NULL */
    struct ios_instrument instr;  /* latency histogram, debug delay, live progress */
    int lockstep; /* every rank makes each call together (collective I/O on one shared file) */
};

struct ios_phase {
    const char *name;  /* = INI section */
    const char *group; /* shared options section, e.g. "ior-easy"; NULL if none */
    enum ios_group score_group;
    enum ios_phase_type type;
    enum ios_metric metric;
    enum ios_unit unit;
    enum ios_md_op md_op; /* the mdtest operation it measures (CSV column, log label) */
    const char *pattern;  /* access pattern in one line, for --list */
    const char *top_dir;  /* the data directory's top-level directory it creates, or NULL */
    const char *creates;  /* what it creates (paths below datadir/resdir), for --list */
    const char *seed_key; /* "ior-easy" ...; NULL if no data pattern */
    const char *csv_kind; /* "ior", "mdtest" or NULL (find writes its own) */
    int has_log;          /* writes <phase>.txt */
    int stonewalled;      /* write phase under the stonewall */
    /* Runs the phase on every rank. Fills ctx->mine; records errors in ctx->error. */
    void (*run)(struct ios_phase_ctx *ctx);
    /* Dry run: prints the workload and sizes (rank 0). */
    void (*describe)(const struct ios_run *run, FILE *out);
    /* After a scored run, on every rank: removes what the phase created (the names it used,
     * never recursive, BENCHMARK-RULES §1.5) through `be`, its top_dir last. NULL: nothing to
     * remove. */
    void (*cleanup)(struct ios_run *run, struct ios_backend *be);
    /* --cleanup, rank 0, POSIX: removes what any earlier run of the phase may have left, by
     * its name patterns only, and returns how many files went. NULL: nothing. */
    long (*sweep)(const struct ios_run *run, int verbose);
};

/* ---- facts derived from the phase table (src/phases/table.c) */

/* The standard phases in execution order. */
const struct ios_phase *const *ios_standard_phases(int *count);
/* "GiB/s" or "kIOPS". */
const char *ios_phase_unit(const struct ios_phase *p);
/* The score group's name: "bw", "md" or "none". */
const char *ios_group_name(enum ios_group g);
/* "bw", "md", "custom" or "none". */
const char *ios_metric_name(enum ios_metric metric);
/* "write", "read", "remove" or "none" (IOR's access column: "write" or "read"). */
const char *ios_phase_access(const struct ios_phase *p);
/* The mdtest operation of a phase (IOS_MD_NONE if it is not an mdtest phase). */
enum ios_md_op ios_phase_md_op(const struct ios_phase *p);
/* mdtest's name of an operation, e.g. "File creation"; "" for IOS_MD_NONE. */
const char *ios_md_op_name(enum ios_md_op op);
/* --list: every standard phase with its facts and option sections. */
void ios_phases_list(FILE *out);

/* ---- services for phases (src/core/phase.c) */

/* Records a phase INVALID reason. */
void ios_phase_invalidate(struct ios_phase_result *res, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Records the first error of this rank in ctx (later ones only count). */
void ios_phase_error(struct ios_phase_ctx *ctx, int neg_errno, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Adds a phase-specific result.txt key (rank 0). */
void ios_phase_key(struct ios_phase_ctx *ctx, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Status files (<resdir>/<name>.stonewall): rank 0 writes; read returns -1 when missing. */
void ios_status_write(struct ios_run *run, const char *name, int64_t count);
int64_t ios_status_read_bcast(struct ios_run *run, const char *name);
/* Rank 0 removes <resdir>/<name>.stonewall; returns 1 if it existed. */
int ios_status_remove(const struct ios_run *run, const char *name);

/* Buffers aligned for the backend (O_DIRECT needs 4 KiB). */
void *ios_alloc_buffer(const struct ios_backend *be, size_t size);

/* One operation of a phase (a transfer, a file); 0 or -errno. */
typedef int (*ios_op_fn)(void *state, uint64_t index);
/*
 * Runs op(state, i) for i = from .. to-1, each timed into the latency histogram and counted in
 * the time series (src/core/oploop.c). With deadline > 0 (s after ctx->mine.loop_start) it
 * stops after the first operation past the deadline and sets hit_deadline. Clears *ok on a
 * failed operation. With ctx->lockstep every rank stops together: after each operation one
 * reduction carries rank 0's deadline decision (as IOR -c does) and any rank's failure.
 * Returns the index after the last completed operation.
 */
uint64_t ios_run_ops(struct ios_phase_ctx *ctx, ios_op_fn op, void *state, uint64_t from,
                     uint64_t to, double deadline, int *ok);
/*
 * mdtest's stonewalled create (-W): items 0 .. to-1 until `deadline` s (0: none), then every
 * rank goes on to the busiest rank's count (wear-out), so that all ranks made the same items.
 * Sets ctx->mine.first_done and items_at_deadline (at the deadline, before the wear-out) and,
 * when deadline > 0, the result's stonewall fields. Returns the busiest rank's count.
 * Collective.
 */
uint64_t ios_run_ops_wear_out(struct ios_phase_ctx *ctx, ios_op_fn op, void *state, uint64_t to,
                              double deadline, int *ok);

/* ---- removal by known names, for the cleanup and sweep hooks (src/core/sweep.c) */

/* unlink/rmdir through the backend; anything but ENOENT is reported when verbose. */
void ios_remove_known(const struct ios_run *run, struct ios_backend *be, const char *path,
                      int is_dir);
/* Does `name` look like "<prefix><digits>[.<digits>...]" with `parts` numbers exactly? */
int ios_name_numbered(const char *name, const char *prefix, int parts);
/* Unlinks the regular files of `dir` accepted by `ours`; returns how many were removed. */
long ios_sweep_files(const char *dir, int (*ours)(const char *name));
/* Unlinks the files accepted by `ours` inside every subdirectory of `dir` named
 * <prefix><digits>{parts}, then those subdirectories; returns the files removed. */
long ios_sweep_numbered_dirs(const char *dir, const char *prefix, int parts,
                             int (*ours)(const char *name), int verbose);
/* rmdir that says why a directory stays (unless it is already gone) when verbose. */
void ios_rmdir_quiet(const char *path, int verbose);

#endif
