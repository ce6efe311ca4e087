/*
 * The typed view of the INI options: one field per key that code reads, bound to its key in
 * the option table (src/core/config_table.c) and kept current by the parser (src/core/config.c).
 *
 * Code reads these fields, never a value looked up by its section and key strings: a misspelled
 * field does not compile, and a field whose C type does not fit its key's type stops the program
 * at start-up (ios_config_init). A key without a default leaves its field 0 (NULL for strings).
 * Sizes (transferSize, blockSize) are kept as the string the user typed, for the config hash;
 * their fields hold the parsed byte count (0 when unparsable, which the semantic checks refuse).
 */
#ifndef IOSCORE_OPTIONS_H
#define IOSCORE_OPTIONS_H

#include <stdint.h>

/* The keys of one find section ([find], and the extended-mode [find-easy] and [find-hard]). */
struct ios_find_options {
    const char *external_script; /* NULL: the built-in engine */
    const char *external_mpi_args;
    const char *external_extra_args;
    int64_t nproc; /* 0: every rank */
    int64_t queue_length;
    int steal_next;
    int hash_single_dirs;
};

struct ios_options {
    struct {
        const char *datadir;
        int timestamp_datadir;
        const char *resultdir;
        int timestamp_resultdir;
        const char *api;
        int drop_caches;
        const char *drop_caches_cmd;
        int io_buffers_on_gpu;
        int64_t verbosity;
        int scc;
        const char *data_packet_type;
    } global;
    struct {
        int64_t stonewall_time; /* seconds */
        const char *pause_dir;  /* NULL: no pauses */
    } debug;
    struct {
        uint64_t transfer_size; /* bytes */
        uint64_t block_size;    /* bytes */
        int file_per_proc;
        int unique_dir;
    } ior_easy;
    struct {
        int64_t segment_count;
    } ior_hard;
    struct {
        uint64_t n;
    } mdtest_easy;
    struct {
        uint64_t n;
        uint64_t files_per_dir; /* 0: unset */
    } mdtest_hard;
    struct ios_find_options find, find_easy, find_hard;
};

/* How a bound field is stored; IOS_FIELD_NONE: the key has no field. */
enum ios_field_kind {
    IOS_FIELD_NONE,
    IOS_FIELD_STRING, /* const char *: the stored value itself */
    IOS_FIELD_BOOL,   /* int: 1 for TRUE */
    IOS_FIELD_INT,    /* int64_t */
    IOS_FIELD_UINT64, /* uint64_t: a number, or a size for a string key */
    IOS_FIELD_FLOAT,  /* double */
};

#endif
