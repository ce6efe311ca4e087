/*
 * The baseline for bench/find_bench.py: the fastest single-process tree walk we can write,
 * a bare getdents64 loop (1 MiB buffer, d_type only, no stat, no matching, no MPI). It counts
 * non-directory entries the way ioscore-find counts "scanned", and prints
 *   scanned <n> dirs <d> time <seconds>
 * Build: cc -std=c11 -O2 -Wall -Wextra -Werror bench/find_getdents_loop.c -o getdents_loop
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

struct linux_dirent64 {
    uint64_t d_ino;
    int64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

enum { BUFFER = 1 << 20 };

static char buffer[BUFFER];
static uint64_t scanned, dirs;

/* Depth-first with openat, so path length never matters. */
static void walk(int dirfd)
{
    dirs++;
    long n;
    while ((n = syscall(SYS_getdents64, dirfd, buffer, BUFFER)) > 0) {
        /* sub-directories are collected first: the shared buffer is reused by the recursion */
        size_t nsub = 0, cap = 0;
        char **subs = NULL;
        for (long pos = 0; pos < n;) {
            struct linux_dirent64 *d = (struct linux_dirent64 *)(buffer + pos);
            pos += d->d_reclen;
            const char *name = d->d_name;
            if (name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0)))
                continue;
            if (d->d_type == DT_DIR) {
                if (nsub == cap) {
                    cap = cap ? 2 * cap : 16;
                    subs = realloc(subs, cap * sizeof(*subs));
                }
                subs[nsub++] = strdup(name);
            } else {
                scanned++;
            }
        }
        for (size_t i = 0; i < nsub; i++) {
            int fd = openat(dirfd, subs[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (fd >= 0) {
                walk(fd);
                close(fd);
            }
            free(subs[i]);
        }
        free(subs);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int fd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        perror(argv[1]);
        return 1;
    }
    walk(fd);
    close(fd);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    printf("scanned %llu dirs %llu time %.6f\n", (unsigned long long)scanned,
           (unsigned long long)dirs, s);
    return 0;
}
