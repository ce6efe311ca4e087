/*
 * The per-entry work of the find engine, free of MPI: open a directory safely, read it with
 * getdents64, and classify, count, stat and match its entries exactly as pfind counts them
 * (spec §6.2). The engine (find_engine.c) decides which rank does which piece.
 */
#ifndef IOSCORE_FIND_SCAN_H
#define IOSCORE_FIND_SCAN_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "ioscore/find.h"
#include "find_match.h"
#include "find_queue.h"

/* One getdents64 call asks for this much: few syscalls even on huge directories. */
enum { FIND_DIRENT_BUFFER = 1 << 20 };

struct find_scanner {
    struct find_matcher matcher;
    int need_stat;      /* -newer or -size given: a name match is lstat-ed */
    int64_t size_bytes; /* -1 = no size test */
    int has_newer;
    int64_t ref_ctime; /* whole seconds */
    int cross_mounts;
    int no_range_split;
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
 * after that record (POSIX telldir/seekdir). That alone allows handing the *rest* of a
 * directory over, not splitting it. To split, we need the cookie order, which depends on the
 * file system. On tmpfs (Linux 6.x with stable offsets, as here) the records come in
 * strictly decreasing d_off order, d_off being the next entry's offset + 1, and a seek to any
 * value X continues with the entries below X. So a range is (start S, stop E): seek to S and
 * take records until one's predecessor has d_off <= E. A victim at position p splits its range
 * (p, E) by probing at X = E + (p - E) / 2: the first record found there has d_off = C, an
 * exact resume cookie, so the victim keeps (p, C) and the thief gets (C, E), with no entry in
 * both and none lost. Splitting is enabled only on tmpfs, and only while every record seen so
 * far confirmed the decreasing order; elsewhere big directories are shared by batches of
 * names instead.
 */
struct find_cursor {
    int64_t stop;      /* range end: INT64_MIN = to the end of the directory */
    int64_t last_doff; /* d_off of the last record taken (the resume cookie) */
    int seen_entry;    /* a record other than "." and ".." was taken */
    int confirmed;     /* entry pairs seen in decreasing-cookie order */
    int ordered;       /* no pair so far contradicted that order */
    int splittable;    /* the file system's cookie order is known (tmpfs) */
};

/* A cursor for a directory read from its start (S = 0) or from a RANGE item. */
void find_cursor_init(struct find_cursor *c, int fd, int64_t stop);

/*
 * Cut a getdents64 batch down to the records of the cursor's range (always a prefix, as the
 * order is the cookie order). Returns the bytes to use; *ended is set when the range ends
 * inside this batch (the directory is then finished for this reader).
 */
size_t find_cursor_take(struct find_cursor *c, const char *buf, size_t nbytes, int *ended);

/*
 * Split the rest of the range being read on fd in two; on success returns 1, shrinks the
 * cursor's range to the first part and sets *start / *stop to the second part. Returns 0 when
 * the range cannot (or need not) be split. The fd's position is restored either way.
 */
int find_cursor_split(struct find_cursor *c, int fd, int64_t *start, int64_t *stop);

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
