/*
 * Small helpers shared by every module: clocks, size strings, path building, error text, and
 * the communicator of the test's ranks. Nothing here talks to MPI except ios_fatal(), which
 * aborts the whole job with a message.
 */
#ifndef IOSCORE_UTIL_H
#define IOSCORE_UTIL_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#define IOS_PATH_MAX 4096
#define IOS_MSG_MAX 512

/* The ranks of the test: MPI_COMM_WORLD, or the first N when `ioscore-suite ior -N N` leaves
 * the others idle as IOR does (main sets it before the placement). Every collective of a run
 * is on it; an abort takes the whole job (MPI_COMM_WORLD). */
extern MPI_Comm ios_test_comm;

/* Wall-clock seconds since the epoch (CLOCK_REALTIME): comparable across ranks and nodes. */
double ios_wtime(void);

/* Formats the local time of `t` (epoch seconds) with strftime(fmt). */
void ios_format_time(double t, const char *fmt, char *buf, size_t len);

/*
 * Parses an IOR size: digits with an optional k/m/g/t/p suffix (any case, x 2^10 ... 2^50),
 * which may be followed by "b" or "ib" (512k = 512kb = 512KiB = 512 KiB, as IOR reads them).
 * Returns 0, or -1 for an empty string, a bad suffix, trailing junk or overflow.
 */
int ios_parse_size(const char *text, uint64_t *out);

/* Parses a plain decimal integer (optional leading '-'); returns 0 or -1. */
int ios_parse_int64(const char *text, int64_t *out);

/* snprintf that aborts the job when the result would be truncated (paths must never be cut). */
void ios_path(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Creates every missing component of `path` with `mode`; returns 0 or -errno. */
int ios_mkdir_p(const char *path, unsigned mode);

/* Prints "ioscore-suite: rank R: <msg>" to stderr and aborts MPI_COMM_WORLD. */
void ios_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* Reads a whole file into a NUL-terminated malloc'd buffer; returns NULL with errno set. */
char *ios_read_file(const char *path, size_t *len_out);

/* Writes `data` to `path` through a temporary file and rename, so readers never see half. */
int ios_write_file_atomic(const char *path, const char *data, size_t len);

/* Case-insensitive ASCII string equality. */
int ios_streq_nocase(const char *a, const char *b);

#endif
