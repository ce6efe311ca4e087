/*
 * IOR's command-line syntax for `ioscore-suite ior`: short options may be bundled (-vv, -wr),
 * a value follows its letter directly or as the next word (-b4m, -b 4m), sizes take IOR's
 * k/m/g/t suffixes. Defaults are IOR's: -a POSIX -b 1m -t 256k -s 1 -i 1 -Q 1 -o testFile,
 * and without -w/-r/-W/-R a write then a read. Every IOR option not implemented here is
 * refused with its meaning, so a plan never runs with a silently different workload.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ioscore/acceptance.h"
#include "ioscore/ior_layout.h"
#include "ioscore/ior_summary.h"

#define FLAGS "FCegkwrWRzcHEBvx"
#define WITH_VALUE "abtsDOQidolG"
#define STR(x) #x
#define XSTR(x) STR(x)
#define MAX_REPS_TEXT XSTR(IOS_IOR_MAX_REPS)

/* IOR options this build does not implement, with IOR's meaning for the error message. */
static const struct {
    char letter;
    const char *meaning;
} unsupported[] = {
    {'A', "refNum: user reference number"},
    {'f', "scriptFile: run the tests of a script"},
    {'I', "showPerformanceNumbers"},
    {'j', "outlierThreshold: warn on tasks slower than the mean by N seconds"},
    {'J', "setAlignment: HDF5 alignment"},
    {'K', "keepFileWithError"},
    {'m', "multiFile: one file per repetition"},
    {'M', "memoryPerNode: hog memory on the nodes"},
    {'n', "noFill: no fill in HDF5 file creation"},
    {'N', "numTasks: run on fewer tasks than launched"},
    {'p', "preallocate: preallocate the file size"},
    {'P', "useSharedFilePointer"},
    {'q', "quitOnError"},
    {'S', "useStridedDatatype"},
    {'T', "maxTimeDuration: minutes per test"},
    {'u', "uniqueDir: one directory per file-per-process file"},
    {'U', "hintsFileName: MPI-IO hints file"},
    {'V', "useFileView: MPI_File_set_view"},
    {'X', "reorderTasksRandomSeed"},
    {'Y', "fsyncPerWrite: fsync after every transfer"},
    {'Z', "reorderTasksRandom: read the data of a random rank"},
    {'y', "dualMount"},
};

static int fail(int rank, const char *fmt, const char *a, const char *b)
{
    if (rank == 0) {
        fprintf(stderr, "ioscore-suite ior: ERROR: ");
        fprintf(stderr, fmt, a, b);
        fprintf(stderr, "\n");
    }
    return 2;
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: mpiexec -n N ioscore-suite ior [IOR options] [--resultdir DIR]\n"
            "  -a POSIX|MPIIO|IOURING  API (POSIX), --iouring.depth=N in flight (16)\n"
            "  -b N  block size per rank and segment (1m)\n"
            "  -t N  transfer size (256k)         -s N  segments (1)\n"
            "  -F  file per process               -C  read the data of rank r + Q*tasksPerNode\n"
            "  -Q N  task per node offset (1)     -e  fsync inside the write timing\n"
            "  -g  barriers between open, I/O and close\n"
            "  -k  keep the files                 -E  do not remove the file before writing\n"
            "  -w -r  write / read (both if neither, nor -W/-R, is given)\n"
            "  -W  read back and verify after the write   -R  re-read and verify after the read\n"
            "  -z  random order within each segment      -D N  stonewall after N seconds\n"
            "  --random-offset-seed=N  the -z seed (default: the start time)\n"
            "  -O stoneWallingWearOut=1  after the stonewall, every rank does the busiest's count\n"
            "  -O summaryFormat=default|JSON|CSV, summaryFile=F  IOR's result document\n"
            "  -O saveRankPerformanceDetailsCSV=F  IOR's per-rank CSV\n"
            "  -O lustreStripeCount=N, lustreStripeSize=S, lustreStartOST=N, beegfsNumTargets=N,\n"
            "     beegfsChunkSize=S  (applied with lfs / beegfs-ctl; refused elsewhere)\n"
            "  -c  collective MPI-IO              -H  show the MPI-IO hints\n"
            "  -i N  repetitions (1)              -d N  seconds between repetitions\n"
            "  -o FILE  test file (testFile)      -B, --posix.odirect  O_DIRECT\n"
            "  -l, --dataPacketType=t|o|i|r  data pattern (timestamp)\n"
            "  -G N  timestamp signature (the pattern's seed; a separate read launch needs the\n"
            "        writer's -G to verify)        -v  verbose (repeatable)   -x  single attempt\n"
            "ioscore additions: --resultdir DIR (result.json, per-rank CSVs; default\n"
            "  ./ioscore-ior-<timestamp>), --simulate-ppn K / --simulate-nodes K\n"
            "  (test only),\n"
            "  --rank-detail-threshold N (above N ranks result.json summarises the ranks;\n"
            "  4096), --rank-detail-full (then also ranks-<phase>.csv.gz with every rank)\n");
}

static int parse_count(const char *text, long lo, long hi, long *out)
{
    char *end = NULL;
    long v = strtol(text, &end, 10);
    if (end == text || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* -O key=value[,key=value]: IOR's directives, keys case-insensitive. */
static int parse_directives(struct ios_ior_params *p, const char *text, int rank)
{
    char copy[512];
    if (strlen(text) >= sizeof copy)
        return fail(rank, "-O %s%s: too long", text, "");
    snprintf(copy, sizeof copy, "%s", text);
    char *save = NULL;
    for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(item, '=');
        if (!eq)
            return fail(rank, "-O %s%s: expected key=value", item, "");
        *eq = '\0';
        long v;
        int rc;
        if (ios_streq_nocase(item, "stoneWallingWearOut")) {
            if (parse_count(eq + 1, 0, 1, &v) != 0)
                return fail(rank, "-O stoneWallingWearOut=%s%s: expected 0 or 1", eq + 1, "");
            p->wearout = (int)v;
        } else if ((rc = ios_ior_output_directive(p, item, eq + 1, rank)) >= 0 ||
                   (rc = ios_ior_layout_directive(p, item, eq + 1, rank)) >= 0) {
            if (rc != 0)
                return rc;
        } else {
            return fail(rank,
                        "not supported: -O %s (this build implements -O stoneWallingWearOut, "
                        "summaryFormat, summaryFile, saveRankPerformanceDetailsCSV and the "
                        "file-system layout hints)%s",
                        item, "");
        }
    }
    return 0;
}

static int set_packet(struct ios_ior_params *p, const char *v, int rank)
{
    if (!v[0] || !strchr("toir", tolower((unsigned char)v[0])))
        return fail(rank,
                    "--dataPacketType '%s'%s: expected timestamp, offset, incompressible or "
                    "random (t, o, i, r)",
                    v, "");
    p->packet = ios_packet_from_string(v);
    snprintf(p->packet_name, sizeof p->packet_name, "%s",
             p->packet == IOS_PACKET_TIMESTAMP        ? "timestamp"
             : p->packet == IOS_PACKET_OFFSET         ? "offset"
             : p->packet == IOS_PACKET_INCOMPRESSIBLE ? "incompressible"
                                                      : "random");
    return 0;
}

static int set_value(struct ios_ior_params *p, char letter, const char *v, int rank)
{
    char opt[3] = {'-', letter, '\0'};
    long n;
    uint64_t size;
    switch (letter) {
    case 'a':
        if (ios_streq_nocase(v, "POSIX"))
            snprintf(p->api, sizeof p->api, "POSIX");
        else if (ios_streq_nocase(v, "MPIIO"))
            snprintf(p->api, sizeof p->api, "MPIIO");
        else if (ios_streq_nocase(v, "DUMMY")) /* no I/O: the harness's own cost */
            snprintf(p->api, sizeof p->api, "DUMMY");
        else if (ios_streq_nocase(v, "IOURING") && ios_backends_optional()[0])
            snprintf(p->api, sizeof p->api, "IOURING");
        else if (ios_streq_nocase(v, "IOURING"))
            return fail(rank, "-a IOURING: this build has no io_uring backend (%s%s)",
                        "built without liburing; Debian: liburing-dev", "");
        else
            return fail(rank, "not supported: -a %s%s (this build offers POSIX and MPIIO)", v, "");
        return 0;
    case 'b':
    case 't':
        if (ios_parse_size(v, &size) != 0 || size == 0)
            return fail(rank, "%s %s: expected a size > 0 (digits with k, m, g or t)", opt, v);
        *(letter == 'b' ? &p->block : &p->xfer) = size;
        return 0;
    case 's':
        if (ios_parse_size(v, &size) != 0 || size == 0 || size > (1ull << 40))
            return fail(rank, "-s %s%s: expected a segment count in 1..2^40", v, "");
        p->segments = size;
        return 0;
    case 'D':
    case 'd':
        if (parse_count(v, 0, 86400 * 7, &n) != 0)
            return fail(rank, "%s %s: expected seconds in 0..604800", opt, v);
        *(letter == 'D' ? &p->deadline : &p->inter_delay) = (int)n;
        return 0;
    case 'Q':
        if (parse_count(v, 1, 1 << 20, &n) != 0)
            return fail(rank, "-Q %s%s: expected a task per node offset >= 1", v, "");
        p->task_offset = (int)n;
        return 0;
    case 'i':
        if (parse_count(v, 1, IOS_IOR_MAX_REPS, &n) != 0)
            return fail(rank, "-i %s: expected repetitions in 1..%s", v, MAX_REPS_TEXT);
        p->reps = (int)n;
        return 0;
    case 'G':
        if (parse_count(v, -2147483647L - 1, 2147483647L, &n) != 0)
            return fail(rank, "-G %s%s: expected a 32-bit integer", v, "");
        p->seed = (int32_t)n;
        p->seed_given = 1;
        return 0;
    case 'o':
        if (!v[0] || strlen(v) >= sizeof p->test_file - 16)
            return fail(rank, "-o '%s'%s: expected a file name (shorter than 4 KiB)", v, "");
        snprintf(p->test_file, sizeof p->test_file, "%s", v);
        return 0;
    case 'l':
        return set_packet(p, v, rank);
    case 'O':
        return parse_directives(p, v, rank);
    }
    return fail(rank, "internal: option %s%s", opt, "");
}

static void set_flag(struct ios_ior_params *p, char letter)
{
    switch (letter) {
    case 'F':
        p->fpp = 1;
        break;
    case 'C':
        p->reorder = 1;
        break;
    case 'e':
        p->fsync = 1;
        break;
    case 'g':
        p->barriers = 1;
        break;
    case 'k':
        p->keep = 1;
        break;
    case 'w':
        p->write = 1;
        break;
    case 'r':
        p->read = 1;
        break;
    case 'W':
        p->check_write = 1;
        break;
    case 'R':
        p->check_read = 1;
        break;
    case 'z':
        p->random = 1;
        break;
    case 'c':
        p->collective = 1;
        break;
    case 'H':
        p->show_hints = 1;
        break;
    case 'E':
        p->existing = 1;
        break;
    case 'B':
        p->odirect = 1;
        break;
    case 'v':
        p->verbose++;
        break;
    case 'x':
        p->single_xfer = 1;
        break;
    }
}

/* One "-xyz" word, possibly with the value of its last letter in the next word. */
static int parse_short(struct ios_ior_params *p, const char *word, const char *next, int *used,
                       int rank)
{
    for (const char *c = word + 1; *c; c++) {
        if (strchr(FLAGS, *c)) {
            set_flag(p, *c);
            continue;
        }
        if (strchr(WITH_VALUE, *c)) {
            const char *v = c[1] ? c + 1 : next;
            if (!v)
                return fail(rank, "-%c needs a value%s", (char[]){*c, 0}, "");
            if (!c[1])
                *used = 1;
            return set_value(p, *c, v, rank);
        }
        for (size_t i = 0; i < sizeof unsupported / sizeof unsupported[0]; i++)
            if (unsupported[i].letter == *c)
                return fail(rank, "not supported: -%s (%s)", (char[]){*c, 0},
                            unsupported[i].meaning);
        return fail(rank, "unknown IOR option -%s in '%s'", (char[]){*c, 0}, word);
    }
    return 0;
}

static int parse_long(struct ios_ior_params *p, const char *word, const char *next, int *used,
                      int rank)
{
    const char *eq = strchr(word, '=');
    size_t name_len = eq ? (size_t)(eq - word) : strlen(word);
    const char *value = eq ? eq + 1 : next;
    if (strncmp(word, "--iouring.depth", name_len) == 0 && name_len == 15) {
        long n;
        if (!value || parse_count(value, 1, 4096, &n) != 0)
            return fail(rank, "--iouring.depth %s%s: expected a number in 1..4096",
                        value ? value : "", "");
        *used = !eq;
        p->depth = (int)n;
        return 0;
    }
    if (strncmp(word, "--posix.odirect", name_len) == 0 && name_len == 15) {
        int flag = ios_backend_flag(word);
        if (flag < 0)
            return fail(rank, "%s: expected --posix.odirect[=0|1]%s", word, "");
        p->odirect = flag;
        return 0;
    }
    static const char *const with_value[] = {"--dataPacketType", "--resultdir", "--simulate-ppn",
                                             "--simulate-nodes", "--random-offset-seed"};
    for (int i = 0; i < 5; i++) {
        if (strlen(with_value[i]) != name_len || strncmp(word, with_value[i], name_len) != 0)
            continue;
        if (!value)
            return fail(rank, "%s needs a value%s", with_value[i], "");
        if (!eq)
            *used = 1;
        if (i == 0)
            return set_packet(p, value, rank);
        if (i == 1) {
            if (!value[0] || strlen(value) >= sizeof p->resultdir - 64)
                return fail(rank, "--resultdir '%s'%s: expected a directory name", value, "");
            snprintf(p->resultdir, sizeof p->resultdir, "%s", value);
            return 0;
        }
        long n;
        if (i == 4) {
            if (parse_count(value, 0, INT32_MAX, &n) != 0)
                return fail(rank, "--random-offset-seed %s%s: expected a number >= 0", value, "");
            p->random_seed = (int)n;
            return 0;
        }
        if (parse_count(value, 1, 1 << 20, &n) != 0)
            return fail(rank, "%s %s: expected a positive number", with_value[i], value);
        *(i == 2 ? &p->simulate_ppn : &p->simulate_nodes) = (int)n;
        if (p->simulate_ppn > 0 && p->simulate_nodes > 0)
            return fail(rank, "--simulate-ppn and --simulate-nodes exclude each other%s%s", "", "");
        return 0;
    }
    return fail(rank,
                "not supported: %s%s (this build implements --posix.odirect, "
                "--dataPacketType and --random-offset-seed of IOR's long options)",
                word, "");
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
    if (p->wearout && p->deadline == 0 && rank == 0)
        fprintf(stderr, "ioscore-suite ior: WARNING: -O stoneWallingWearOut=1 without -D has no "
                        "effect\n");
    return 0;
}

int ios_ior_parse(struct ios_ior_params *p, int argc, char **argv, int rank)
{
    memset(p, 0, sizeof *p);
    snprintf(p->api, sizeof p->api, "POSIX");
    p->block = 1048576;
    p->xfer = 262144;
    p->segments = 1;
    p->task_offset = 1;
    p->random_seed = -1;
    p->reps = 1;
    snprintf(p->test_file, sizeof p->test_file, "testFile");
    set_packet(p, "timestamp", rank);
    size_t len = 0;
    for (int i = 0; i < argc && len < sizeof p->command - 1; i++)
        len += (size_t)snprintf(p->command + len, sizeof p->command - len, "%s%s", i ? " " : "",
                                argv[i]);
    for (int i = 1; i < argc; i++) {
        const char *w = argv[i];
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
        int used = 0, rc;
        if (strcmp(w, "-h") == 0 || strcmp(w, "--help") == 0) {
            if (rank == 0)
                usage(stdout);
            return 1;
        }
        int detail =
            ios_rank_detail_arg(&p->rank_detail, argc, argv, &i, "ioscore-suite ior", rank);
        if (detail < 0)
            return 2;
        if (detail > 0)
            continue;
        if (w[0] != '-' || !w[1])
            return fail(rank, "unexpected argument '%s'%s (IOR takes options only)", w, "");
        rc = w[1] == '-' ? parse_long(p, w, next, &used, rank)
                         : parse_short(p, w, next, &used, rank);
        if (rc != 0)
            return rc;
        i += used;
    }
    if (!p->write && !p->read && !p->check_write && !p->check_read)
        p->write = p->read = 1;
    return check_params(p, rank);
}
