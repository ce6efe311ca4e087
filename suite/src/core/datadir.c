/*
 * The data directory: rank 0 creates it with the marker of an ioscore run (checked by
 * ios_run_validate), the final cleanup after a scored run and --cleanup of an earlier run's
 * data. What is removed is each phase's business (its cleanup and sweep hooks, which know the
 * names it creates); here only the marker and the directory itself.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run_steps.h"

void ios_datadir_prepare(struct ios_run *run)
{
    char err[IOS_PATH_MAX * 3] = "";
    int rc = 0;
    if (run->rank == 0) {
        int e = ios_mkdir_p(run->resdir, 0700);
        if (e != 0) {
            snprintf(err, sizeof err, "cannot create result directory %s: %s", run->resdir,
                     strerror(-e));
            rc = -1;
        }
        if (rc == 0) {
            e = ios_mkdir_p(run->datadir, 0700);
            if (e != 0) {
                snprintf(err, sizeof err, "cannot create data directory %s: %s", run->datadir,
                         strerror(-e));
                rc = -1;
            }
        }
        if (rc == 0) {
            char marker[IOS_PATH_MAX];
            ios_path(marker, sizeof marker, "%s/%s", run->datadir, IOS_MARKER_NAME);
            char text[IOS_PATH_MAX + 128];
            int n = snprintf(text, sizeof text, "ioscore %s\ntimestamp %s\nresultdir %s\n",
                             run->version, run->timestamp, run->resdir);
            e = ios_write_file_atomic(marker, text, (size_t)n);
            if (e != 0) {
                snprintf(err, sizeof err, "cannot write %s: %s", marker, strerror(-e));
                rc = -1;
            }
        }
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, ios_test_comm);
    if (rc != 0) {
        if (run->rank == 0)
            fprintf(stderr, "ioscore-suite: ERROR: %s\n", err);
        MPI_Finalize();
        exit(2);
    }
}

/* Rank 0: the marker, then the data directory (empty unless someone else wrote into it). */
static void remove_marker_and_datadir(const struct ios_run *run, int verbose)
{
    char path[IOS_PATH_MAX];
    ios_path(path, sizeof path, "%s/%s", run->datadir, IOS_MARKER_NAME);
    unlink(path);
    if (rmdir(run->datadir) != 0 && errno != ENOENT && verbose)
        fprintf(stderr, "ioscore-suite: WARNING: data directory %s not removed: %s\n", run->datadir,
                strerror(errno));
}

void ios_datadir_cleanup(struct ios_run *run)
{
    int n = 0;
    const struct ios_phase *const *phases = ios_standard_phases(&n);
    char err[IOS_MSG_MAX];
    for (int i = 0; i < n; i++) {
        const struct ios_phase *p = phases[i];
        struct ios_backend be;
        /* the backend was checked before any I/O; an error here leaves the phase's data */
        if (!p->cleanup ||
            ios_backend_for_phase(&run->cfg, p->name, p->group, &be, err, sizeof err) != 0)
            continue;
        p->cleanup(run, &be);
    }
    MPI_Barrier(ios_test_comm); /* every rank's removals before the directory goes */
    if (run->rank == 0)
        remove_marker_and_datadir(run, 1);
    MPI_Barrier(ios_test_comm);
}

int ios_run_cleanup_only(struct ios_run *run)
{
    int rc = 0;
    if (run->rank == 0) {
        char marker[IOS_PATH_MAX];
        ios_path(marker, sizeof marker, "%s/%s", run->datadir, IOS_MARKER_NAME);
        if (access(marker, F_OK) != 0) {
            fprintf(stderr,
                    "ioscore-suite: ERROR: --cleanup: %s has no %s marker of an ioscore "
                    "run; nothing removed (pass --timestamp of the run to clean when "
                    "timestamp-datadir = TRUE)\n",
                    run->datadir, IOS_MARKER_NAME);
            rc = 2;
        } else {
            int n = 0;
            const struct ios_phase *const *phases = ios_standard_phases(&n);
            long removed = 0;
            for (int i = 0; i < n; i++)
                if (phases[i]->sweep)
                    removed += phases[i]->sweep(run, run->verbosity > 0);
            unlink(marker);
            ios_rmdir_quiet(run->datadir, 1);
            if (!run->quiet)
                printf("ioscore-suite: --cleanup removed %ld files below %s\n", removed,
                       run->datadir);
        }
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, ios_test_comm);
    return rc;
}
