/* Rank shifts of the benchmark (spec §8.1), from the run's placement of ranks on nodes. */
#include "ioscore/run.h"

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
