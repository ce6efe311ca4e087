/* Rank shifts of the benchmark (spec §8.1), from the run's placement of ranks on nodes. */
#include <stdlib.h>
#include <string.h>

#include "ioscore/run.h"

static int by_name_then_index(const void *a, const void *b)
{
    const char *const *x = a, *const *y = b;
    int c = strcmp(*x, *y);
    return c ? c : (*x > *y) - (*x < *y);
}

int ios_distinct_hosts(const char (*hosts)[IOS_HOST_MAX], int n, unsigned char *first)
{
    if (n <= 0)
        return 0;
    const char **sorted = malloc((size_t)n * sizeof *sorted);
    if (!sorted)
        ios_fatal("out of memory (hosts)");
    for (int r = 0; r < n; r++)
        sorted[r] = hosts[r];
    qsort(sorted, (size_t)n, sizeof *sorted, by_name_then_index);
    int distinct = 0;
    if (first)
        memset(first, 0, (size_t)n);
    for (int i = 0; i < n; i++) {
        if (i > 0 && strcmp(sorted[i], sorted[i - 1]) == 0)
            continue;
        distinct++;
        if (first)
            first[(sorted[i] - hosts[0]) / IOS_HOST_MAX] = 1;
    }
    free(sorted);
    return distinct;
}

int ios_ior_shift(const struct ios_run *run)
{
    int s = run->block_mapped ? run->ppn0 : 1;
    return run->size > 0 ? s % run->size : 0;
}

int ios_mdtest_shift(const struct ios_run *run)
{
    int s = (run->nnodes > 1 && run->block_mapped) ? run->ppn0 : 1;
    return run->size > 0 ? s % run->size : 0;
}
