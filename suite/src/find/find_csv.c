/*
 * find.csv in pfind's layout (BENCHMARK-RULES §5.5): one summary line, a header, then one line per
 * rank in rank order. The per-rank counters are gathered to rank 0, which alone writes the file.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "ioscore/find.h"

enum { CSV_FIELDS = 12 };

static void counts_to_row(const struct ioscore_find_counts *c, double row[CSV_FIELDS])
{
    /* doubles carry the integers exactly up to 2^53, far beyond any entry count */
    const double values[CSV_FIELDS] = {(double)c->errors,       (double)c->unknown,
                                       (double)c->found,        (double)c->scanned,
                                       (double)c->checked,      (double)c->steal_requests_received,
                                       (double)c->items_sent,   (double)c->steal_requests_sent,
                                       (double)c->items_stolen, c->steal_time_s,
                                       (double)c->tokens_sent,  c->runtime_s};
    for (int i = 0; i < CSV_FIELDS; i++)
        row[i] = values[i];
}

static int write_rows(const char *path, const struct ioscore_find_result *res, const double *rows,
                      int nranks)
{
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return -errno;
    fprintf(f, "runtime: %f rate: %f\n", res->total.runtime_s, res->rate);
    fprintf(f, "rank, errors, unknown, found, total, checked, job steal msgs received, "
               "work items send, job steal msgs send, work items stolen, "
               "time spend in job stealing in s, number of completion tokens send\n");
    for (int r = 0; r < nranks; r++) {
        const double *v = rows + (size_t)r * CSV_FIELDS;
        fprintf(f,
                "%d, %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64
                ", %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %.3fs, %" PRIu64 "\n",
                r, (uint64_t)v[0], (uint64_t)v[1], (uint64_t)v[2], (uint64_t)v[3], (uint64_t)v[4],
                (uint64_t)v[5], (uint64_t)v[6], (uint64_t)v[7], (uint64_t)v[8], v[9],
                (uint64_t)v[10]);
    }
    int failed = ferror(f);
    if (fclose(f) != 0 || failed)
        return errno ? -errno : -EIO;
    return 0;
}

int ioscore_find_write_csv(MPI_Comm comm, const struct ioscore_find_result *res, const char *path)
{
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    double mine[CSV_FIELDS];
    counts_to_row(&res->mine, mine);
    double *rows = NULL;
    int rc = 0;
    if (rank == 0) {
        rows = malloc(sizeof(double) * CSV_FIELDS * (size_t)size);
        if (rows == NULL)
            rc = -ENOMEM;
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, comm); /* rank 0 out of memory: nobody gathers */
    if (rc != 0)
        return rc;
    MPI_Gather(mine, CSV_FIELDS, MPI_DOUBLE, rows, CSV_FIELDS, MPI_DOUBLE, 0, comm);
    if (rank == 0)
        rc = write_rows(path, res, rows, size);
    free(rows);
    MPI_Bcast(&rc, 1, MPI_INT, 0, comm);
    return rc;
}
