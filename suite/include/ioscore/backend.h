/*
 * Storage backends, fio-engine style: each backend file fills one ops struct with designated
 * initialisers. Phases call only these operations, so the same phase code drives POSIX and
 * the no-I/O dummy backend. Every call returns >= 0 on success or -errno.
 */
#ifndef IOSCORE_BACKEND_H
#define IOSCORE_BACKEND_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define IOS_BACKEND_INTERFACE_VERSION 1

/* Capability flags. */
#define IOS_CAP_STORES_DATA 0x1 /* reads return what was written: verification is possible */
#define IOS_CAP_NAMESPACE 0x2   /* a real directory tree exists: find can scan it */
#define IOS_CAP_COLLECTIVE 0x4  /* collective I/O: ior-hard collective = TRUE */
#define IOS_CAP_GPU_BUFFERS 0x8 /* I/O from GPU memory: [global] io-buffers-on-gpu = TRUE */

/* Open flags (mapped by each backend). */
#define IOS_OPEN_READ 0x1
#define IOS_OPEN_WRITE 0x2
#define IOS_OPEN_CREATE 0x4 /* create, or truncate a file we own */

struct ios_backend;

struct ios_backend_ops {
    const char *name;
    int interface_version;
    unsigned caps;
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
};

struct ios_backend {
    const struct ios_backend_ops *ops;
    int odirect;      /* POSIX: open data files with O_DIRECT */
    size_t alignment; /* buffer alignment the backend needs (O_DIRECT: 4096) */
    char api[512];    /* the API string it was created from */
};

/*
 * Creates a backend from an API string "<NAME> [--<name>.opt ...]" ("\ " escapes a space).
 * Returns 0, or -1 with a message naming the bad word.
 */
int ios_backend_create(const char *api, struct ios_backend *be, char *err, size_t err_len);

extern const struct ios_backend_ops ios_backend_posix;
extern const struct ios_backend_ops ios_backend_dummy;

#endif
