/*
 * timestamp (BENCHMARK-RULES §1.3.5): rank 0 creates the empty <resdir>/timestampfile, whose
 * ctime is the reference of find's -newer test. Not scored.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "ioscore/phases.h"

static void timestamp_run(struct ios_phase_ctx *ctx)
{
    struct ios_run *run = ctx->run;
    ctx->mine.start = ios_wtime();
    if (run->rank == 0) {
        char path[IOS_PATH_MAX];
        ios_path(path, sizeof path, "%s/timestampfile", run->resdir);
        /* resdir is ours and POSIX whatever the data API is */
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0)
            ios_phase_error(ctx, -errno, "create %s", path);
        else
            close(fd);
        if (run->verbosity > 1)
            ios_phase_key(ctx, "timestamp-file", "%s", path);
    }
    ctx->mine.end = ctx->mine.end_before_barrier = ios_wtime();
}

static void timestamp_describe(const struct ios_run *run, FILE *out)
{
    fprintf(out, "  create the empty %s/timestampfile (reference ctime for find)\n", run->resdir);
}

const struct ios_phase ios_phase_timestamp = {
    .name = "timestamp",
    .group = NULL,
    .score_group = IOS_GROUP_NONE,
    .type = IOS_PHASE_DUMMY,
    .metric = IOS_METRIC_NONE,
    .unit = IOS_UNIT_KIOPS,
    .pattern = "rank 0 creates one empty file (find's -newer reference)",
    .creates = "<resdir>/timestampfile (kept with the results)",
    .run = timestamp_run,
    .describe = timestamp_describe,
};
