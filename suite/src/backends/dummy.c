/*
 * Dummy backend: every call succeeds at once and nothing touches storage. It exercises the
 * scheduler, stonewall, scoring and reports in fast tests. It cannot store data, so phases
 * skip verification, and it has no namespace, so the find phase cannot scan anything.
 * Reads report full transfers and stat reports size 0.
 */
#include <stdio.h>
#include <string.h>

#include "ioscore/backend.h"

static int dummy_init(struct ios_backend *be, int argc, char **argv, char *err, size_t err_len)
{
    (void)be;
    if (argc > 0) {
        snprintf(err, err_len, "the DUMMY backend takes no options (got '%s')", argv[0]);
        return -1;
    }
    return 0;
}

static int dummy_open(struct ios_backend *be, const char *path, int flags, int64_t *handle)
{
    (void)be, (void)path, (void)flags;
    *handle = 1;
    return 0;
}

static ssize_t dummy_io(struct ios_backend *be, int64_t h, const void *buf, size_t n, off_t off)
{
    (void)be, (void)h, (void)buf, (void)off;
    return (ssize_t)n;
}

static ssize_t dummy_read(struct ios_backend *be, int64_t h, void *buf, size_t n, off_t off)
{
    return dummy_io(be, h, buf, n, off);
}

static int dummy_handle_op(struct ios_backend *be, int64_t h)
{
    (void)be, (void)h;
    return 0;
}

static int dummy_path_op(struct ios_backend *be, const char *path)
{
    (void)be, (void)path;
    return 0;
}

static int dummy_mkdir(struct ios_backend *be, const char *path, unsigned mode)
{
    (void)be, (void)path, (void)mode;
    return 0;
}

static int dummy_stat_size(struct ios_backend *be, const char *path, int64_t *size)
{
    (void)be, (void)path;
    *size = 0;
    return 0;
}

static int dummy_sync_all(struct ios_backend *be)
{
    (void)be;
    return 0;
}

const struct ios_backend_ops ios_backend_dummy = {
    .name = "DUMMY",
    .interface_version = IOS_BACKEND_INTERFACE_VERSION,
    .caps = 0,
    .init = dummy_init,
    .open = dummy_open,
    .pwrite = dummy_io,
    .pread = dummy_read,
    .fsync = dummy_handle_op,
    .close = dummy_handle_op,
    .mkdir = dummy_mkdir,
    .rmdir = dummy_path_op,
    .unlink = dummy_path_op,
    .stat_size = dummy_stat_size,
    .sync_all = dummy_sync_all,
};
