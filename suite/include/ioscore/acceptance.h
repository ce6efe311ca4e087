/*
 * `ioscore-suite ior ARGS...`: IOR's own command line (the one storage acceptance plans are
 * written in), run by the standard run's engine: the same backends, op loop, instrumentation,
 * per-phase gathering and result.json (mode "ior"). Options follow IOR's meanings and
 * defaults; an IOR option this build does not implement is refused before any I/O with its
 * meaning. Parsing is in src/acceptance/ior_options.c, the run in src/acceptance/ior_run.c,
 * IOR's output formats in ior_summary.c, the -O file-system layout hints in ior_layout.c.
 */
#ifndef IOSCORE_ACCEPTANCE_H
#define IOSCORE_ACCEPTANCE_H

#include <stdint.h>
#include <stdio.h>

#include "ioscore/json.h"
#include "ioscore/mdtest_items.h"
#include "ioscore/pattern.h"
#include "ioscore/rank_summary.h"
#include "ioscore/run.h"
#include "ioscore/util.h"

#define IOS_IOR_MAX_REPS 16 /* four phases each: within IOS_MAX_PHASES */
#define IOS_IOR_MAX_HINTS 8 /* -O file-system layout hints (src/acceptance/ior_layout.c) */

/* One -O layout hint as given: its kind (ior_layout.c's table) and value. */
struct ios_ior_hint {
    int kind;
    char value[64];
};

struct ios_ior_params {
    char api[16]; /* -a: POSIX, MPIIO or IOURING */
    int odirect;  /* -B, --posix.odirect */
    int depth;    /* --iouring.depth: transfers in flight with -a IOURING (0: its default) */
    uint64_t block, xfer, segments;
    int fpp;                 /* -F */
    int reorder;             /* -C: read the data of rank (r + Q * tasks per node) mod N */
    int task_offset;         /* -Q */
    int fsync;               /* -e: fsync inside the write timing */
    int fsync_per_write;     /* -Y: fsync after every write transfer, inside the timing */
    int multi_file;          /* -m: repetition i accesses <file>.i (IOR's multiFile) */
    int unique_dir;          /* -u: with -F, rank r's file is <dir>/r/<name>.%08d */
    int max_minutes;         /* -T: no write or read starts after this many minutes, 0 = none */
    int num_tasks;           /* -N: IOR's numTasks; -1 = every launched rank */
    int reorder_random;      /* -Z: read a random rank's data; -ZZ: a random permutation */
    int reorder_random_seed; /* -X: the -Z seed; < 0: -X + repetition */
    int min_time;            /* -O minTimeDuration: s; each access repeats until it ran this long */
    char stonewall_status_file[IOS_PATH_MAX]; /* -O stoneWallingStatusFile: the write's pairs */
    int barriers;                             /* -g: barriers after open and after the I/O loop */
    int keep;                                 /* -k */
    int write, read;                          /* -w, -r (neither, nor -W/-R: both, as IOR) */
    int check_write;                          /* -W: read back what was written and verify it */
    int check_read;                           /* -R: verify every transfer of the read */
    int random;             /* -z: IOR's random order of the transfers of each segment */
    int random_seed;        /* --random-offset-seed, -1: the launch's start time (IOR's default) */
    int deadline;           /* -D seconds, 0 = none */
    int wearout;            /* -O stoneWallingWearOut=1 */
    int collective;         /* -c */
    int show_hints;         /* -H */
    int reps;               /* -i */
    int inter_delay;        /* -d seconds between repetitions */
    int existing;           /* -E: do not remove the file before writing */
    int seed_given;         /* -G */
    int32_t seed;           /* -G value (IOR's timeStampSignature) */
    enum ios_packet packet; /* -l, --dataPacketType */
    char packet_name[16];
    int verbose;                     /* -v, repeatable */
    int single_xfer;                 /* -x: accepted; a short transfer is always an error here */
    int summary_format;              /* -O summaryFormat: enum ios_ior_format (ior_summary.h) */
    char summary_file[IOS_PATH_MAX]; /* -O summaryFile: IOR's document there ("": stdout) */
    char rank_csv[IOS_PATH_MAX];     /* -O saveRankPerformanceDetailsCSV ("": none) */
    int n_hints;                     /* -O lustreStripeCount=N...: applied with the fs's tool */
    struct ios_ior_hint hints[IOS_IOR_MAX_HINTS];
    int simulate_ppn; /* --simulate-ppn K (test only, as in the standard run) */
    struct ios_rank_detail_opts rank_detail; /* --rank-detail-threshold N, --rank-detail-full */
    int simulate_nodes; /* --simulate-nodes K (test only, as in the standard run) */
    char test_file[IOS_PATH_MAX];
    char resultdir[IOS_PATH_MAX]; /* --resultdir DIR; "": stdout only (a scratch dir) */
    char command[2048];           /* the command line as given, for the reports */
};

/*
 * Parses IOR's options (argv[0] is "ior"). Returns 0; 1 after printing help; 2 after printing
 * the error (rank 0 only prints). Touches nothing on disk.
 */
int ios_ior_parse(struct ios_ior_params *p, int argc, char **argv, int rank);

/* Runs the parsed test on every rank (ios_placement done). Returns the exit status. */
int ios_ior_run(struct ios_run *run, const struct ios_ior_params *p);

#define IOS_MDTEST_MAX_REPS 7 /* ten phases each: within IOS_MAX_PHASES */
#define IOS_MDTEST_MAX_DIRS 64
#define IOS_MDTEST_MAX_NODES 1000000          /* directories per tree */
#define IOS_MDTEST_MAX_DEPTH IOS_MD_MAX_DEPTH /* the item engine's bound */

/* `ioscore-suite mdtest ARGS...`: mdtest's options (src/acceptance/mdtest_options.c), the run
 * (src/acceptance/mdtest_run.c). */
struct ios_mdtest_params {
    uint64_t items;                   /* -n per rank */
    int depth, branch;                /* -z, -b */
    int files_only, dirs_only;        /* -F, -D */
    int create, stat, read, remove;   /* -C -T -E -r (none: all) */
    int rename_dirs;                  /* -U: the directory rename phase */
    int time_unique;                  /* -t: time the unique working directory overhead (-u) */
    int unique;                       /* -u: a tree per rank */
    int leaf;                         /* -L: items in the leaves only */
    int stride;                       /* -N as given; scaled by placement (ios_mdtest_stride) */
    int simulate_ppn, simulate_nodes; /* --simulate-ppn/--simulate-nodes: host names (testing) */
    uint64_t items_per_dir;           /* -I (instead of -n) */
    int stonewall;                    /* -W seconds: file creation stops, then wear-out */
    int sync;                         /* -Y: sync at the end of each phase, inside its timing */
    int verify;                       /* -X: compare the -e bytes read with what -w wrote */
    int print_time;                   /* -P: also the time table */
    int reps;                         /* -i */
    int verbose;
    uint64_t write_bytes, read_bytes; /* -w, -e */
    char dir_list[IOS_PATH_MAX];      /* -d, split in place at '@' */
    char dir_list_text[IOS_PATH_MAX];
    const char *dirs[IOS_MDTEST_MAX_DIRS];
    int n_dirs;
    uint64_t nodes, leaves, per_node; /* derived: directories per tree, items per directory */
    struct ios_rank_detail_opts rank_detail; /* --rank-detail-threshold N, --rank-detail-full */
    char resultdir[IOS_PATH_MAX];
    char command[2048];
};

/* Parses mdtest's options (argv[0] is "mdtest"); 0, 1 after help, 2 after the error. */
int ios_mdtest_parse(struct ios_mdtest_params *p, int argc, char **argv, int rank);
/* Runs the parsed test on every rank; returns the exit status. */
int ios_mdtest_run(struct ios_run *run, const struct ios_mdtest_params *p);

struct ios_acc_launch;

/*
 * Opens a launch on every rank: the result directory and (rank 0) its result_summary.txt, the
 * run state of an unscored launch on `be`, result.json's additions from `acc` (its report,
 * `stonewall_s`), and the removal of `stale_manifest` (NULL: none). Returns 0, or 2 when any
 * rank failed (rank 0 printed why).
 */
int ios_acceptance_start(struct ios_run *run, const char *tool, const struct ios_backend *be,
                         const char *stale_manifest, struct ios_acc_launch *acc, int stonewall_s);
/* Closes a launch: result.json, the summary file, the run's hold on the launch's state; 3
 * (reason printed) if the run aborted. */
int ios_acceptance_finish(struct ios_run *run, const char *tool);

/* IOR's -z order of one segment for `target` (its GetOffsetArrayRandom with `seed`): the
 * offsets within a segment, malloc'd, *count of them. */
uint64_t *ios_ior_random_offsets(uint64_t block, uint64_t xfer, int nranks, int fpp, int target,
                                 int seed, uint64_t *count);

/* ---------------------------------------------------------------- what a launch reports
 * (src/acceptance/report.c): the per-operation summary over -i repetitions, the measurement
 * notes, and the acceptance test a launch belongs to; result.json gets them through the
 * launch's run->extra as top-level "summary", "measurement_notes" and "acceptance_test". */

#define IOS_ACC_MAX_ITERS 16 /* >= IOS_IOR_MAX_REPS and IOS_MDTEST_MAX_REPS */
#define IOS_ACC_MAX_OPS 12
#define IOS_ACC_MAX_NOTES 16

/* How a series' standard deviation is taken: as the series' tool prints it. */
enum ios_acc_deviation {
    IOS_ACC_POPULATION, /* IOR's summary: divisor n (its bw_values/ops_values: var / reps) */
    IOS_ACC_SAMPLE,     /* mdtest's SUMMARY: divisor n - 1, 0 for one iteration */
};

/* What a tool's series are, declared once by the tool (ior_run.c, mdtest_run.c). */
struct ios_acc_measure {
    const char *unit; /* "MiB/s" (IOR) or "ops/s" (mdtest) */
    enum ios_acc_deviation deviation;
};

/* One operation's repetitions as its summary table row prints them. */
struct ios_acc_series {
    char operation[32]; /* IOR: "write"/"read"; mdtest: the table's label, "File creation" */
    const struct ios_acc_measure *measure;
    int n;
    double values[IOS_ACC_MAX_ITERS]; /* per iteration, in the measure's unit */
    double ops[IOS_ACC_MAX_ITERS];    /* IOR: OPs/s per iteration (has_ops) */
    double time[IOS_ACC_MAX_ITERS];   /* seconds per iteration */
    int has_ops;
};

/* max, min, mean and the population standard deviation (divisor n), as IOR's summary table
 * computes them (IOR's bw_values/ops_values: var / reps). */
struct ios_acc_stats {
    double max, min, mean, stddev;
};
void ios_acc_stats(const double *v, int n, struct ios_acc_stats *out);
/* The statistics of `v` (the series' values or times) with the deviation its measure
 * declares. */
void ios_acc_series_stats(const struct ios_acc_series *s, const double *v,
                          struct ios_acc_stats *out);

/* A measurement note: what a number could have measured (client cache, server cache, media). */
struct ios_acc_note {
    char operation[32];
    const char *level; /* "client-cache", "server-cache" or "media-likely" */
    char text[320];
};

/* One launch of a test: its role and its operations' repetitions. */
struct ios_acc_part {
    char role[16]; /* "write", "read", "write+read" (IOR); "create", "use" (mdtest) */
    char command[2048];
    char run_started[40];
    char result_dir[IOS_PATH_MAX];
    int n_ops;
    struct ios_acc_series ops[IOS_ACC_MAX_OPS];
};

struct ios_acc_report {
    int n_series;
    struct ios_acc_series series[IOS_ACC_MAX_OPS];
    int n_notes;
    struct ios_acc_note notes[IOS_ACC_MAX_NOTES];
    char test_id[40]; /* "" = the launch is not part of a recorded test */
    int n_parts;      /* earlier launches' parts, then this launch's */
    struct ios_acc_part parts[2];
};

/*
 * What every ior or mdtest launch owns beside the shared run state: its report and the
 * result.json additions made of it. Part of the launch's own state (ior_run.c, mdtest_run.c),
 * which lives from before ios_acceptance_start to after ios_acceptance_finish.
 */
struct ios_acc_launch {
    struct ios_acc_report report;
    struct ios_result_extra result; /* run->extra while the launch runs */
};

/* result.json's members of a launch's report (`report`: a struct ios_acc_report). */
void ios_acc_json_members(struct ios_json *j, const void *report);
/* The series of `operation` (added empty with `measure` when new); NULL past IOS_ACC_MAX_OPS. */
struct ios_acc_series *ios_acc_series_of(struct ios_acc_report *r, const char *operation,
                                         const struct ios_acc_measure *measure);
void ios_acc_note(struct ios_acc_report *r, const char *operation, const char *level,
                  const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Prints "Measurement notes:" and one line per note (rank 0, after the summary table). */
void ios_acc_print_notes(FILE *out, const struct ios_acc_report *r);
/* Appends this launch's part (role, command, start, result dir, the report's series). */
void ios_acc_add_own_part(struct ios_acc_report *r, const struct ios_run *run, const char *role,
                          const char *command);
/* MemTotal of this host in bytes from /proc/meminfo, 0 when unknown. */
uint64_t ios_acc_host_ram(void);
/*
 * Every rank passes the bytes it holds in client memory terms (data it wrote or reads);
 * rank 0 gets the host whose data / RAM ratio is highest: its data, its RAM (0 = unknown),
 * its name. Collective.
 */
void ios_acc_data_vs_ram(const struct ios_run *run, double my_bytes, double *host_bytes,
                         double *host_ram, char *host, size_t host_len);

/* ---------------------------------------------------------------- the test manifest
 * (src/acceptance/manifest.c): a flat JSON object that a keeping write (create) launch leaves
 * beside its data, so that a later read (stat/read/remove) launch is recorded as the second
 * part of the same test and refuses data that is not that test's. */

#define IOS_ACC_MANIFEST_MAX 64

struct ios_acc_member {
    char key[48];
    int is_str;
    char str[IOS_PATH_MAX]; /* a test file path or a command line */
    int n;                  /* numbers: 1 for a scalar, the length for an array */
    double num[IOS_ACC_MAX_ITERS];
};

struct ios_acc_manifest {
    int n;
    struct ios_acc_member m[IOS_ACC_MANIFEST_MAX];
};

/* A new test id: 32 random hex digits (rank 0 only needs it). */
void ios_acc_new_test_id(char *id, size_t len);
/* Starts a manifest: schema, id, tool. The caller adds its parameters, then the part. */
void ios_acc_manifest_begin(struct ios_json *j, const char *tool, const char *id);
/* Ends the manifest with `part` (role, command, start, result dir, "op:<operation>" values)
 * and writes it atomically. Returns 0 or -errno. */
int ios_acc_manifest_finish(struct ios_json *j, const struct ios_acc_part *part, const char *path);
/* Reads a manifest (at most 256 KiB, flat members only). 0; -ENOENT when there is none;
 * -EINVAL with the reason in err. */
int ios_acc_manifest_load(const char *path, struct ios_acc_manifest *m, char *err, size_t err_len);
const struct ios_acc_member *ios_acc_manifest_get(const struct ios_acc_manifest *m,
                                                  const char *key);
/* The number `key` (scalar), or `fallback` when absent or not a number. */
double ios_acc_manifest_num(const struct ios_acc_manifest *m, const char *key, double fallback);
/* The string `key`, or "" when absent. */
const char *ios_acc_manifest_str(const struct ios_acc_manifest *m, const char *key);
/* A number the manifest must hold for this launch to use the data: key, value, option name. */
struct ios_acc_expect {
    const char *key;
    double want;
    const char *opt;
};
/*
 * Rank 0: loads the manifest at `path` and compares `same`. Returns 0 when there is none, 1
 * when found (why: "" or the first mismatch, naming the test, `part` and the options), -1
 * after printing why it cannot be read.
 */
int ios_acc_manifest_check(const char *tool, const char *path, struct ios_acc_manifest *m,
                           const struct ios_acc_expect *same, size_t n, const char *part, char *why,
                           size_t why_len);
/* Every rank: 0, or 2 when any rank failed (each printed why); collective. */
int ios_acceptance_agree(int mine_failed);

/* The earlier launch's part stored in the manifest, its operations of `measure`. */
void ios_acc_part_from_manifest(const struct ios_acc_manifest *m,
                                const struct ios_acc_measure *measure, struct ios_acc_part *part);

#endif
