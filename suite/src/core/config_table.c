/*
 * The IO500 option table: every section and key of the current release and the historical ones
 * (see include/ioscore/config.h). Read by the parser (config.c) and the hints for unknown names
 * (config_hints.c).
 */
#include "ioscore/config.h"

#include <stddef.h>

#define H_API "backend and options for this phase, e.g. POSIX --posix.odirect"
#define H_RUN "run this phase"

/* A key of the current table, and a key only older releases had (see config.h). */
#define OPT(name, type, def, help)                                                                 \
    {                                                                                              \
        name, type, def, help, NULL, IOS_FIELD_NONE, 0                                             \
    }
/* A current key bound to a field of struct ios_options; the field's C type names its kind. */
#define FIELD_KIND(member)                                                                         \
    _Generic(((struct ios_options *)0)->member,                                                    \
        const char *: IOS_FIELD_STRING,                                                            \
        int: IOS_FIELD_BOOL,                                                                       \
        int64_t: IOS_FIELD_INT,                                                                    \
        uint64_t: IOS_FIELD_UINT64,                                                                \
        double: IOS_FIELD_FLOAT)
#define BOUND(name, type, def, help, member)                                                       \
    {                                                                                              \
        name, type, def, help, NULL, FIELD_KIND(member), offsetof(struct ios_options, member)      \
    }
#define OLD(name, type, def, help, releases)                                                       \
    {                                                                                              \
        name, type, def, help, releases, IOS_FIELD_NONE, 0                                         \
    }

#define R_ISC20 "isc20, sc20"
#define R_ISC21 "isc21"
#define R_RND "sc21 to isc26"

/* The isc20/sc20 per-phase keys, kept so that configs of those releases run unchanged. */
#define OLD_ODIRECT OLD("posix.odirect", IOS_OPT_BOOL, NULL, "TRUE: POSIX --posix.odirect", R_ISC20)
#define OLD_HINTS OLD("hintsFileName", IOS_OPT_STRING, NULL, "MPI-IO hints file (IOR -U)", R_ISC20)
#define OLD_NORUN OLD("noRun", IOS_OPT_BOOL, NULL, "TRUE: do not run (run = FALSE)", R_ISC20)

static const struct ios_option opt_global[] = {
    BOUND("datadir", IOS_OPT_STRING, "./datafiles", "root directory for the test data (required)",
          global.datadir),
    BOUND("timestamp-datadir", IOS_OPT_BOOL, "TRUE", "append /<timestamp> to datadir",
          global.timestamp_datadir),
    BOUND("resultdir", IOS_OPT_STRING, "./results", "root directory for the results",
          global.resultdir),
    BOUND("timestamp-resultdir", IOS_OPT_BOOL, "TRUE", "append /<timestamp> to resultdir",
          global.timestamp_resultdir),
    BOUND("api", IOS_OPT_STRING, "POSIX", "backend plus options, e.g. POSIX --posix.odirect",
          global.api),
    BOUND("drop-caches", IOS_OPT_BOOL, "FALSE", "run drop-caches-cmd before each I/O phase",
          global.drop_caches),
    BOUND("drop-caches-cmd", IOS_OPT_STRING,
          "sudo -n bash -c \"echo 3 > /proc/sys/vm/drop_caches\"",
          "cache purging command, run on every rank", global.drop_caches_cmd),
    BOUND("io-buffers-on-gpu", IOS_OPT_BOOL, "FALSE", "I/O buffers on the GPU (if the backend can)",
          global.io_buffers_on_gpu),
    BOUND("verbosity", IOS_OPT_UINT, "1", "0 quiet; >0 t_start/t_end/t_delta lines; >1 more keys",
          global.verbosity),
    BOUND("scc", IOS_OPT_BOOL, "FALSE", "Student Cluster Competition rules (minimum write 30 s)",
          global.scc),
    BOUND("dataPacketType", IOS_OPT_STRING, "timestamp", "timestamp|offset|incompressible|random",
          global.data_packet_type),
};
static const struct ios_option opt_debug[] = {
    BOUND("stonewall-time", IOS_OPT_INT, "300", "write deadline in s; anything but 300 is INVALID",
          debug.stonewall_time),
    BOUND("pause-dir", IOS_OPT_STRING, NULL, "wait while <dir>/<phase> exists; INVALIDATES the run",
          debug.pause_dir),
};
static const struct ios_option opt_ior_easy[] = {
    OPT("API", IOS_OPT_STRING, NULL, H_API),
    BOUND("transferSize", IOS_OPT_STRING, "2m", "transfer size", ior_easy.transfer_size),
    BOUND("blockSize", IOS_OPT_STRING, "9920000m",
          "block size per rank; a multiple of transferSize", ior_easy.block_size),
    BOUND("filePerProc", IOS_OPT_BOOL, "TRUE", "one file per rank", ior_easy.file_per_proc),
    BOUND("uniqueDir", IOS_OPT_BOOL, "FALSE", "one directory per rank", ior_easy.unique_dir),
    OPT("run", IOS_OPT_BOOL, "TRUE", H_RUN),
    OPT("verbosity", IOS_OPT_INT, NULL, "extra log detail"),
    OLD_ODIRECT,
    OLD_HINTS,
    OLD_NORUN,
};
/* ior-easy-write, ior-easy-read */
static const struct ios_option opt_ior_phase[] = {
    OPT("API", IOS_OPT_STRING, NULL, H_API),
    OPT("run", IOS_OPT_BOOL, "TRUE", H_RUN),
    OLD_ODIRECT,
    OLD_HINTS,
};
/* the write/stat/read/delete phases of mdtest */
static const struct ios_option opt_mdtest_phase[] = {
    OPT("API", IOS_OPT_STRING, NULL, H_API),
    OPT("run", IOS_OPT_BOOL, "TRUE", H_RUN),
    OLD_NORUN,
    OLD_ODIRECT,
};
static const struct ios_option opt_api_run[] = {
    OPT("API", IOS_OPT_STRING, NULL, H_API),
    OPT("run", IOS_OPT_BOOL, "TRUE", H_RUN),
};
static const struct ios_option opt_run_only[] = {
    OPT("run", IOS_OPT_BOOL, "TRUE", H_RUN),
};
static const struct ios_option opt_mdtest_easy[] = {
    OPT("API", IOS_OPT_STRING, NULL, H_API),
    BOUND("n", IOS_OPT_UINT64, "1000000", "files per rank (upper bound)", mdtest_easy.n),
    OPT("run", IOS_OPT_BOOL, "TRUE", H_RUN),
    OLD_NORUN,
    OLD_ODIRECT,
};
static const struct ios_option opt_mdworkbench[] = {
    OPT("API", IOS_OPT_STRING, NULL, H_API),
    OPT("waitingTime", IOS_OPT_FLOAT, "0.0", "waiting time of an operation relative to runtime"),
    OPT("precreatePerSet", IOS_OPT_UINT64, NULL, "files to precreate per set"),
    OPT("filesPerProc", IOS_OPT_UINT64, NULL, "files per iteration and set"),
    OPT("run", IOS_OPT_BOOL, "TRUE", H_RUN),
    OPT("verbosity", IOS_OPT_INT, NULL, "extra log detail"),
};
/* The find keys, bound to the ios_find_options of section `sec`. */
#define FIND_OPTIONS(sec)                                                                          \
    BOUND("external-script", IOS_OPT_STRING, NULL, "external program used instead of the engine",  \
          sec.external_script),                                                                    \
        BOUND("external-mpi-args", IOS_OPT_STRING, "", "prefix of the external command",           \
              sec.external_mpi_args),                                                              \
        BOUND("external-extra-args", IOS_OPT_STRING, "", "arguments before the standard ones",     \
              sec.external_extra_args),                                                            \
        BOUND("nproc", IOS_OPT_UINT, NULL, "number of ranks taking part (the first nproc)",        \
              sec.nproc),                                                                          \
        OPT("run", IOS_OPT_BOOL, "TRUE", H_RUN),                                                   \
        BOUND("pfind-queue-length", IOS_OPT_INT, "10000", "work queue length (>= 10)",             \
              sec.queue_length),                                                                   \
        BOUND("pfind-steal-next", IOS_OPT_BOOL, "FALSE", "steal from the next rank",               \
              sec.steal_next),                                                                     \
        BOUND("pfind-parallelize-single-dir-access-using-hashing", IOS_OPT_BOOL, "FALSE",          \
              "split single directories by hashing", sec.hash_single_dirs)
static const struct ios_option opt_find_easy[] = {FIND_OPTIONS(find_easy)};
static const struct ios_option opt_find_hard[] = {FIND_OPTIONS(find_hard)};
static const struct ios_option opt_find[] = {
    FIND_OPTIONS(find),
    OLD_NORUN,
    OLD("external-args", IOS_OPT_STRING, NULL, "arguments of the external find script", "isc20"),
};
static const struct ios_option opt_ior_hard[] = {
    OPT("API", IOS_OPT_STRING, NULL, H_API),
    BOUND("segmentCount", IOS_OPT_INT, "10000000", "47008-byte records per rank (upper bound)",
          ior_hard.segment_count),
    OPT("collective", IOS_OPT_BOOL, NULL, "collective I/O (backends that offer it: MPIIO)"),
    OPT("run", IOS_OPT_BOOL, "TRUE", H_RUN),
    OPT("verbosity", IOS_OPT_INT, NULL, "extra log detail"),
    OLD_ODIRECT,
    OLD_HINTS,
    OLD_NORUN,
};
static const struct ios_option opt_ior_hard_phase[] = {
    OPT("API", IOS_OPT_STRING, NULL, H_API),
    OPT("collective", IOS_OPT_BOOL, NULL, "collective I/O (backends that offer it: MPIIO)"),
    OPT("run", IOS_OPT_BOOL, "TRUE", H_RUN),
    OLD_ODIRECT,
    OLD_HINTS,
};
static const struct ios_option opt_mdtest_hard[] = {
    OPT("API", IOS_OPT_STRING, NULL, H_API),
    BOUND("n", IOS_OPT_UINT64, "1000000", "files per rank (upper bound)", mdtest_hard.n),
    BOUND("files-per-dir", IOS_OPT_UINT64, NULL, "file limit per directory; INVALIDATES the run",
          mdtest_hard.files_per_dir),
    OPT("run", IOS_OPT_BOOL, "TRUE", H_RUN),
    OLD_NORUN,
    OLD_ODIRECT,
};
/*
 * The historical random-I/O phases: ior-rnd (isc21; isc20/sc20 had it with other keys), then
 * ior-rnd4K and ior-rnd1MB (sc21 to isc26).
 */
#define RND_OPTIONS                                                                                \
    OPT("API", IOS_OPT_STRING, NULL, H_API),                                                       \
        OPT("blockSize", IOS_OPT_UINT64, "1073741824", "bytes per rank"),                          \
        OPT("run", IOS_OPT_BOOL, "TRUE", H_RUN),                                                   \
        OPT("verbosity", IOS_OPT_INT, NULL, "extra log detail"),                                   \
        OPT("randomPrefill", IOS_OPT_INT, "0", "prefill the file before the random writes")
static const struct ios_option opt_ior_rnd_sizes[] = {RND_OPTIONS};
static const struct ios_option opt_ior_rnd[] = {
    RND_OPTIONS, OLD("segmentCount", IOS_OPT_INT, NULL, "4 KiB records per rank", R_ISC20),
    OLD_ODIRECT, OLD_HINTS,
    OLD_NORUN,
};
static const struct ios_option opt_ior_rnd_phase[] = {
    OPT("API", IOS_OPT_STRING, NULL, H_API),
    OLD_HINTS,
};

#define SEC(name, opts, optional, releases)                                                        \
    {                                                                                              \
        name, opts, (int)(sizeof opts / sizeof opts[0]), optional, releases                        \
    }

/* The reference --list order (the phase order), with the historical sections where they were. */
static const struct ios_section sections[] = {
    SEC("global", opt_global, 0, NULL),
    SEC("debug", opt_debug, 0, NULL),
    SEC("ior-easy", opt_ior_easy, 0, NULL),
    SEC("ior-easy-write", opt_ior_phase, 0, NULL),
    SEC("ior-rnd", opt_ior_rnd, 0, R_ISC21),
    SEC("ior-rnd-write", opt_ior_rnd_phase, 0, R_ISC21),
    SEC("ior-rnd4K", opt_ior_rnd_sizes, 0, R_RND),
    SEC("ior-rnd4K-write", opt_api_run, 0, R_RND),
    SEC("mdtest-easy", opt_mdtest_easy, 0, NULL),
    SEC("mdtest-easy-write", opt_mdtest_phase, 0, NULL),
    SEC("ior-rnd1MB", opt_ior_rnd_sizes, 0, R_RND),
    SEC("ior-rnd1MB-write", opt_api_run, 0, R_RND),
    SEC("mdworkbench", opt_mdworkbench, 1, NULL),
    SEC("mdworkbench-create", opt_run_only, 1, NULL),
    {"timestamp", NULL, 0, 0, NULL},
    SEC("find-easy", opt_find_easy, 1, NULL),
    SEC("ior-hard", opt_ior_hard, 0, NULL),
    SEC("ior-hard-write", opt_ior_hard_phase, 0, NULL),
    SEC("mdtest-hard", opt_mdtest_hard, 0, NULL),
    SEC("mdtest-hard-write", opt_mdtest_phase, 0, NULL),
    SEC("find", opt_find, 0, NULL),
    SEC("ior-rnd-read", opt_ior_rnd_phase, 0, R_ISC21),
    SEC("ior-rnd4K-read", opt_api_run, 0, R_RND),
    SEC("ior-rnd1MB-read", opt_api_run, 0, R_RND),
    SEC("find-hard", opt_find_hard, 1, NULL),
    SEC("mdworkbench-bench", opt_run_only, 1, NULL),
    SEC("ior-easy-read", opt_ior_phase, 0, NULL),
    SEC("mdtest-easy-stat", opt_mdtest_phase, 0, NULL),
    SEC("ior-hard-read", opt_ior_hard_phase, 0, NULL),
    SEC("mdtest-hard-stat", opt_mdtest_phase, 0, NULL),
    SEC("mdworkbench-delete", opt_run_only, 1, NULL),
    SEC("mdtest-easy-delete", opt_mdtest_phase, 0, NULL),
    SEC("mdtest-hard-read", opt_mdtest_phase, 0, NULL),
    SEC("mdtest-hard-delete", opt_mdtest_phase, 0, NULL),
    SEC("ior-rnd4K-easy-read", opt_api_run, 0, NULL),
};
#define N_SECTIONS ((int)(sizeof sections / sizeof sections[0]))
_Static_assert(N_SECTIONS <= IOS_MAX_SECTIONS, "raise IOS_MAX_SECTIONS");

const struct ios_section *ios_config_sections(int *count)
{
    *count = N_SECTIONS;
    return sections;
}
