/*
 * The per-entry work of the find engine, free of MPI: open a directory safely, read it with
 * getdents64, and classify, count, stat and match its entries exactly as pfind counts them
 * (BENCHMARK-RULES §6.2). The engine (find_engine.c) decides which rank does which piece.
 */
#ifndef IOSCORE_FIND_SCAN_H
#define IOSCORE_FIND_SCAN_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "ioscore/find.h"
#include "find_match.h"
#include "find_queue.h"

/*
 * One getdents64 call asks for this much (~1,600 suite-sized entries). Measured on tmpfs with
 * 2 ranks (bench/find_bench.py): 2-3 % faster than 16 KiB or 256 KiB-1 MiB; the batch stays
 * in cache while it is classified and a thief's request waits at most one short batch.
 */
enum { FIND_DIRENT_BUFFER = 64 << 10 };

struct find_scanner {
    struct find_matcher matcher;
    int need_stat;      /* -newer or -size given: a name match is lstat-ed */
    int64_t size_bytes; /* -1 = no size test */
    int has_newer;
    int64_t ref_ctime; /* whole seconds */
    int cross_mounts;
    uint64_t root_dev;
    int verbose;
    int errors_shown;
    struct ioscore_find_counts *counts;
    int print_matches; /* collect the paths of matches */
    char *out;         /* whole lines of matched paths, handed to emit in line-aligned chunks */
    size_t out_len;
    void (*emit)(void *ctx, const char *lines, size_t len);
    void *emit_ctx;
};

void find_scanner_flush(struct find_scanner *sc);

/* Count an error and describe it on stderr (every one when verbose, else the first few). */
void find_report_error(struct find_scanner *sc, const char *what, const char *path,
                       const char *name, int err);

/*
 * Open a directory below the root without following a symlink in its last component.
 * Paths longer than PATH_MAX are opened component by component with openat. Returns an fd
 * or -errno.
 */
int find_open_dir(const char *path, int follow);

/*
 * Open a directory item for reading: applies the file-system boundary test. Returns an fd,
 * -1 when the directory is skipped (other file system) or failed (error counted).
 */
int find_open_for_reading(struct find_scanner *sc, const char *path);

/* One getdents64 call: bytes read, 0 at the end, -errno on failure. */
long find_read_batch(int fd, char *buf, size_t cap);

/*
 * Reading one directory, possibly only a range of it.
 *
 * Every getdents64 record carries d_off, the "resume cookie": seeking there continues right
 * after that record (POSIX telldir/seekdir). Call a record's *position* the d_off of the
 * record before it. Where the file system hands records out in a monotonic cookie order and a
 * seek to ANY value X continues with the first record whose position is at or past X, a
 * directory can be split by cookie values. Measured here (see tests/suite/test_find_fs.py):
 *
 *   tmpfs (Linux >= 6.6)  descending: d_off = next offset + 1, the last record says INT32_MAX
 *   ext4                  ascending: 63-bit name hashes (htree), byte offsets (small dirs)
 *   xfs                   ascending: addresses in the directory's data space
 *   btrfs                 ascending: per-directory index numbers, the last says INT32_MAX
 *
 * The engine works in "key" space, key = direction x cookie, so both orders read as ascending.
 * A range is [start, stop): seek to start, take records until the position of the next one
 * is >= stop. A reader at position p splits [p, stop) by probing at the middle X: the probe's
 * first two entries R1, R2 with key(d_off R1) < key(d_off R2) give the cut C = d_off(R2), a
 * boundary between two distinct positions, so the reader keeps [p, C) (R1 and R2 included)
 * and the thief gets [C, stop) with no entry in both and none lost. With no stop (reading to
 * the end), an ascending directory's end is found by doubling probes, then halving. The probe
 * also names the thief's first entry, which the thief checks after its seek.
 *
 * Splitting is used only on the file systems above (or any, when forced), and only while every
 * record seen confirms the order; otherwise a big directory is shared by batches of names.
 */
struct find_cursor {
    int direction;     /* +1 ascending, -1 descending, 0 not (yet) known: never split */
    int learn;         /* IOSCORE_FIND_RANGE_ANY: take the direction from the first entries */
    int64_t stop;      /* range end (a cookie); FIND_NO_STOP = to the end of the directory */
    int64_t last_doff; /* d_off of the last record taken (the resume cookie) */
    int64_t first_doff;
    int seen_entry; /* a record other than "." and ".." was taken */
    int confirmed;  /* entry pairs seen in the expected order */
    int ordered;    /* no pair so far contradicted that order */
};

#define FIND_NO_STOP INT64_MIN

/* The cookie order of the file system fd lives on, for a policy: +1, -1 or 0 (no splitting). */
int find_cookie_direction(int fd, enum ioscore_find_range_policy policy);

/* A cursor for a directory read from its start or from a RANGE item's start. */
void find_cursor_init(struct find_cursor *c, int direction, int learn, int64_t stop);

/*
 * Cut a getdents64 batch down to the records of the cursor's range (always a prefix, as the
 * order is the cookie order). Returns the bytes to use; *ended is set when the range ends
 * inside this batch (the directory is then finished for this reader).
 */
size_t find_cursor_take(struct find_cursor *c, const char *buf, size_t nbytes, int *ended);

/* A split off the rest of a range: the thief seeks to start, reads until stop, and expects
 * its first entry to be first_name. */
struct find_split {
    int64_t start, stop;
    char first_name[256];
};

/*
 * Split the rest of the range being read on fd in two, using probe (probe_cap bytes) as
 * scratch. On success returns 1, shrinks the cursor's range to the first part and fills
 * *split with the second. Returns 0 when the range cannot be split, or need not be: the
 * probe must see at least half its buffer of entries in the second half (~800 suite-sized
 * names with the 64 KiB batch buffer), else a message costs more than it saves. The fd's position
 * is restored either way; -errno when it cannot be (the reader then stops with an error).
 */
int find_cursor_split(struct find_cursor *c, int fd, char *probe, size_t probe_cap,
                      struct find_split *split);

/* The name of the first entry (not "." or "..") of a getdents64 batch, or NULL. */
const char *find_first_entry_name(const char *buf, size_t nbytes);

/* Classify every entry of a getdents64 batch read from dirfd; sub-directories are pushed. */
int find_process_dirents(struct find_scanner *sc, int dirfd, const char *path, size_t path_len,
                         const char *buf, size_t nbytes, struct find_stack *stack);

/* Turn a raw getdents64 batch into a NAMES item someone else can process. */
int find_dirents_to_names(const char *path, size_t path_len, const char *buf, size_t nbytes,
                          struct find_item *item);

/* Process a NAMES item handed over by another rank (opens its directory only to stat). */
int find_process_names(struct find_scanner *sc, const struct find_item *item,
                       struct find_stack *stack);

#endif
