/*
 * The start and the end of an ior or mdtest launch, shared by both. The start makes the result
 * directory and its result_summary.txt, sets up the run state of an unscored launch and points
 * result.json at the launch's own report; the end closes the run, writes result.json and turns
 * an aborted run into exit status 3 with its reason. Every rank calls both.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ioscore/acceptance.h"
#include "ioscore/report.h"

int ios_acceptance_start(struct ios_run *run, const char *tool, const struct ios_backend *be,
                         const char *stale_manifest, struct ios_acc_launch *acc, int stonewall_s)
{
    int rc = 0;
    if (run->rank == 0) {
        rc = ios_mkdir_p(run->resdir, 0700);
        if (rc != 0)
            fprintf(stderr, "ioscore-suite %s: ERROR: cannot create %s: %s\n", tool, run->resdir,
                    strerror(-rc));
        char path[IOS_PATH_MAX];
        ios_path(path, sizeof path, "%s/result_summary.txt", run->resdir);
        if (rc == 0 && !(run->summary = fopen(path, "w"))) {
            fprintf(stderr, "ioscore-suite %s: ERROR: cannot create %s\n", tool, path);
            rc = -EIO;
        }
    }
    if (ios_acceptance_agree(rc != 0))
        return 2;
    run->backend = be;
    run->unscored = 1;
    run->quiet = 1; /* the engine's IO500 summary lines go to result_summary.txt only */
    acc->result = (struct ios_result_extra){stonewall_s, ios_acc_json_members, &acc->report};
    run->extra = &acc->result;
    /* the data is about to be replaced: an earlier test's manifest no longer describes it,
     * even if this launch fails */
    if (stale_manifest && run->rank == 0)
        unlink(stale_manifest);
    ios_instrument_cfg_init(&run->instr, run->rank, 1, -1, 0);
    run->t_run_start = ios_wtime();
    return 0;
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
    }
    run->backend = NULL;
    run->extra = NULL; /* the launch's state ends with the launch */
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
    MPI_Allreduce(&mine_failed, &any, 1, MPI_INT, MPI_MAX, ios_test_comm);
    return any ? 2 : 0;
}
