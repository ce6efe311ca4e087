/*
 * IOR's command line for `ioscore-suite ior`, declared once in `ior_opts` below: each row is
 * an IOR option with IOR's letter, meaning and default (-a POSIX -b 1m -t 256k -s 1 -i 1 -Q 1
 * -o testFile; without -w/-r/-W/-R a write then a read), or an IOR option this build does not
 * implement, refused with IOR's meaning so a plan never runs a silently different workload.
 * Parsing, --help and the refusals come from the table (src/acceptance/cli_options.c); this file
 * adds the value rules of a few options and the relations between options, as IOR checks them.
 */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ioscore/acceptance.h"
#include "ioscore/backend.h"
#include "ioscore/cli_options.h"
#include "ioscore/ior_layout.h"
#include "ioscore/ior_summary.h"

#define STR(x) #x
#define XSTR(x) STR(x)
#define MAX_REPS_TEXT XSTR(IOS_IOR_MAX_REPS)
#define F(member) IOS_CLI_FIELD(struct ios_ior_params, member)

static int set_api(void *params, const struct ios_cli_opt *o, const char *v, char *err, size_t len)
{
    struct ios_ior_params *p = params;
    (void)o;
    if (ios_streq_nocase(v, "POSIX"))
        snprintf(p->api, sizeof p->api, "POSIX");
    else if (ios_streq_nocase(v, "MPIIO"))
        snprintf(p->api, sizeof p->api, "MPIIO");
    else if (ios_streq_nocase(v, "DUMMY")) /* no I/O: the harness's own cost */
        snprintf(p->api, sizeof p->api, "DUMMY");
    else if (ios_streq_nocase(v, "IOURING") && ios_backends_optional()[0])
        snprintf(p->api, sizeof p->api, "IOURING");
    else if (ios_streq_nocase(v, "IOURING")) {
        snprintf(err, len,
                 "not supported: -a IOURING: this build has no io_uring backend (built without "
                 "liburing; Debian: liburing-dev)");
        return -1;
    } else {
        snprintf(err, len, "not supported: -a %s (this build offers POSIX, MPIIO%s and DUMMY)", v,
                 ios_backends_optional()[0] ? ", IOURING" : "");
        return -1;
    }
    return 0;
}

/* -O summaryFormat: IOR's result output as text, JSON or CSV (ior_summary.c prints it). */
static int set_summary_format(void *params, const struct ios_cli_opt *o, const char *v, char *err,
                              size_t len)
{
    struct ios_ior_params *p = params;
    if (ios_streq_nocase(v, "default"))
        p->summary_format = IOS_IOR_TEXT;
    else if (ios_streq_nocase(v, "JSON"))
        p->summary_format = IOS_IOR_JSON;
    else if (ios_streq_nocase(v, "CSV"))
        p->summary_format = IOS_IOR_CSV;
    else {
        snprintf(err, len, "%s", o->expect);
        return -1;
    }
    return 0;
}

static int set_packet(void *params, const struct ios_cli_opt *o, const char *v, char *err,
                      size_t len)
{
    struct ios_ior_params *p = params;
    if (!v[0] || !strchr("toir", tolower((unsigned char)v[0]))) {
        snprintf(err, len, "%s", o->expect);
        return -1;
    }
    p->packet = ios_packet_from_string(v);
    snprintf(p->packet_name, sizeof p->packet_name, "%s",
             p->packet == IOS_PACKET_TIMESTAMP        ? "timestamp"
             : p->packet == IOS_PACKET_OFFSET         ? "offset"
             : p->packet == IOS_PACKET_INCOMPRESSIBLE ? "incompressible"
                                                      : "random");
    return 0;
}

static int set_signature(void *params, const struct ios_cli_opt *o, const char *v, char *err,
                         size_t len)
{
    struct ios_ior_params *p = params;
    char *end = NULL;
    long long n = strtoll(v, &end, 10);
    if (end == v || *end || n < INT32_MIN || n > INT32_MAX) {
        snprintf(err, len, "%s", o->expect);
        return -1;
    }
    p->seed = (int32_t)n;
    p->seed_given = 1;
    return 0;
}

/*
 * The table. Rows with IOS_CLI_DIRECTIVE are IOR's `-O key=value` keys: they are declared
 * together after the letters, so an output or file-system hint key is one more row there.
 */
static const struct ios_cli_opt ior_opts[] = {
    /* what is accessed */
    {'a', NULL, IOS_CLI_FUNC, 0, IOS_CLI_NO_FIELD, 0, 0, "POSIX", "API",
     "POSIX, MPIIO, IOURING or DUMMY",
     "api: the I/O interface (IOURING when built with liburing; DUMMY does no I/O)", set_api},
    {'B', "posix.odirect", IOS_CLI_FLAG, 0, F(odirect), 0, 1, NULL, NULL, NULL,
     "O_DIRECT (direct I/O, bypassing the client cache; -B: IOR's old spelling)", NULL},
    {0, "iouring.depth", IOS_CLI_INT, 0, F(depth), 1, 4096, NULL, "N", "a number in 1..4096",
     "transfers in flight with -a IOURING (the backend's 16 when not given)", NULL},
    {'o', NULL, IOS_CLI_STR, 0, F(test_file), 0, 16, "testFile", "FILE",
     "a file name (shorter than 4 KiB)", "testFile: the test file's name", NULL},
    {'F', NULL, IOS_CLI_FLAG, 0, F(fpp), 0, 1, NULL, NULL, NULL,
     "filePerProc: a file per rank (<o>.%08d)", NULL},
    {'b', NULL, IOS_CLI_SIZE, 0, F(block), 1, LLONG_MAX, "1m", "N",
     "a size > 0 (digits with k, m, g or t)", "blockSize: contiguous bytes per rank and segment",
     NULL},
    {'t', NULL, IOS_CLI_SIZE, 0, F(xfer), 1, LLONG_MAX, "256k", "N",
     "a size > 0 (digits with k, m, g or t)", "transferSize: bytes per I/O call", NULL},
    {'s', NULL, IOS_CLI_SIZE, 0, F(segments), 1, 1LL << 40, "1", "N", "a segment count in 1..2^40",
     "segmentCount: segments", NULL},
    /* which accesses */
    {'w', NULL, IOS_CLI_FLAG, 0, F(write), 0, 1, NULL, NULL, NULL,
     "writeFile: write (-w and -r both when none of -w -r -W -R is given)", NULL},
    {'r', NULL, IOS_CLI_FLAG, 0, F(read), 0, 1, NULL, NULL, NULL, "readFile: read", NULL},
    {'W', NULL, IOS_CLI_FLAG, 0, F(check_write), 0, 1, NULL, NULL, NULL,
     "checkWrite: read back and verify after the write", NULL},
    {'R', NULL, IOS_CLI_FLAG, 0, F(check_read), 0, 1, NULL, NULL, NULL,
     "checkRead: verify every transfer of the read", NULL},
    {'i', NULL, IOS_CLI_INT, 0, F(reps), 1, IOS_IOR_MAX_REPS, "1", "N",
     "repetitions in 1.." MAX_REPS_TEXT, "repetitions", NULL},
    {'d', NULL, IOS_CLI_INT, 0, F(inter_delay), 0, 86400 * 7, "0", "S", "seconds in 0..604800",
     "interTestDelay: seconds between repetitions", NULL},
    {'m', NULL, IOS_CLI_FLAG, 0, F(multi_file), 0, 1, NULL, NULL, NULL,
     "multiFile: repetition i accesses <file>.i", NULL},
    {'u', NULL, IOS_CLI_FLAG, 0, F(unique_dir), 0, 1, NULL, NULL, NULL,
     "uniqueDir: with -F, rank r's file in the directory <dir of -o>/r (created)", NULL},
    {'T', NULL, IOS_CLI_INT, 0, F(max_minutes), 0, 525600, "0", "MIN", "minutes in 0..525600",
     "maxTimeDuration: no write or read starts after MIN minutes", NULL},
    {'k', NULL, IOS_CLI_FLAG, 0, F(keep), 0, 1, NULL, NULL, NULL, "keepFile: keep the files", NULL},
    {'E', NULL, IOS_CLI_FLAG, 0, F(existing), 0, 1, NULL, NULL, NULL,
     "useExistingTestFile: do not remove the file before writing", NULL},
    /* order and placement */
    {'C', NULL, IOS_CLI_FLAG, 0, F(reorder), 0, 1, NULL, NULL, NULL,
     "reorderTasks: read the data of the rank -Q hosts further", NULL},
    {'Q', NULL, IOS_CLI_INT, 0, F(task_offset), 1, 1 << 20, "1", "N", "a task per node offset >= 1",
     "taskPerNodeOffset: the -C shift in hosts", NULL},
    {'Z', NULL, IOS_CLI_COUNTER, 0, F(reorder_random), 0, 0, NULL, NULL, NULL,
     "reorderTasksRandom: read the data of a random rank (-ZZ: of a random permutation)", NULL},
    {'X', NULL, IOS_CLI_INT, 0, F(reorder_random_seed), INT32_MIN, INT32_MAX, "0", "N",
     "a 32-bit integer", "reorderTasksRandomSeed: the -Z seed (< 0: -X + repetition)", NULL},
    {'N', NULL, IOS_CLI_INT, 0, F(num_tasks), 1, INT32_MAX, "-1", "N", "a task count >= 1",
     "numTasks: the first N ranks run the test, the others wait (more than launched: the "
     "launched ones), as IOR",
     NULL},
    {'z', NULL, IOS_CLI_FLAG, 0, F(random), 0, 1, NULL, NULL, NULL,
     "randomOffset: shuffled transfers within each block", NULL},
    {0, "random-offset-seed", IOS_CLI_INT, 0, F(random_seed), 0, INT32_MAX, "-1", "N",
     "a number >= 0", "the -z seed (default: the launch's start time)", NULL},
    /* timing */
    {'e', NULL, IOS_CLI_FLAG, 0, F(fsync), 0, 1, NULL, NULL, NULL,
     "fsync: fsync inside the write timing", NULL},
    {'Y', NULL, IOS_CLI_FLAG, 0, F(fsync_per_write), 0, 1, NULL, NULL, NULL,
     "fsyncPerWrite: fsync after every write transfer (twice, as IOR), inside the timing", NULL},
    {'g', NULL, IOS_CLI_FLAG, 0, F(barriers), 0, 1, NULL, NULL, NULL,
     "intraTestBarriers: barriers between open, I/O and close", NULL},
    {'D', NULL, IOS_CLI_INT, 0, F(deadline), 0, 86400 * 7, "0", "S", "seconds in 0..604800",
     "deadlineForStonewalling: stop each access after S seconds", NULL},
    {'c', NULL, IOS_CLI_FLAG, 0, F(collective), 0, 1, NULL, NULL, NULL,
     "collective: collective MPI-IO", NULL},
    {'H', "mpiio.showHints", IOS_CLI_FLAG, 0, F(show_hints), 0, 1, NULL, NULL, NULL,
     "showHints: the MPI-IO hints (-H: IOR's old spelling)", NULL},
    /* the data */
    {'l', "dataPacketType", IOS_CLI_FUNC, 0, IOS_CLI_NO_FIELD, 0, 0, "timestamp", "t|o|i|r",
     "timestamp, offset, incompressible or random (t, o, i, r)", "the data pattern", set_packet},
    {'G', NULL, IOS_CLI_FUNC, 0, IOS_CLI_NO_FIELD, 0, 0, NULL, "N", "a 32-bit integer",
     "setTimeStampSignature: the pattern's seed (a separate read launch verifies with the "
     "writer's)",
     set_signature},
    {'v', NULL, IOS_CLI_COUNTER, 0, F(verbose), 0, 0, NULL, NULL, NULL,
     "verbose (repeatable; -vv: every rank's share)", NULL},
    {'x', NULL, IOS_CLI_FLAG, 0, F(single_xfer), 0, 1, NULL, NULL, NULL,
     "singleXferAttempt (a short transfer is always an error here)", NULL},
    /* ioscore's own */
    {0, "resultdir", IOS_CLI_STR, 0, F(resultdir), 0, 64, NULL, "DIR", "a directory name",
     "result.json and the per-rank CSVs go to DIR (ioscore)", NULL},
    {0, "simulate-ppn", IOS_CLI_INT, 0, F(simulate_ppn), 1, 1 << 20, NULL, "K", "a positive number",
     "pretend K ranks per host (tests only)", NULL},
    {0, "simulate-nodes", IOS_CLI_INT, 0, F(simulate_nodes), 1, 1 << 20, NULL, "K",
     "a positive number", "pretend K hosts (tests only)", NULL},
    /* -O key=value: IOR's directives */
    {'O', NULL, IOS_CLI_FUNC, 0, IOS_CLI_NO_FIELD, 0, 0, NULL, "KEY=V[,KEY=V]", NULL,
     "IOR's directives (below)", NULL},
    {0, "stoneWallingWearOut", IOS_CLI_INT, IOS_CLI_DIRECTIVE, F(wearout), 0, 1, "0", "0|1",
     "0 or 1", "after the -D stonewall, every rank does the busiest rank's count", NULL},
    {0, "minTimeDuration", IOS_CLI_INT, IOS_CLI_DIRECTIVE, F(min_time), 0, 86400 * 7, "0", "S",
     "seconds in 0..604800", "each access starts again from the beginning until it ran S s", NULL},
    {0, "stoneWallingStatusFile", IOS_CLI_STR, IOS_CLI_DIRECTIVE, F(stonewall_status_file), 0, 16,
     NULL, "FILE", "a file name",
     "a -D wear-out write stores its pairs count in FILE, a later read launch reads that many",
     NULL},
    {0, "summaryFormat", IOS_CLI_FUNC, IOS_CLI_DIRECTIVE, IOS_CLI_NO_FIELD, 0, 0, "default",
     "default|JSON|CSV", "default, JSON or CSV", "IOR's result output as text, JSON or CSV",
     set_summary_format},
    {0, "summaryFile", IOS_CLI_STR, IOS_CLI_DIRECTIVE, F(summary_file), 0, 0, NULL, "FILE",
     "a file name", "IOR's result output goes to FILE", NULL},
    {0, "saveRankPerformanceDetailsCSV", IOS_CLI_STR, IOS_CLI_DIRECTIVE, F(rank_csv), 0, 0, NULL,
     "FILE", "a file name", "IOR's per-rank CSV", NULL},
    /* the layout hints: ior_layout.c's table owns their values' bounds and checks them */
    {0, "lustreStripeCount", IOS_CLI_FUNC, IOS_CLI_DIRECTIVE, IOS_CLI_NO_FIELD, 0, 0, NULL, "N",
     NULL, "applied with lfs setstripe -c (refused off Lustre)", ios_ior_layout_set},
    {0, "lustreStripeSize", IOS_CLI_FUNC, IOS_CLI_DIRECTIVE, IOS_CLI_NO_FIELD, 0, 0, NULL, "S",
     NULL, "applied with lfs setstripe -S (refused off Lustre)", ios_ior_layout_set},
    {0, "lustreStartOST", IOS_CLI_FUNC, IOS_CLI_DIRECTIVE, IOS_CLI_NO_FIELD, 0, 0, NULL, "N", NULL,
     "applied with lfs setstripe -i (refused off Lustre)", ios_ior_layout_set},
    {0, "beegfsNumTargets", IOS_CLI_FUNC, IOS_CLI_DIRECTIVE, IOS_CLI_NO_FIELD, 0, 0, NULL, "N",
     NULL, "applied with beegfs-ctl --numtargets (refused off BeeGFS)", ios_ior_layout_set},
    {0, "beegfsChunkSize", IOS_CLI_FUNC, IOS_CLI_DIRECTIVE, IOS_CLI_NO_FIELD, 0, 0, NULL, "S", NULL,
     "applied with beegfs-ctl --chunksize (refused off BeeGFS)", ios_ior_layout_set},
    IOS_CLI_REFUSE_KEY("lustreIgnoreLocks",
                       "an ioctl on the open file that needs the Lustre client library"),
    IOS_CLI_REFUSE_KEY("gpfsHintAccess", "a gpfs_fcntl hint that needs the GPFS library"),
    IOS_CLI_REFUSE_KEY("gpfsReleaseToken", "a gpfs_fcntl hint that needs the GPFS library"),
    /* IOR's options this build does not implement */
    IOS_CLI_REFUSE('A', "refNum: user reference number"),
    IOS_CLI_REFUSE('f', "scriptFile: run the tests of a script"),
    IOS_CLI_REFUSE('I', "showPerformanceNumbers"),
    IOS_CLI_REFUSE('j', "outlierThreshold: warn on tasks slower than the mean by N seconds"),
    IOS_CLI_REFUSE('J', "setAlignment: HDF5 alignment"),
    IOS_CLI_REFUSE('K', "keepFileWithError"),
    IOS_CLI_REFUSE('M', "memoryPerNode: hog memory on the nodes"),
    IOS_CLI_REFUSE('n', "noFill: no fill in HDF5 file creation"),
    IOS_CLI_REFUSE('p', "preallocate: preallocate the file size"),
    IOS_CLI_REFUSE('P', "useSharedFilePointer"),
    IOS_CLI_REFUSE('q', "quitOnError"),
    IOS_CLI_REFUSE('S', "useStridedDatatype"),
    IOS_CLI_REFUSE('U', "hintsFileName: MPI-IO hints file"),
    IOS_CLI_REFUSE('V', "useFileView: MPI_File_set_view"),
    IOS_CLI_REFUSE('y', "dualMount"),
};

static const struct ios_cli_tool ior_tool = {
    .program = "ioscore-suite ior",
    .tool = "IOR",
    IOS_CLI_ROWS(ior_opts),
    .usage = "usage: mpiexec -n N ioscore-suite ior [IOR options] [--resultdir DIR]",
    .rank_detail = {IOS_CLI_FIELD(struct ios_ior_params, rank_detail)},
    .epilog = "ioscore additions: --rank-detail-threshold N (above N ranks result.json "
              "summarises the ranks;\n  4096), --rank-detail-full (then also "
              "ranks-<phase>.csv.gz with every rank)\n",
};

static int fail(int rank, const char *fmt, const char *a, const char *b)
{
    return ios_cli_fail(&ior_tool, rank, fmt, a, b);
}

/* Relations between options, as IOR checks them. */
static int check_params(struct ios_ior_params *p, int rank)
{
    char a[32], b[32];
    if (p->block % p->xfer != 0) {
        snprintf(a, sizeof a, "%llu", (unsigned long long)p->block);
        snprintf(b, sizeof b, "%llu", (unsigned long long)p->xfer);
        return fail(rank, "block size -b %s must be a multiple of the transfer size -t %s", a, b);
    }
    if (p->xfer % 8 != 0)
        return fail(rank, "the transfer size -t must be a multiple of 8 bytes%s%s", "", "");
    if (p->xfer > (1ull << 30))
        return fail(rank, "transfer size above 1 GiB is not supported (one buffer per rank)%s%s",
                    "", "");
    if (p->odirect && strcmp(p->api, "POSIX") != 0 && strcmp(p->api, "IOURING") != 0)
        return fail(rank, "-B/--posix.odirect needs -a POSIX or IOURING (got -a %s)%s", p->api, "");
    if (p->depth && strcmp(p->api, "IOURING") != 0)
        return fail(rank, "--iouring.depth needs -a IOURING (got -a %s)%s", p->api, "");
    if (p->fsync_per_write && strcmp(p->api, "POSIX") != 0)
        return fail(rank, "-Y (fsync per write) needs -a POSIX (got -a %s)%s", p->api, "");
    if (p->odirect && p->xfer % 4096 != 0)
        return fail(rank,
                    "O_DIRECT (-B/--posix.odirect) needs a transfer size that is a multiple "
                    "of 4096 bytes%s%s",
                    "", "");
    if (p->segments > UINT64_MAX / p->block)
        return fail(rank, "-b times -s overflows%s%s", "", "");
    if (p->deadline > 0 && (p->check_write || p->check_read))
        return fail(rank,
                    "-D (stonewalling) cannot be combined with -W or -R: a check needs the "
                    "whole data set (IOR refuses it too)%s%s",
                    "", "");
    if (p->random && p->reorder && !p->fpp)
        return fail(rank,
                    "random offset (-z) and constant reorder tasks (-C) with a single shared "
                    "file: choose one (IOR refuses it too)%s%s",
                    "", "");
    if (p->random && !p->fpp && p->collective && strcmp(p->api, "MPIIO") == 0)
        return fail(rank,
                    "random offset (-z) on a shared file gives ranks different transfer counts, "
                    "which collective I/O (-c) cannot make%s%s",
                    "", "");
    if (p->random && p->check_read && p->random_seed < 0)
        return fail(rank,
                    "random offset (-z) with read check (-R) needs --random-offset-seed "
                    "(IOR refuses it too)%s%s",
                    "", "");
    if (p->stonewall_status_file[0] && !p->keep)
        return fail(rank,
                    "-O stoneWallingStatusFile is for a write and a read in separate launches: "
                    "add -k (IOR refuses it too)%s%s",
                    "", "");
    if (p->stonewall_status_file[0] && p->write && !p->wearout)
        return fail(rank,
                    "-O stoneWallingStatusFile with a write needs -O stoneWallingWearOut=1 (IOR "
                    "refuses it too)%s%s",
                    "", "");
    if (p->simulate_ppn > 0 && p->simulate_nodes > 0)
        return fail(rank, "--simulate-ppn and --simulate-nodes exclude each other%s%s", "", "");
    if (p->wearout && p->deadline == 0 && rank == 0)
        fprintf(stderr, "ioscore-suite ior: WARNING: -O stoneWallingWearOut=1 without -D has no "
                        "effect\n");
    return 0;
}

int ios_ior_parse(struct ios_ior_params *p, int argc, char **argv, int rank)
{
    memset(p, 0, sizeof *p);
    ios_cli_command_line(argc, argv, p->command, sizeof p->command);
    int rc = ios_cli_parse(&ior_tool, p, argc, argv, rank, NULL);
    if (rc != 0)
        return rc;
    if (!p->write && !p->read && !p->check_write && !p->check_read)
        p->write = p->read = 1;
    return check_params(p, rank);
}
