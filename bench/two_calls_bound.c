/*
 * What one system call per transfer can gain over two: IOR's POSIX backend does lseek + write
 * (or read) per transfer, ioscore's pwrite (pread). With nothing else around them, this times
 * both ways on the same file and the same random 4 KiB offsets, alternating, and prints
 * ops/s of each and the ratio one-call / two-call: no engine doing the same transfers can be
 * faster than IOR by more than this ratio at that size. Not a test: it prints numbers only.
 *
 *   cc -O2 -o two_calls_bound bench/two_calls_bound.c
 *   ./two_calls_bound FILE [MiB=256] [transfer=4096] [pairs=7]
 * FILE is created (and removed): put it under /dev/shm or a file system you chose.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ops/s of one pass over offs: write (or read) with one call or with lseek + one call */
static double pass(int fd, char *buf, size_t xfer, const off_t *offs, size_t n, int writing,
                   int two_calls)
{
    double t0 = now();
    for (size_t i = 0; i < n; i++) {
        ssize_t got;
        if (two_calls) {
            if (lseek(fd, offs[i], SEEK_SET) < 0)
                return -1;
            got = writing ? write(fd, buf, xfer) : read(fd, buf, xfer);
        } else {
            got = writing ? pwrite(fd, buf, xfer, offs[i]) : pread(fd, buf, xfer, offs[i]);
        }
        if (got != (ssize_t)xfer)
            return -1;
    }
    return (double)n / (now() - t0);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: two_calls_bound FILE [MiB] [transfer] [pairs]\n");
        return 2;
    }
    size_t mib = argc > 2 ? strtoull(argv[2], NULL, 10) : 256;
    size_t xfer = argc > 3 ? strtoull(argv[3], NULL, 10) : 4096;
    int pairs = argc > 4 ? atoi(argv[4]) : 7;
    if (mib == 0 || xfer == 0 || pairs < 1 || pairs > 1000 || (mib << 20) % xfer) {
        fprintf(stderr, "two_calls_bound: MiB, transfer (dividing MiB) and pairs must be > 0\n");
        return 2;
    }
    size_t n = (mib << 20) / xfer;
    off_t *offs = malloc(n * sizeof *offs);
    char *buf = malloc(xfer);
    double *r1 = malloc((size_t)pairs * 2 * sizeof *r1), *r2 = r1 + pairs;
    if (!offs || !buf || !r1)
        return 1;
    memset(buf, 'x', xfer);
    for (size_t i = 0; i < n; i++)
        offs[i] = (off_t)(i * xfer);
    srandom(11);
    for (size_t i = n - 1; i > 0; i--) { /* one random order of every transfer, as -z */
        size_t j = (size_t)random() % (i + 1);
        off_t t = offs[i];
        offs[i] = offs[j];
        offs[j] = t;
    }
    int fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        perror(argv[1]);
        return 1;
    }
    int bad = 0;
    for (int writing = 1; writing >= 0 && !bad; writing--) {
        for (int p = 0; p < pairs; p++) {
            int first = p % 2; /* alternate which way goes first */
            double a = pass(fd, buf, xfer, offs, n, writing, first);
            double b = pass(fd, buf, xfer, offs, n, writing, !first);
            if (a < 0 || b < 0) {
                perror("transfer");
                bad = 1;
                break;
            }
            r1[p] = first ? b : a; /* one call */
            r2[p] = first ? a : b; /* lseek + call */
        }
        if (bad)
            break;
        double ratios[1000];
        for (int p = 0; p < pairs; p++)
            ratios[p] = r1[p] / r2[p];
        double one = median(r1, pairs), two = median(r2, pairs), ratio = median(ratios, pairs);
        printf("%-5s %zu-byte random: one call %.0f ops/s, lseek + call %.0f ops/s, "
               "bound %.3fx (median of %d pairs)\n",
               writing ? "write" : "read", xfer, one, two, ratio, pairs);
    }
    close(fd);
    unlink(argv[1]);
    return bad;
}
