/*
 * The run state of one ioscore-suite invocation (struct ios_run) and the scheduler's entry
 * points. The phase interface is include/ioscore/phase.h. The scheduler (src/core/run.c) owns
 * the phase loop; gathering, scoring and validity are src/core/gather.c, the data directory
 * and cleanup src/core/datadir.c, result.txt and result_summary.txt src/report/result_txt.c.
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
#include "ioscore/phase.h"
#include "ioscore/score.h"
#include "ioscore/util.h"

#define IOS_MAX_PHASES 70 /* ior subcommand: 4 phases x 16 repetitions; mdtest: 10 x 7 */
#define IOS_MARKER_NAME ".ioscore-data"

struct ios_json;

/*
 * What an ior or mdtest launch adds to result.json (rank 0). The launch owns it and its
 * context; the run state only points at it for the launch's duration, so the report writer
 * needs no state of its own and the run's IO500 settings stay as the INI gave them.
 */
struct ios_result_extra {
    int stonewall_s; /* "stonewall_s": the launch's own (-D), in place of the run's */
    /* the launch's top-level members after "scores"; ctx is the launch's state */
    void (*members)(struct ios_json *j, const void *ctx);
    const void *ctx;
};

struct ios_run {
    struct ios_config cfg;
    int rank, size;
    int ppn0, nnodes, block_mapped;
    /* ior/mdtest without --resultdir: resdir is a private temporary directory removed at the
     * end, so a launch leaves nothing where the user did not say (IOR prints to stdout only) */
    int resdir_scratch;
    int node_id; /* my host's number: hosts numbered 0.. in order of their first rank */
    char host[IOS_HOST_MAX];
    /* the ranks of my host; the first rank of each host (MPI_COMM_NULL on the others) */
    MPI_Comm node_comm, leaders_comm;
    char (*node_hosts)[IOS_HOST_MAX]; /* rank 0: the nnodes host names, by node_id */
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
    /* --rank-detail-threshold: above this many ranks result.json summarises the per-rank data
     * (include/ioscore/rank_summary.h); 0: IOS_RANK_DETAIL_THRESHOLD */
    int rank_detail_threshold;
    int rank_detail_full; /* --rank-detail-full: also ranks-<phase>.csv.gz in the summary form */
    struct ios_instrument_cfg instr;
    /* the ior/mdtest subcommands: the command line's backend for every phase (NULL: the INI's) */
    const struct ios_backend *backend;
    int unscored; /* the ior/mdtest subcommands: no IO500 score (result.json "scores": null) */
    /* the ior/mdtest subcommands: their result.json additions while a launch runs, or NULL */
    const struct ios_result_extra *extra;
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

/*
 * Placement (src/core/placement.c), collective: sets host, node_id, node_comm, leaders_comm,
 * nnodes, ppn0, block_mapped and (rank 0) node_hosts, in O(1) memory per rank and O(nodes) on
 * rank 0. simulate_ppn > 0 puts rank r on the fake host <name>#node<r / ppn> (block mapping),
 * simulate_nodes > 0 on <name>#node<r mod nodes> (round-robin); both 0: the real host name.
 */
void ios_placement(struct ios_run *run, int simulate_ppn, int simulate_nodes);
/* The host name rank `rank` gets from the real name `real` under those simulations. */
void ios_simulated_host(const char *real, int rank, int ppn, int nodes, char *out, size_t len);
/* Collective: how many ranks r share their host with rank (r + shift) mod N. */
int ios_shift_ranks_on_node(const struct ios_run *run, int shift);
/* Shifts (BENCHMARK-RULES §8.1): IOR reads the data of rank (r + s) mod N, mdtest uses ns. */
int ios_ior_shift(const struct ios_run *run);
int ios_mdtest_shift(const struct ios_run *run);
/* mdtest's -N n after its placement rule: n x tasks on node 0 on several block-mapped nodes. */
long ios_mdtest_stride(const struct ios_run *run, int n);

/* Records a run-level INVALID reason (rank 0 writes it to result.txt when open). */
void ios_run_invalidate(struct ios_run *run, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

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
/* --cleanup: remove what an earlier run created, by known names only (src/core/datadir.c). */
int ios_run_cleanup_only(struct ios_run *run);
/* --dry-run: print every phase's workload. */
void ios_run_describe(const struct ios_run *run, FILE *out);

#endif
