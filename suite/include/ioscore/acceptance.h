/*
 * `ioscore-suite ior ARGS...`: IOR's own command line (the one storage acceptance plans are
 * written in), run by the standard run's engine: the same backends, op loop, instrumentation,
 * per-phase gathering and result.json (mode "ior"). Options follow IOR's meanings and
 * defaults; an IOR option this build does not implement is refused before any I/O with its
 * meaning. Parsing is in src/acceptance/ior_options.c, the run in src/acceptance/ior_run.c.
 */
#ifndef IOSCORE_ACCEPTANCE_H
#define IOSCORE_ACCEPTANCE_H

#include <stdint.h>

#include "ioscore/pattern.h"
#include "ioscore/run.h"
#include "ioscore/util.h"

#define IOS_IOR_MAX_REPS 16 /* four phases each: within IOS_MAX_PHASES */

struct ios_ior_params {
    char api[16]; /* -a: POSIX or MPIIO */
    int odirect;  /* -B, --posix.odirect */
    uint64_t block, xfer, segments;
    int fpp;         /* -F */
    int reorder;     /* -C: read the data of rank (r + Q * tasks per node) mod N */
    int task_offset; /* -Q */
    int fsync;       /* -e: fsync inside the write timing */
    int barriers;    /* -g: barriers after open and after the I/O loop */
    int keep;        /* -k */
    int write, read; /* -w, -r (neither, nor -W/-R: both, as IOR) */
    int check_write; /* -W: read back what was written and verify it */
    int check_read;  /* -R: verify every transfer of the read */
    int random;      /* -z: each rank's transfers in a random order, every one exactly once */
    int deadline;    /* -D seconds, 0 = none */
    int wearout;     /* -O stoneWallingWearOut=1 */
    int collective;  /* -c */
    int show_hints;  /* -H */
    int reps;        /* -i */
    int inter_delay; /* -d seconds between repetitions */
    int existing;    /* -E: do not remove the file before writing */
    int seed_given;  /* -G */
    int32_t seed;    /* -G value (IOR's timeStampSignature) */
    enum ios_packet packet; /* -l, --dataPacketType */
    char packet_name[16];
    int verbose;             /* -v, repeatable */
    int single_xfer;         /* -x: accepted; a short transfer is always an error here */
    int lustre_stripe_count; /* -O lustreStripeCount: accepted, not applied (warned) */
    int simulate_ppn;        /* --simulate-ppn K (test only, as in the standard run) */
    char test_file[IOS_PATH_MAX];
    char resultdir[IOS_PATH_MAX]; /* --resultdir DIR; "" = ./ioscore-ior-<timestamp> */
    char command[2048];           /* the command line as given, for the reports */
};

/*
 * Parses IOR's options (argv[0] is "ior"). Returns 0; 1 after printing help; 2 after printing
 * the error (rank 0 only prints). Touches nothing on disk.
 */
int ios_ior_parse(struct ios_ior_params *p, int argc, char **argv, int rank);

/* Runs the parsed test on every rank (run->hosts and placement set). Returns the exit status. */
int ios_ior_run(struct ios_run *run, const struct ios_ior_params *p);

#define IOS_MDTEST_MAX_REPS 7 /* nine phases each: within IOS_MAX_PHASES */
#define IOS_MDTEST_MAX_DIRS 64
#define IOS_MDTEST_MAX_NODES 1000000 /* directories per tree */
#define IOS_MDTEST_MAX_DEPTH 64

/* `ioscore-suite mdtest ARGS...`: mdtest's options (src/acceptance/mdtest_options.c), the run
 * (src/acceptance/mdtest_run.c). */
struct ios_mdtest_params {
    uint64_t items;                 /* -n per rank */
    int depth, branch;              /* -z, -b */
    int files_only, dirs_only;      /* -F, -D */
    int create, stat, read, remove; /* -C -T -E -r (none: all) */
    int unique;                     /* -u: a tree per rank */
    int leaf;                       /* -L: items in the leaves only */
    int stride;                     /* -N */
    uint64_t items_per_dir;         /* -I (instead of -n) */
    int stonewall;                  /* -W seconds: file creation stops, then wear-out */
    int sync;                       /* -Y: sync at the end of each phase, inside its timing */
    int verify;                     /* -X: compare the -e bytes read with what -w wrote */
    int print_time;                 /* -P: also the time table */
    int reps;                       /* -i */
    int verbose;
    uint64_t write_bytes, read_bytes; /* -w, -e */
    char dir_list[IOS_PATH_MAX];      /* -d, split in place at '@' */
    char dir_list_text[IOS_PATH_MAX];
    const char *dirs[IOS_MDTEST_MAX_DIRS];
    int n_dirs;
    uint64_t nodes, leaves, per_node; /* derived: directories per tree, items per directory */
    char resultdir[IOS_PATH_MAX];
    char command[2048];
};

/* Parses mdtest's options (argv[0] is "mdtest"); 0, 1 after help, 2 after the error. */
int ios_mdtest_parse(struct ios_mdtest_params *p, int argc, char **argv, int rank);
/* Runs the parsed test on every rank; returns the exit status. */
int ios_mdtest_run(struct ios_run *run, const struct ios_mdtest_params *p);

/* Closes a launch: result.json, the summary file; 3 (reason printed) if the run aborted. */
int ios_acceptance_finish(struct ios_run *run, const char *tool);

/* Position `i` of a bijection of [0, n) keyed by `key` (-z order, no table). */
uint64_t ios_ior_permute(uint64_t i, uint64_t n, uint64_t key);

#endif
