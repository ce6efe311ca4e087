/*
 * Storage backends, fio-engine style: each backend file fills one ops struct with designated
 * initialisers. Phases call only these operations, so the same phase code drives POSIX, MPI-IO
 * and the no-I/O dummy backend. Every call returns >= 0 on success or -errno.
 * Each backend publishes its options as a table (IOR style), so --list and the pre-I/O
 * validation ask the registry instead of knowing backend names.
 */
#ifndef IOSCORE_BACKEND_H
#define IOSCORE_BACKEND_H

#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define IOS_BACKEND_INTERFACE_VERSION 1

/* Capability flags. */
#define IOS_CAP_STORES_DATA 0x1 /* reads return what was written: verification is possible */
#define IOS_CAP_NAMESPACE 0x2   /* a real directory tree exists: find can scan it */
#define IOS_CAP_COLLECTIVE 0x4  /* collective I/O: ior-hard collective = TRUE */
#define IOS_CAP_GPU_BUFFERS 0x8 /* I/O from GPU memory: [global] io-buffers-on-gpu = TRUE */
#define IOS_CAP_ASYNC 0x10      /* queue/reap: several transfers in flight (depth) */
/* With IOS_CAP_COLLECTIVE, open, fsync and close of an IOS_OPEN_SHARED file are collective
 * calls too: every rank makes them. */

/* Modes of a configured backend, set by its option values (ios_backend_modes). */
#define IOS_MODE_DIRECT 0x1     /* data I/O bypasses the client cache (--posix.odirect) */
#define IOS_MODE_COLLECTIVE 0x2 /* collective reads and writes (IO500 `collective`, IOR -c) */

/* Open flags (mapped by each backend). */
#define IOS_OPEN_READ 0x1
#define IOS_OPEN_WRITE 0x2
#define IOS_OPEN_CREATE 0x4 /* create if missing (writers remove stale files first) */
#define IOS_OPEN_SHARED 0x8 /* every rank opens this one file together (shared layouts) */

/* One option of a backend, as written after the name in the API string. */
struct ios_backend_option {
    const char *name;  /* "--posix.odirect" */
    const char *value; /* NULL: a flag; otherwise what the value after '=' is, e.g. "FILE" */
    const char *help;
    /* The IO500 INI key of a phase (or its group) that sets this option when the API string
     * does not, as IO500 turns INI keys into IOR options (hintsFileName -> -U); NULL if none. */
    const char *ini_key;
};

#define IOS_MAX_HINTS 32
/* One MPI-IO hint (IOR hints-file line IOR_HINT__MPI__<key>=<value>). */
struct ios_hint {
    char key[64];
    char value[256];
};

struct ios_backend;

struct ios_backend_ops {
    const char *name;
    int interface_version;
    unsigned caps;
    const struct ios_backend_option *options; /* terminated by a NULL name */
    /* Parses the backend options (the words after the name in the API string). */
    int (*init)(struct ios_backend *be, int argc, char **argv, char *err, size_t err_len);
    int (*open)(struct ios_backend *be, const char *path, int flags, int64_t *handle);
    ssize_t (*pwrite)(struct ios_backend *be, int64_t handle, const void *buf, size_t n, off_t off);
    ssize_t (*pread)(struct ios_backend *be, int64_t handle, void *buf, size_t n, off_t off);
    int (*fsync)(struct ios_backend *be, int64_t handle);
    int (*close)(struct ios_backend *be, int64_t handle);
    int (*mkdir)(struct ios_backend *be, const char *path, unsigned mode);
    int (*rmdir)(struct ios_backend *be, const char *path);
    int (*unlink)(struct ios_backend *be, const char *path);
    int (*stat_size)(struct ios_backend *be, const char *path, int64_t *size);
    int (*sync_all)(struct ios_backend *be); /* what mdtest -Y's shell `sync` does */
    /* Optional queries of the option values (NULL: none): IOS_MODE_* in effect; the MPI-IO
     * hints given to every open (returns how many). */
    unsigned (*modes)(const struct ios_backend *be);
    int (*hints)(const struct ios_backend *be, const struct ios_hint **hints);
    /* IOS_CAP_COLLECTIVE: switches collective reads and writes on. */
    void (*set_collective)(struct ios_backend *be);
    /* IOS_CAP_ASYNC: up to depth() transfers in flight. queue() adds one, tagged, to be
     * submitted by the next reap() (0, or -errno); reap() submits and returns between min and
     * max completions, each a tag and its result (bytes or -errno); < 0: the queue failed. */
    int (*depth)(const struct ios_backend *be);
    int (*queue)(struct ios_backend *be, int64_t handle, int write, void *buf, size_t n, off_t off,
                 uint64_t tag);
    int (*reap)(struct ios_backend *be, int min, uint64_t *tags, ssize_t *results, int max);
};

/* Room for the largest backend's option values (MPIIO: the hints and the hints file name). */
#define IOS_BACKEND_STATE_SIZE 12288

struct ios_backend {
    const struct ios_backend_ops *ops;
    size_t alignment;      /* buffer alignment the backend needs (O_DIRECT: 4096) */
    char api[512];         /* the API string it was created from */
    unsigned ignored_caps; /* IOS_CAP_* asked of a backend without them: IOR warns, runs on */
    /* The backend's own option values, filled by its init from its option table; only its
     * file knows their layout (as with sockaddr_storage), the rest asks the ios_backend_* queries.
     * Storage inside the struct: a backend is copied by value and needs no cleanup. */
    alignas(max_align_t) unsigned char state[IOS_BACKEND_STATE_SIZE];
};

struct ios_config;

/*
 * Creates a backend from an API string "<NAME> [--<name>.opt ...]" ("\ " escapes a space).
 * Returns 0, or -1 with a message naming the bad word.
 */
int ios_backend_create(const char *api, struct ios_backend *be, char *err, size_t err_len);

/*
 * The backend of one phase: its API string (phase, then group, then [global] api) plus the INI
 * keys IO500 turns into IOR options, the phase's value first, then the group's: `collective`
 * (-c, for backends with IOS_CAP_COLLECTIVE) and every key a backend option names as its
 * ini_key (MPIIO: hintsFileName, -U) unless the API string gives that option. Reads the hints
 * file; touches nothing else.
 */
int ios_backend_for_phase(const struct ios_config *cfg, const char *phase, const char *group,
                          struct ios_backend *be, char *err, size_t err_len);

/*
 * Pre-I/O validation: 0 when this build offers the backend of `api` with those options;
 * otherwise -1 and a message naming the backend or option and, for backends and options of
 * the reference that need client libraries (DFS, IME, Gfarm, GPFS/Lustre/BeeGFS options ...),
 * the build that would provide them.
 */
int ios_backend_check(const char *api, char *err, size_t err_len);

/* A flag option word "--name", "--name=1|true" (1) or "--name=0|false" (0); -1 if malformed
 * (src/backends/flag.c). */
int ios_backend_flag(const char *word);

/* What the backend's option values make it do: IOS_MODE_* (src/backends/queries.c). */
unsigned ios_backend_modes(const struct ios_backend *be);

/* The MPI-IO hints the backend gives to every open; returns how many (0: none, *hints NULL). */
int ios_backend_hints(const struct ios_backend *be, const struct ios_hint **hints);

/*
 * Asks for collective reads and writes (IO500 `collective = TRUE`, IOR -c). Returns 0, or -1
 * when the backend has no collective I/O: it then runs independent I/O, as IOR does, and
 * ignored_caps records the request for the caller's warning.
 */
int ios_backend_set_collective(struct ios_backend *be);

/* --list: every backend of this build with its options, then those it cannot offer. */
void ios_backend_list(FILE *out);

/* The POSIX namespace calls, shared with backends whose namespace is POSIX (MPI-IO, as IOR). */
int ios_posix_mkdir(struct ios_backend *be, const char *path, unsigned mode);
int ios_posix_rmdir(struct ios_backend *be, const char *path);
int ios_posix_stat_size(struct ios_backend *be, const char *path, int64_t *size);
int ios_posix_sync_all(struct ios_backend *be);

extern const struct ios_backend_ops ios_backend_posix;
extern const struct ios_backend_ops ios_backend_dummy;
#ifdef IOS_HAVE_LIBURING
extern const struct ios_backend_ops ios_backend_iouring;
#endif
/* The optional backends this build has, for --version ("IOURING" or ""). */
const char *ios_backends_optional(void);

/* open(2) as the POSIX backend opens its files (IOS_OPEN_* flags), shared by the backends that
 * use plain file descriptors: the descriptor, or -errno. */
int ios_posix_open_fd(const char *path, int flags, int odirect);
extern const struct ios_backend_ops ios_backend_mpiio;

#endif
