/*
 * Raw anchor for the mdtest-style phases of bench/suite_vs_anchor.py: the same syscalls as the
 * suite (open O_CREAT + [pwrite 3901] + close, stat, open + pread + close, unlink, a final
 * sync for creates) in the same directory layout and names, with nothing else around them.
 *
 *   mpirun -np N suite_md_anchor MODE DIR FILES_PER_RANK
 *   MODE: easy-create easy-stat easy-delete hard-create hard-stat hard-read hard-delete
 * Prints "<MODE> <total ops> <seconds>" where seconds = max over ranks (barrier to barrier).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void fail(const char *what, const char *path)
{
    perror(path);
    fprintf(stderr, "suite_md_anchor: %s failed\n", what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 4) {
        if (rank == 0)
            fprintf(stderr, "usage: suite_md_anchor MODE DIR FILES_PER_RANK\n");
        MPI_Finalize();
        return 2;
    }
    const char *mode = argv[1], *dir = argv[2];
    long files = atol(argv[3]);
    int hard = strncmp(mode, "hard", 4) == 0;
    const char *op = strchr(mode, '-') + 1;
    /* The suite's (and mdtest's) names and depth: every extra path component is one more
     * lookup per call, so a shallower anchor would be faster for that alone. */
    char top[4096], tree[4200], path[4400];
    snprintf(top, sizeof top, "%s/mdtest-%s", dir, hard ? "hard" : "easy");
    if (hard)
        snprintf(tree, sizeof tree, "%s/test-dir.0-0/mdtest_tree.0", top);
    else
        snprintf(tree, sizeof tree, "%s/test-dir.0-0/mdtest_tree.%d.0", top, rank);
    if (strcmp(op, "create") == 0) {
        if (rank == 0) {
            mkdir(top, 0700);
            snprintf(path, sizeof path, "%s/test-dir.0-0", top);
            mkdir(path, 0700);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (!hard || rank == 0)
            mkdir(tree, 0700);
    }
    char buf[3901];
    for (int i = 0; i < 3901; i++)
        buf[i] = (char)i;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now();
    for (long i = 0; i < files; i++) {
        snprintf(path, sizeof path, "%s/file.mdtest.%d.%ld", tree, rank, i);
        if (strcmp(op, "create") == 0) {
            int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
            if (fd < 0)
                fail("open", path);
            if (hard && pwrite(fd, buf, sizeof buf, 0) != (ssize_t)sizeof buf)
                fail("pwrite", path);
            close(fd);
        } else if (strcmp(op, "stat") == 0) {
            struct stat st;
            if (stat(path, &st) != 0)
                fail("stat", path);
        } else if (strcmp(op, "read") == 0) {
            int fd = open(path, O_RDONLY | O_CLOEXEC);
            if (fd < 0 || pread(fd, buf, sizeof buf, 0) != (ssize_t)sizeof buf)
                fail("read", path);
            close(fd);
        } else if (unlink(path) != 0) {
            fail("unlink", path);
        }
    }
    if (strcmp(op, "create") == 0)
        sync();
    double mine = now() - t0, slowest = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (strcmp(op, "delete") == 0) {
        if (!hard)
            rmdir(tree);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            if (hard)
                rmdir(tree);
            snprintf(path, sizeof path, "%s/test-dir.0-0", top);
            rmdir(path);
            rmdir(top);
        }
    }
    if (rank == 0)
        printf("%s %ld %.6f\n", mode, files * size, slowest);
    MPI_Finalize();
    return 0;
}
