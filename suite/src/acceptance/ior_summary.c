/*
 * IOR's result document for `ioscore-suite ior` (see ioscore/ior_summary.h): the lines,
 * members and columns IOR writes, in its order, with ioscore's measurements under IOR's
 * meanings. The text layout follows IOR line for line where scripts parse it (the results
 * table with its remove rows, Max Write/Max Read, the summary table); the JSON document has
 * IOR's members and nesting (built with the one JSON writer and written whole at the end, so it
 * parses even after an aborted run); the CSV layout is IOR's: the results table only.
 */
#include <inttypes.h>
#include <libgen.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <sys/utsname.h>

#include "ioscore/ior_summary.h"
#include "ioscore/json.h"

#define MIB 1048576.0
#define MB 1000000.0
#define IOR_DECIMALS 4 /* IOR's PrintKeyValDouble: %.4f in JSON and CSV */

int ios_ior_out_open(struct ios_ior_doc *d, const struct ios_ior_params *p)
{
    d->out = stdout;
    d->format = p->summary_format;
    if (p->rank_csv[0]) { /* IOR truncates it and writes its header before the test */
        FILE *f = fopen(p->rank_csv, "w");
        if (!f || fputs("access,rank,runtime-with-openclose,runtime,throughput-withopenclose,"
                        "throughput\n",
                        f) < 0) {
            fprintf(stderr,
                    "ioscore-suite ior: ERROR: -O saveRankPerformanceDetailsCSV=%s: cannot "
                    "write it\n",
                    p->rank_csv);
            if (f)
                fclose(f);
            return -1;
        }
        fclose(f);
    }
    if (p->summary_file[0]) {
        d->out = fopen(p->summary_file, "w");
        if (!d->out) {
            d->out = stdout;
            fprintf(stderr,
                    "ioscore-suite ior: ERROR: -O summaryFile=%s: cannot open it for "
                    "writing\n",
                    p->summary_file);
            return -1;
        }
        printf("Writing output to %s\n", p->summary_file);
        fflush(stdout);
    }
    return 0;
}

FILE *ios_ior_out_extra(const struct ios_ior_params *p)
{
    return p->summary_format == IOS_IOR_TEXT || p->summary_file[0] ? stdout : stderr;
}

void ios_ior_out_stonewall(const struct ios_ior_params *p, int rank, double pairs,
                           const struct ios_ior_stonewall *all)
{
    FILE *log = ios_ior_out_extra(p);
    if (p->verbose >= 1)
        fprintf(log, "%d: stonewalling pairs accessed: %.0f\n", rank, pairs);
    if (rank == 0)
        fprintf(log,
                "stonewalling pairs accessed min: %.0f max: %.0f -- min data: %.1f GiB mean "
                "data: %.1f GiB time: %.1fs\n",
                all->min_pairs, all->max_pairs, all->min_bytes / 1073741824.0,
                all->mean_bytes / 1073741824.0, all->time);
    fflush(log);
}

/* ---------------------------------------------------------------- the header */

static void now_text(char *buf, size_t len)
{
    ios_format_time(ios_wtime(), "%a %b %d %H:%M:%S %Y", buf, len);
}

/* A size as IOR's options show it (its HumanReadable, base two): whole or two-decimal TiB,
 * GiB or MiB from 1 MiB on, bytes below. */
static void human_size(uint64_t bytes, char *buf, size_t len)
{
    static const struct {
        uint64_t unit;
        const char *name;
    } units[] = {{1ull << 40, "TiB"}, {1ull << 30, "GiB"}, {1ull << 20, "MiB"}};
    for (size_t u = 0; u < sizeof units / sizeof units[0]; u++) {
        if (bytes < units[u].unit)
            continue;
        if (bytes % units[u].unit)
            snprintf(buf, len, "%.2f %s", (double)bytes / (double)units[u].unit, units[u].name);
        else
            snprintf(buf, len, "%llu %s", (unsigned long long)(bytes / units[u].unit),
                     units[u].name);
        return;
    }
    snprintf(buf, len, "%llu bytes", (unsigned long long)bytes);
}

/* IOR's test file name of rank 0 (its GetTestFileName). */
static void first_file(const struct ios_ior_params *p, char *buf, size_t len)
{
    if (p->fpp)
        snprintf(buf, len, "%s.%08d", p->test_file, 0);
    else
        snprintf(buf, len, "%s", p->test_file);
}

/* IOR's ShowFileSystemSize: capacity and inodes of the test files' file system. */
struct fs_size {
    int ok; /* 0: statvfs failed (IOR warns and shows none of them) */
    char capacity[32], used[16], inodes[32], used_inodes[16];
};

static void fs_size_of(const char *file, struct fs_size *fs)
{
    char copy[IOS_PATH_MAX];
    snprintf(copy, sizeof copy, "%s", file);
    struct statvfs st;
    fs->ok = statvfs(dirname(copy), &st) == 0 && st.f_blocks > 0 && st.f_files > 0;
    if (!fs->ok)
        return;
    double total = (double)st.f_blocks * st.f_frsize, free = (double)st.f_bfree * st.f_frsize;
    double gib = total / (1 << 30);
    int tib = gib > 1024;
    snprintf(fs->capacity, sizeof fs->capacity, "%.1f %s", tib ? total / 1099511627776.0 : gib,
             tib ? "TiB" : "GiB");
    snprintf(fs->used, sizeof fs->used, "%2.1f%%", (1 - free / total) * 100);
    snprintf(fs->inodes, sizeof fs->inodes, "%.1f Mi", (double)st.f_files / (1 << 20));
    snprintf(fs->used_inodes, sizeof fs->used_inodes, "%2.1f%%",
             (1 - (double)st.f_ffree / (double)st.f_files) * 100);
}

/* One line of IOR's "Options" (its ShowSetup): the text header prints it "key : value", the
 * JSON document as a member, a number where IOR writes one. */
struct setup_line {
    const char *key;
    char value[IOS_PATH_MAX];
    int number;
};
#define SETUP_LINES 24

static void add_line(struct setup_line *lines, int *n, const char *key, int number, const char *fmt,
                     ...) __attribute__((format(printf, 5, 6)));
static void add_line(struct setup_line *lines, int *n, const char *key, int number, const char *fmt,
                     ...)
{
    struct setup_line *l = &lines[(*n)++];
    l->key = key;
    l->number = number;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(l->value, sizeof l->value, fmt, ap);
    va_end(ap);
}

/* IOR's options in its order; returns how many lines. */
static int setup_lines(const struct ios_run *run, const struct ios_ior_params *p, int collective,
                       struct setup_line *lines)
{
    char xfer[32], block[32], agg[32];
    human_size(p->xfer, xfer, sizeof xfer);
    human_size(p->block, block, sizeof block);
    human_size(p->block * p->segments * (uint64_t)run->size, agg, sizeof agg);
    int n = 0;
    add_line(lines, &n, "api", 0, "%s", p->api);
    add_line(lines, &n, "apiVersion", 0, "%s", "");
    add_line(lines, &n, "test filename", 0, "%s", p->test_file);
    add_line(lines, &n, "access", 0, "%s", p->fpp ? "file-per-process" : "single-shared-file");
    add_line(lines, &n, "type", 0, "%s", collective ? "collective" : "independent");
    add_line(lines, &n, "segments", 1, "%" PRIu64, p->segments);
    add_line(lines, &n, "ordering in a file", 0, "%s", p->random ? "random" : "sequential");
    add_line(lines, &n, "ordering inter file", 0, "%s",
             p->reorder ? "constant task offset" : "no tasks offsets");
    if (p->reorder)
        add_line(lines, &n, "task offset", 1, "%d", p->task_offset);
    add_line(lines, &n, "nodes", 1, "%d", run->nnodes);
    add_line(lines, &n, "tasks", 1, "%d", run->size);
    add_line(lines, &n, "clients per node", 1, "%d", run->ppn0);
    add_line(lines, &n, "memoryBuffer", 0, "%s", "CPU");
    add_line(lines, &n, "dataAccess", 0, "%s", "CPU");
    add_line(lines, &n, "GPUDirect", 0, "%s", "0");
    add_line(lines, &n, "repetitions", 1, "%d", p->reps);
    add_line(lines, &n, "xfersize", 0, "%s", xfer);
    add_line(lines, &n, "blocksize", 0, "%s", block);
    add_line(lines, &n, "aggregate filesize", 0, "%s", agg);
    if (p->verbose)
        add_line(lines, &n, "verbose", 1, "%d", p->verbose);
    if (p->deadline > 0) {
        add_line(lines, &n, "stonewallingTime", 1, "%d", p->deadline);
        add_line(lines, &n, "stoneWallingWearOut", 1, "%d", p->wearout);
    }
    return n;
}

static void text_header(const struct ios_ior_doc *d, const struct ios_run *run,
                        const struct ios_ior_params *p, int collective, int32_t seed,
                        const char *sysname)
{
    FILE *o = d->out;
    char now[64];
    now_text(now, sizeof now);
    char file[IOS_PATH_MAX + 16];
    first_file(p, file, sizeof file);
    struct fs_size fs;
    fs_size_of(p->test_file, &fs);
    /* IOR's lines, in its order; ioscore's first line and its Results line are its own */
    fprintf(o, "ioscore-suite ior %s: IOR command lines on the ioscore engine\n", run->version);
    fprintf(o, "Began               : %s\n", now);
    fprintf(o, "Command line        : %s\n", p->command);
    fprintf(o, "Machine             : %s %s\n", sysname, run->host);
    fprintf(o, "TestID              : 0\n");
    fprintf(o, "StartTime           : %s\n", now);
    fprintf(o, "Path                : %s\n", file);
    if (fs.ok)
        fprintf(o, "FS                  : %s   Used FS: %s   Inodes: %s   Used Inodes: %s\n",
                fs.capacity, fs.used, fs.inodes, fs.used_inodes);
    fprintf(o, "Results             : %s\n",
            run->resdir_scratch ? "not kept (--resultdir DIR keeps result.json and the CSVs)"
                                : run->resdir);
    fprintf(o, "\nOptions: \n");
    struct setup_line lines[SETUP_LINES];
    int n = setup_lines(run, p, collective, lines);
    for (int i = 0; i < n; i++)
        fprintf(o, "%-20s: %s\n", lines[i].key, lines[i].value);
    fprintf(o, "data packet type    : %s (signature -G %d)\n", p->packet_name, seed);
}

void ios_ior_out_results_start(struct ios_ior_doc *d)
{
    if (d->format != IOS_IOR_TEXT)
        return;
    FILE *o = d->out;
    fprintf(o, "\nResults: \n\n");
    fprintf(o, "access    bw(MiB/s)  IOPS       Latency(s)  block(KiB) xfer(KiB)  open(s)    "
               "wr/rd(s)   close(s)   total(s)   iter\n");
    fprintf(o, "------    ---------  ----       ----------  ---------- ---------  --------   "
               "--------   --------   --------   ----\n");
    fflush(o);
}

/* IOR's "Parameters" (its ShowTestStart), with IOR's names and 0 for what ioscore lacks. */
static void json_parameters(struct ios_json *j, const struct ios_run *run,
                            const struct ios_ior_params *p, const char *sysname, int32_t seed)
{
    char platform[IOS_HOST_MAX + 80];
    snprintf(platform, sizeof platform, "%s(%s)", run->host, sysname);
    ios_json_begin_object(j, "Parameters");
    ios_json_int(j, "testID", 0);
    ios_json_int(j, "refnum", 0);
    ios_json_string(j, "api", p->api);
    ios_json_string(j, "platform", platform);
    ios_json_string(j, "testFileName", p->test_file);
    ios_json_int(j, "deadlineForStonewall", p->deadline);
    ios_json_int(j, "stoneWallingWearOut", p->wearout);
    ios_json_int(j, "maxTimeDuration", 0);
    ios_json_int(j, "outlierThreshold", 0);
    ios_json_string(j, "options", "(null)");
    ios_json_int(j, "dryRun", 0);
    ios_json_int(j, "nodes", run->nnodes);
    ios_json_int(j, "memoryPerTask", 0);
    ios_json_int(j, "memoryPerNode", 0);
    ios_json_int(j, "tasksPerNode", run->ppn0);
    ios_json_int(j, "repetitions", p->reps);
    ios_json_int(j, "multiFile", 0);
    ios_json_int(j, "interTestDelay", p->inter_delay);
    ios_json_int(j, "fsync", p->fsync);
    ios_json_int(j, "fsyncperwrite", 0);
    ios_json_int(j, "useExistingTestFile", p->existing);
    ios_json_int(j, "uniqueDir", 0);
    ios_json_int(j, "singleXferAttempt", p->single_xfer);
    ios_json_int(j, "readFile", p->read);
    ios_json_int(j, "writeFile", p->write);
    ios_json_int(j, "filePerProc", p->fpp);
    ios_json_int(j, "reorderTasks", p->reorder);
    ios_json_int(j, "reorderTasksRandom", 0);
    ios_json_int(j, "reorderTasksRandomSeed", 0);
    ios_json_int(j, "randomOffset", p->random);
    ios_json_int(j, "checkWrite", p->check_write);
    ios_json_int(j, "checkRead", p->check_read);
    /* IOR's enum has ioscore's order (timestamp, offset, incompressible, random); IOR names
     * them with this table, which is off by one, and scripts see what IOR writes */
    int packet = (int)p->packet;
    static const char *const packet_letter[] = {"g", "t", "o", "i"};
    ios_json_int(j, "dataPacketType", packet);
    ios_json_int(j, "keepFile", p->keep);
    ios_json_int(j, "keepFileWithError", 0);
    ios_json_int(j, "warningAsErrors", 0);
    ios_json_int(j, "verbose", p->verbose);
    ios_json_string(j, "data packet type", packet_letter[packet]);
    ios_json_int(j, "setTimeStampSignature/incompressibleSeed", p->seed_given ? seed : 0);
    ios_json_int(j, "collective", p->collective);
    ios_json_int(j, "segmentCount", (int64_t)p->segments);
    ios_json_int(j, "transferSize", (int64_t)p->xfer);
    ios_json_int(j, "blockSize", (int64_t)p->block);
    ios_json_end_object(j);
}

/* IOR's "Options" (its ShowSetup). */
static void json_options(struct ios_json *j, const struct ios_run *run,
                         const struct ios_ior_params *p, int collective)
{
    struct setup_line lines[SETUP_LINES];
    int n = setup_lines(run, p, collective, lines);
    ios_json_begin_object(j, "Options");
    for (int i = 0; i < n; i++) {
        if (lines[i].number)
            ios_json_int(j, lines[i].key, strtoll(lines[i].value, NULL, 10));
        else
            ios_json_string(j, lines[i].key, lines[i].value);
    }
    ios_json_end_object(j);
}

void ios_ior_out_header(struct ios_ior_doc *d, const struct ios_run *run,
                        const struct ios_ior_params *p, int collective, int32_t seed)
{
    d->tasks = run->size;
    struct utsname u;
    if (uname(&u) != 0)
        snprintf(u.sysname, sizeof u.sysname, "Unknown");
    if (d->format == IOS_IOR_TEXT) {
        text_header(d, run, p, collective, seed, u.sysname);
    } else if (d->format == IOS_IOR_CSV) {
        fprintf(d->out, "access,bw(MiB/s),IOPS,Latency,block(KiB),xfer(KiB),open(s),wr/rd(s),"
                        "close(s),total(s),numTasks,iter\n");
    } else {
        char now[64], machine[IOS_HOST_MAX + 80], file[IOS_PATH_MAX + 16];
        now_text(now, sizeof now);
        snprintf(machine, sizeof machine, "%s %s", u.sysname, run->host);
        first_file(p, file, sizeof file);
        struct ios_json *j = &d->j;
        ios_json_init(j);
        d->json_open = 1;
        ios_json_begin_object(j, NULL);
        ios_json_string(j, "Version", run->version);
        ios_json_string(j, "Began", now);
        ios_json_string(j, "Command line", p->command);
        ios_json_string(j, "Machine", machine);
        ios_json_begin_array(j, "tests");
        ios_json_begin_object(j, NULL);
        ios_json_int(j, "TestID", 0);
        ios_json_string(j, "StartTime", now);
        ios_json_string(j, "Path", file);
        struct fs_size fs;
        fs_size_of(p->test_file, &fs); /* the directory of every test file */
        if (fs.ok) {
            ios_json_string(j, "Capacity", fs.capacity);
            ios_json_string(j, "Used Capacity", fs.used);
            ios_json_string(j, "Inodes", fs.inodes);
            ios_json_string(j, "Used Inodes", fs.used_inodes);
        }
        json_parameters(j, run, p, u.sysname, seed);
        json_options(j, run, p, collective);
        ios_json_begin_array(j, "Results");
    }
    fflush(d->out);
}

/* ---------------------------------------------------------------- the results table */

/* One number as IOR's PPDouble prints it: width 10, left-justified, 6 decimals below 1, 2
 * below 3600, else none. */
static void pp_double(FILE *out, double v, const char *append)
{
    if (v < 0) {
        fprintf(out, "   -      %s", append);
        return;
    }
    fprintf(out, "%-10.*f%s", v < 1 ? 6 : v < 3600 ? 2 : 0, v, append);
}

void ios_ior_out_row(struct ios_ior_doc *d, const char *access, const struct ios_ior_row *row,
                     const struct ios_ior_params *p, int iter)
{
    double block_kib = (double)p->block / 1024.0, xfer_kib = (double)p->xfer / 1024.0;
    if (d->format == IOS_IOR_TEXT) { /* ioscore's -W check row too: IOR has no such row */
        fprintf(d->out, "%-10s", access);
        pp_double(d->out, row->mib, " ");
        pp_double(d->out, row->iops, " ");
        pp_double(d->out, row->latency, "  ");
        pp_double(d->out, block_kib, " ");
        pp_double(d->out, xfer_kib, " ");
        pp_double(d->out, row->open, " ");
        pp_double(d->out, row->io, " ");
        pp_double(d->out, row->close, " ");
        pp_double(d->out, row->total, " ");
        fprintf(d->out, "%-4d\n", iter);
    } else if (strcmp(access, "write") != 0 && strcmp(access, "read") != 0) {
        return; /* the JSON and CSV documents keep IOR's rows only */
    } else if (d->format == IOS_IOR_CSV) {
        fprintf(d->out, "%s,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%d,%d\n", access, row->mib,
                row->iops, row->latency, block_kib, xfer_kib, row->open, row->io, row->close,
                row->total, d->tasks, iter);
    } else {
        struct ios_json *j = &d->j;
        ios_json_begin_object(j, NULL);
        ios_json_string(j, "access", access);
        ios_json_fixed(j, "bwMiB", row->mib, IOR_DECIMALS);
        ios_json_fixed(j, "blockKiB", block_kib, IOR_DECIMALS);
        ios_json_fixed(j, "xferKiB", xfer_kib, IOR_DECIMALS);
        ios_json_fixed(j, "iops", row->iops, IOR_DECIMALS);
        ios_json_fixed(j, "latency", row->latency, IOR_DECIMALS);
        ios_json_fixed(j, "openTime", row->open, IOR_DECIMALS);
        ios_json_fixed(j, "wrRdTime", row->io, IOR_DECIMALS);
        ios_json_fixed(j, "closeTime", row->close, IOR_DECIMALS);
        ios_json_fixed(j, "totalTime", row->total, IOR_DECIMALS);
        ios_json_end_object(j);
    }
    fflush(d->out);
}

void ios_ior_out_remove(struct ios_ior_doc *d, const struct ios_ior_params *p, double seconds,
                        int iter)
{
    if (p->verbose < 1) /* IOR prints the remove timing from -v on */
        return;
    if (d->format == IOS_IOR_TEXT) {
        fprintf(d->out, "remove    -          -          -           -          -          "
                        "-          -          -          ");
        pp_double(d->out, seconds, " ");
        fprintf(d->out, "%-4d\n", iter);
    } else if (d->format == IOS_IOR_JSON) {
        ios_json_begin_object(&d->j, NULL);
        ios_json_string(&d->j, "access", "remove");
        ios_json_fixed(&d->j, "totalTime", seconds, IOR_DECIMALS);
        ios_json_end_object(&d->j);
    }
    fflush(d->out);
}

/* IOR's best bandwidth of the repetitions: data moved over the total time, bytes/s. */
static double max_bw(const struct ios_ior_series *s)
{
    double best = 0;
    for (int i = 0; i < s->n; i++)
        if (s->rows[i].total > 0)
            best = fmax(best, s->rows[i].bytes / s->rows[i].total);
    return best;
}

void ios_ior_out_end_results(struct ios_ior_doc *d, const struct ios_ior_params *p,
                             const struct ios_ior_series *write, const struct ios_ior_series *read)
{
    double w = max_bw(write), r = max_bw(read);
    if (d->format == IOS_IOR_JSON) {
        struct ios_json *j = &d->j;
        ios_json_end_array(j); /* Results */
        if (p->verbose >= 1) {
            ios_json_begin_object(j, "max");
            if (p->write) {
                ios_json_fixed(j, "writeMiB", w / MIB, IOR_DECIMALS);
                ios_json_fixed(j, "writeMB", w / MB, IOR_DECIMALS);
            }
            if (p->read) {
                ios_json_fixed(j, "readMiB", r / MIB, IOR_DECIMALS);
                ios_json_fixed(j, "readMB", r / MB, IOR_DECIMALS);
            }
            ios_json_end_object(j);
        }
        ios_json_end_object(j); /* the test */
        ios_json_end_array(j);  /* tests */
    } else if (d->format == IOS_IOR_TEXT && p->verbose >= 1) {
        if (p->write)
            fprintf(d->out, "Max Write: %.2f MiB/sec (%.2f MB/sec)\n", w / MIB, w / MB);
        if (p->read)
            fprintf(d->out, "Max Read:  %.2f MiB/sec (%.2f MB/sec)\n", r / MIB, r / MB);
    }
    fflush(d->out);
}

/* ---------------------------------------------------------------- the summary */

/* One operation of IOR's summary (its PrintLongSummaryOneOperation). */
struct op_summary {
    struct ios_acc_stats bw, ops, time;
    int stonewall;          /* IOR has the stonewall numbers only with stoneWallingWearOut */
    double sw_time, sw_mib; /* rank 0's time to the stonewall (mean), the mean rank's MiB/s */
};

static void summarise(const struct ios_run *run, const struct ios_ior_params *p,
                      const struct ios_ior_series *se, struct op_summary *s)
{
    double mib[IOS_IOR_MAX_REPS], ops[IOS_IOR_MAX_REPS], t[IOS_IOR_MAX_REPS];
    double sw_time = 0, sw_bytes = 0;
    for (int i = 0; i < se->n; i++) {
        mib[i] = se->rows[i].mib;
        ops[i] = se->rows[i].ops_total; /* IOR: transfers over the total time */
        t[i] = se->rows[i].total;
        sw_time += se->rows[i].sw_time;
        sw_bytes += se->rows[i].sw_bytes / run->size;
    }
    ios_acc_stats(mib, se->n, &s->bw);
    ios_acc_stats(ops, se->n, &s->ops);
    ios_acc_stats(t, se->n, &s->time);
    s->stonewall = p->wearout;
    s->sw_time = sw_time / se->n;
    s->sw_mib = sw_time > 0 ? sw_bytes / sw_time / MIB : 0;
}

static void text_summary_row(const struct ios_ior_doc *d, const struct ios_run *run,
                             const struct ios_ior_params *p, const struct ios_ior_series *se,
                             const struct op_summary *s)
{
    char sw_t[32] = "NA", sw_m[32] = "NA";
    if (s->stonewall) {
        snprintf(sw_t, sizeof sw_t, "%.2f", s->sw_time);
        snprintf(sw_m, sizeof sw_m, "%.2f", s->sw_mib);
    }
    fprintf(d->out,
            "%-9s %10.2f %10.2f %10.2f %10.2f %10.2f %10.2f %10.2f %10.2f %10.5f %10s "
            "%13s %5d %6d %3d %4d %3d %5d %8d %9d %4d %6" PRIu64 " %8" PRIu64 " %8" PRIu64
            " %9.1f %3s %6d\n",
            se->access, s->bw.max, s->bw.min, s->bw.mean, s->bw.stddev, s->ops.max, s->ops.min,
            s->ops.mean, s->ops.stddev, s->time.mean, sw_t, sw_m, 0, run->size, run->ppn0, p->reps,
            p->fpp, p->reorder, p->task_offset, 0, 0, p->segments, p->block, p->xfer,
            se->rows[0].bytes / MIB, p->api, 0);
}

static void json_summary_row(struct ios_ior_doc *d, const struct ios_run *run,
                             const struct ios_ior_params *p, const struct ios_ior_series *se,
                             const struct op_summary *s)
{
    struct ios_json *j = &d->j;
    ios_json_begin_object(j, NULL);
    ios_json_string(j, "operation", se->access);
    ios_json_string(j, "API", p->api);
    ios_json_int(j, "TestID", 0);
    ios_json_int(j, "ReferenceNumber", 0);
    ios_json_int(j, "segmentCount", (int64_t)p->segments);
    ios_json_int(j, "blockSize", (int64_t)p->block);
    ios_json_int(j, "transferSize", (int64_t)p->xfer);
    ios_json_int(j, "numTasks", run->size);
    ios_json_int(j, "tasksPerNode", run->ppn0);
    ios_json_int(j, "repetitions", p->reps);
    ios_json_int(j, "filePerProc", p->fpp);
    ios_json_int(j, "reorderTasks", p->reorder);
    ios_json_int(j, "taskPerNodeOffset", p->task_offset);
    ios_json_int(j, "reorderTasksRandom", 0);
    ios_json_int(j, "reorderTasksRandomSeed", 0);
    ios_json_fixed(j, "bwMaxMIB", s->bw.max, IOR_DECIMALS);
    ios_json_fixed(j, "bwMinMIB", s->bw.min, IOR_DECIMALS);
    ios_json_fixed(j, "bwMeanMIB", s->bw.mean, IOR_DECIMALS);
    ios_json_fixed(j, "bwStdMIB", s->bw.stddev, IOR_DECIMALS);
    ios_json_fixed(j, "OPsMax", s->ops.max, IOR_DECIMALS);
    ios_json_fixed(j, "OPsMin", s->ops.min, IOR_DECIMALS);
    ios_json_fixed(j, "OPsMean", s->ops.mean, IOR_DECIMALS);
    ios_json_fixed(j, "OPsSD", s->ops.stddev, IOR_DECIMALS);
    ios_json_fixed(j, "MeanTime", s->time.mean, IOR_DECIMALS);
    if (s->stonewall) {
        ios_json_fixed(j, "StoneWallTime", s->sw_time, IOR_DECIMALS);
        ios_json_fixed(j, "StoneWallbwMeanMIB", s->sw_mib, IOR_DECIMALS);
    }
    ios_json_fixed(j, "xsizeMiB", se->rows[0].bytes / MIB, IOR_DECIMALS);
    ios_json_end_object(j);
}

void ios_ior_out_summary(struct ios_ior_doc *d, const struct ios_run *run,
                         const struct ios_ior_params *p, const struct ios_ior_series *series,
                         int n_series)
{
    if (d->format == IOS_IOR_CSV)
        return; /* IOR's CSV layout is the results table alone */
    if (d->format == IOS_IOR_TEXT) {
        fprintf(d->out, "\nSummary of all tests:\n");
        fprintf(d->out,
                "Operation   Max(MiB)   Min(MiB)  Mean(MiB)     StdDev   Max(OPs)   Min(OPs)  "
                "Mean(OPs)     StdDev    Mean(s) Stonewall(s) Stonewall(MiB) Test# #Tasks tPN "
                "reps fPP reord reordoff reordrand seed segcnt   blksiz    xsize aggs(MiB)   API "
                "RefNum\n");
    } else {
        ios_json_begin_array(&d->j, "summary");
    }
    for (int i = 0; i < n_series; i++) {
        if (series[i].n == 0)
            continue;
        struct op_summary s;
        summarise(run, p, &series[i], &s);
        if (d->format == IOS_IOR_TEXT)
            text_summary_row(d, run, p, &series[i], &s);
        else
            json_summary_row(d, run, p, &series[i], &s);
    }
    if (d->format == IOS_IOR_JSON)
        ios_json_end_array(&d->j);
    fflush(d->out);
}

void ios_ior_out_finish(struct ios_ior_doc *d)
{
    char now[64];
    now_text(now, sizeof now);
    if (d->format == IOS_IOR_TEXT) {
        fprintf(d->out, "Finished            : %s\n", now);
    } else if (d->format == IOS_IOR_JSON && d->json_open) {
        ios_json_string(&d->j, "Finished", now);
        ios_json_end_object(&d->j);
        fprintf(d->out, "%.*s\n", (int)d->j.len, d->j.buf);
        ios_json_free(&d->j);
        d->json_open = 0;
    }
    fflush(d->out);
    if (d->out != stdout)
        fclose(d->out);
    d->out = stdout;
}

void ios_ior_out_rank_times(const struct ios_ior_params *p, const char *access, const double *times,
                            int nranks, double agg_bytes)
{
    FILE *f = fopen(p->rank_csv, "a");
    if (!f) {
        fprintf(stderr, "ioscore-suite ior: WARNING: cannot append to %s\n", p->rank_csv);
        return;
    }
    double share = agg_bytes / nranks; /* IOR: the aggregate over the ranks, not each rank's */
    for (int r = 0; r < nranks; r++)
        fprintf(f, "%s,%d,%.10e,%.10e,%.10e,%.10e\n", access, r, times[2 * r], times[2 * r + 1],
                share / times[2 * r], share / times[2 * r + 1]);
    fclose(f);
}
