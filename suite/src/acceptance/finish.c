/*
 * The end of an ior or mdtest launch, shared by both: close the run, write result.json, and
 * turn an aborted run into exit status 3 with its reason (every rank calls it).
 */
#include <ftw.h>
#include <stdio.h>

#include "ioscore/acceptance.h"
#include "ioscore/report.h"

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path) == 0 ? 0 : -1;
}

int ios_acceptance_finish(struct ios_run *run, const char *tool)
{
    run->t_run_end = ios_wtime();
    run->finished = 1;
    ios_instrument_cfg_free(&run->instr);
    if (run->rank == 0) {
        if (ios_report_json(run) != 0)
            fprintf(stderr, "ioscore-suite %s: WARNING: cannot write result.json\n", tool);
        if (run->summary)
            fclose(run->summary);
        run->summary = NULL;
        if (run->resdir_scratch && nftw(run->resdir, remove_entry, 16, FTW_DEPTH | FTW_PHYS) != 0)
            fprintf(stderr, "ioscore-suite %s: WARNING: cannot remove the scratch directory %s\n",
                    tool, run->resdir);
    }
    run->backend = NULL;
    if (run->aborted) {
        if (run->rank == 0)
            fprintf(stderr, "ioscore-suite %s: ERROR: %s\n", tool, run->abort_reason);
        return 3;
    }
    return 0;
}

int ios_acceptance_agree(int mine_failed)
{
    int any = 0;
    MPI_Allreduce(&mine_failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return any ? 2 : 0;
}
