/*
 * The parallel find engine: one collective call on an MPI communicator.
 *
 * Shared by the suite's find phase and the standalone ioscore-find tool, so the two can
 * never disagree. Semantics follow pfind as described in BENCHMARK-RULES §6:
 *   - a non-directory entry is "scanned" once (directories are descended, never counted);
 *   - the name pattern is pfind's: '*' -> ".*", '.' -> "[.]", '"' dropped, and the result is a
 *     POSIX basic regex matched *unanchored* against the entry name ("*01*" = contains "01");
 *   - a name match is lstat-ed (fstatat relative to its directory) only when -newer or -size
 *     is given; -size compares st_size exactly; -newer compares ctime at whole seconds, >=;
 *   - nothing below the root is followed through symlinks; other file systems are not entered
 *     unless cross_mounts is set.
 * Large directories are read with getdents64 in 64 KiB batches and shared out between ranks:
 * split by directory-offset ranges where the cookie order is known (tmpfs, ext4, xfs, btrfs),
 * otherwise handed over in batches of names. Design and counting rules: src/find/README.md.
 */
#ifndef IOSCORE_FIND_H
#define IOSCORE_FIND_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

/* How one big directory may be shared out (src/find/find_scan.h). */
enum ioscore_find_range_policy {
    IOSCORE_FIND_RANGE_AUTO = 0, /* split by cookie ranges where the order is known */
    IOSCORE_FIND_RANGE_OFF,      /* only hand out batches of names */
    IOSCORE_FIND_RANGE_ANY,      /* also on other file systems whose cookies are monotonic;
                                    every range start is checked, a mismatch is an error */
};

struct ioscore_find_opts {
    const char *root;         /* directory to scan */
    const char *name_pattern; /* pfind name pattern (see above); NULL matches every name */
    const char *newer_file;   /* reference file for -newer; NULL = no time predicate */
    int64_t size_bytes;       /* -size Nc: exact size in bytes; -1 = no size predicate */
    int cross_mounts;         /* 0 = do not descend into other file systems */
    int verbose;              /* >0: report every error on stderr (else the first few) */
    enum ioscore_find_range_policy range_split;
    int steal_next;      /* pfind -N: every other steal request goes to rank-1, not a random rank */
    FILE *print_matches; /* non-NULL on every rank: rank 0 writes the path of every
                            match (all ranks') here, one per line, lines never mixed */
};

/* Counters of one rank; the engine reduces them into the totals on every rank. */
struct ioscore_find_counts {
    uint64_t found;   /* entries matching every predicate */
    uint64_t scanned; /* non-directory entries seen ("total-files") */
    uint64_t checked; /* all entries, directories included */
    uint64_t errors;  /* failed lstat/opendir, vanished entries */
    uint64_t unknown; /* entries whose d_type was DT_UNKNOWN */
    uint64_t dirs;    /* directories read */
    double runtime_s; /* this rank's start -> end */
    /* Work-stealing statistics (the columns of find.csv, BENCHMARK-RULES §5.5). */
    uint64_t steal_requests_received; /* "job steal msgs received" */
    uint64_t items_sent;              /* "work items send" */
    uint64_t steal_requests_sent;     /* "job steal msgs send" */
    uint64_t items_stolen;            /* "work items stolen" (received from victims) */
    double steal_time_s;              /* "time spend in job stealing in s" (idle, waiting) */
    uint64_t tokens_sent;             /* "number of completion tokens send" */
    /* How big directories were shared (not in find.csv; ioscore-find -v prints them). */
    uint64_t entries_read;       /* entries this rank got from getdents64 itself */
    uint64_t ranges_given;       /* parts of a directory handed to a thief to read */
    uint64_t name_batches_given; /* batches of names handed to a thief to classify */
};

struct ioscore_find_result {
    struct ioscore_find_counts total; /* sums; runtime_s and steal_time_s = max over ranks */
    struct ioscore_find_counts mine;  /* the calling rank's own counters */
    double rate;                      /* total.scanned / total.runtime_s, entries per second */
};

/*
 * Collective over comm. Returns 0 on success, or a negative errno-style code when the root
 * cannot be opened or the -newer reference cannot be stat-ed (the same code on every rank).
 * Never aborts the communicator. Errors below the root are counted, not fatal.
 */
int ioscore_find_run(MPI_Comm comm, const struct ioscore_find_opts *opts,
                     struct ioscore_find_result *out);

/*
 * Check a name pattern without scanning: 0 when it compiles, -EINVAL otherwise. Local call.
 */
int ioscore_find_check_pattern(const char *name_pattern);

/*
 * Collective over the same comm as the run: gathers every rank's `mine` counters to rank 0,
 * which writes find.csv in pfind's format (BENCHMARK-RULES §5.5) to `path`. Returns 0, or -errno
 * from opening/writing the file (the same code on every rank).
 */
int ioscore_find_write_csv(MPI_Comm comm, const struct ioscore_find_result *res, const char *path);

#endif
