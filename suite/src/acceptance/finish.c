/*
 * The end of an ior or mdtest launch, shared by both: close the run, write result.json, and
 * turn an aborted run into exit status 3 with its reason (every rank calls it).
 */
#include <stdio.h>

#include "ioscore/acceptance.h"
#include "ioscore/report.h"

int ios_acceptance_finish(struct ios_run *run, const char *tool)
{
    run->t_run_end = ios_wtime();
    run->finished = 1;
    ios_instrument_cfg_free(&run->instr);
    if (run->rank == 0) {
        if (ios_report_json(run) != 0)
            fprintf(stderr, "ioscore-suite %s: WARNING: cannot write result.json\n", tool);
        fclose(run->summary);
        run->summary = NULL;
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
