/*
 * The run: global state of one ioscore-suite invocation, the phase interface and the
 * per-phase results. The scheduler (src/core/run.c) owns the phase loop; each phase file in
 * src/phases/ exports one `struct ios_phase` and only fills the calling rank's numbers.
 * Gathering, scoring, validity checks and reports are common to all phases.
 */
#ifndef IOSCORE_RUN_H
#define IOSCORE_RUN_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

#include "ioscore/backend.h"
#include "ioscore/config.h"
#include "ioscore/instrument.h"
#include "ioscore/pattern.h"
#include "ioscore/score.h"
#include "ioscore/util.h"

#define IOS_MAX_PHASES 64 /* the ior subcommand: up to 4 phases x 16 repetitions */
#define IOS_MAX_REASONS 8
#define IOS_MAX_KEYS 8
#define IOS_HOST_MAX 64
#define IOS_MARKER_NAME ".ioscore-data"
/* The top-level data directories a site may pre-create (striping); cleanup removes them. */
extern const char *const ios_known_top_dirs[4];

enum ios_phase_type { IOS_PHASE_DUMMY, IOS_PHASE_WRITE, IOS_PHASE_READ, IOS_PHASE_REMOVE };

/* How the score is computed from the gathered per-rank numbers. */
enum ios_metric {
    IOS_METRIC_NONE,   /* timestamp: always 0 */
    IOS_METRIC_BW,     /* sum bytes / (max end - min start) / 2^30 */
    IOS_METRIC_MD,     /* sum items / max(end_r - start_r) / 1000 */
    IOS_METRIC_CUSTOM, /* the phase sets ctx->score (find) */
};

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
    struct ios_latency latency;    /* merged over ranks; latency.ops == 0: not measured */
    struct ios_latency *lat_ranks; /* n_ranks histograms, or NULL */
};

struct ios_run;
struct ios_json;

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
    const char *seed_key; /* "ior-easy" ...; NULL if no data pattern */
    const char *csv_kind; /* "ior", "mdtest" or NULL (find writes its own) */
    int has_log;          /* writes <phase>.txt */
    int stonewalled;      /* write phase under the stonewall */
    /* Runs the phase on every rank. Fills ctx->mine; records errors in ctx->error. */
    void (*run)(struct ios_phase_ctx *ctx);
    /* Dry run: prints the workload and sizes (rank 0). */
    void (*describe)(const struct ios_run *run, FILE *out);
};

/* The standard phases in execution order (src/phases/table.c). */
const struct ios_phase *const *ios_standard_phases(int *count);

struct ios_run {
    struct ios_config cfg;
    int rank, size;
    int ppn0, nnodes, block_mapped;
    char host[IOS_HOST_MAX];
    char (*hosts)[IOS_HOST_MAX]; /* rank 0: every rank's host */
    char timestamp[32];
    char datadir[IOS_PATH_MAX]; /* effective (with /<ts> if configured) */
    char resdir[IOS_PATH_MAX];
    const char *version;
    const char *mode;
    int stonewall; /* seconds */
    int minwrite;
    int verbosity;
    int quiet;
    int dry_run;
    int keep_data;        /* --keep-data: skip the final cleanup */
    int debug_delay_rank; /* --debug-delay-rank (test only), -1 if unset */
    long debug_delay_us;  /* --debug-delay-us (test only) */
    struct ios_instrument_cfg instr;
    /* the ior/mdtest subcommands: the command line's backend for every phase (NULL: the INI's) */
    const struct ios_backend *backend;
    int unscored; /* the ior/mdtest subcommands: no IO500 score (result.json "scores": null) */
    /* the ior/mdtest subcommands: adds their top-level result.json members (rank 0), or NULL */
    void (*json_extra)(struct ios_json *j, const struct ios_run *run);
    enum ios_packet packet;
    int valid;
    int n_reasons;
    char reasons[IOS_MAX_REASONS][256];
    double t_run_start, t_run_end;
    int aborted;
    char abort_reason[IOS_MSG_MAX];
    FILE *result_txt, *summary; /* rank 0 */
    int n_results;
    struct ios_phase_result results[IOS_MAX_PHASES];
    struct ios_scores scores;
    uint32_t config_hash, score_hash;
    int finished;
};

/* Shifts (benchmark spec §8.1): IOR reads the data of rank (r + s) mod N, mdtest uses ns. */
int ios_ior_shift(const struct ios_run *run);
int ios_mdtest_shift(const struct ios_run *run);

/* Records a run-level INVALID reason (rank 0 writes it to result.txt when open). */
void ios_run_invalidate(struct ios_run *run, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Records a phase INVALID reason. */
void ios_phase_invalidate(struct ios_phase_result *res, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Records the first error of this rank in ctx (later ones only count). */
void ios_phase_error(struct ios_phase_ctx *ctx, int neg_errno, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Adds a phase-specific result.txt key (rank 0). */
void ios_phase_key(struct ios_phase_ctx *ctx, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* One operation of a phase (a transfer, a file); 0 or -errno. */
typedef int (*ios_op_fn)(void *state, uint64_t index);
/*
 * Runs op(state, i) for i = from .. to-1, each timed into the latency histogram and counted in
 * the time series. With deadline > 0 (s after ctx->mine.loop_start) it stops after the first
 * operation past the deadline and sets hit_deadline. Clears *ok on a failed operation.
 * With ctx->lockstep every rank stops together: after each operation one reduction carries
 * rank 0's deadline decision (as IOR -c does) and any rank's failure.
 * Returns the index after the last completed operation.
 */
uint64_t ios_run_ops(struct ios_phase_ctx *ctx, ios_op_fn op, void *state, uint64_t from,
                     uint64_t to, double deadline, int *ok);

/* Status files (<resdir>/<name>.stonewall): rank 0 writes; read returns -1 when missing. */
void ios_status_write(struct ios_run *run, const char *name, int64_t count);
int64_t ios_status_read_bcast(struct ios_run *run, const char *name);

/* Buffers aligned for the backend (O_DIRECT needs 4 KiB). */
void *ios_alloc_buffer(const struct ios_backend *be, size_t size);

/*
 * Every check the run makes before it creates anything (src/core/validate.c), on every rank:
 * the backend of every phase that runs accepts its API string, collective and GPU buffers are
 * offered by those backends, the data and result directories are usable. --dry-run and the real
 * run both call it, so a dry run passes exactly when the real run starts. Also says once (rank
 * 0, stderr) which sections of the INI standard mode reads but does not run. Returns 0, or 2
 * after rank 0 printed the error.
 */
int ios_run_validate(struct ios_run *run);

/*
 * Runs one phase on every rank the way the standard run does (barriers, instrumentation,
 * gathering, checks, per-phase outputs, result.json) and returns its result (complete on rank
 * 0). The ior/mdtest subcommands call it for each of their phases; fatal past IOS_MAX_PHASES.
 */
struct ios_phase_result *ios_run_one_phase(struct ios_run *run, const struct ios_phase *p);

/* The whole run (called by main after setup). Returns the process exit status. */
int ios_run_phases(struct ios_run *run);
/* --cleanup: remove what an earlier run created, by known names only. */
int ios_run_cleanup_only(struct ios_run *run);
/* --dry-run: print every phase's workload. */
void ios_run_describe(const struct ios_run *run, FILE *out);

#endif
