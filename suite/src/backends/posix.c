/*
 * POSIX backend: plain open/pwrite/pread/fsync/close and namespace calls.
 * Option --posix.odirect opens data files with O_DIRECT; buffers are then 4 KiB aligned by
 * the phases, and unaligned I/O (ior-hard, mdtest-hard) fails with EINVAL as on the reference.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ioscore/backend.h"

static const struct ios_backend_option posix_options[] = {
    {"--posix.odirect", NULL, "open data files with O_DIRECT (4 KiB aligned buffers)", NULL},
    {NULL, NULL, NULL, NULL},
};

/* The option values (struct ios_backend.state). */
struct posix_state {
    int odirect; /* open data files with O_DIRECT */
};
_Static_assert(sizeof(struct posix_state) <= IOS_BACKEND_STATE_SIZE, "POSIX state fits");

static struct posix_state *posix_state(struct ios_backend *be)
{
    return (struct posix_state *)be->state;
}

static const struct posix_state *posix_values(const struct ios_backend *be)
{
    return (const struct posix_state *)be->state;
}

/* The registry passes only options of the table. */
static int posix_init(struct ios_backend *be, int argc, char **argv, char *err, size_t err_len)
{
    struct posix_state *st = posix_state(be);
    for (int i = 0; i < argc; i++) {
        int on = ios_backend_flag(argv[i]);
        if (on < 0) {
            snprintf(err, err_len, "POSIX backend option '%s' in API '%s': expected =1 or =0",
                     argv[i], be->api);
            return -1;
        }
        st->odirect = on;
        be->alignment = on ? 4096 : 8;
    }
    return 0;
}

int ios_posix_open_fd(const char *path, int flags, int odirect)
{
    int oflags = 0;
    if ((flags & IOS_OPEN_READ) && (flags & IOS_OPEN_WRITE))
        oflags = O_RDWR;
    else if (flags & IOS_OPEN_WRITE)
        oflags = O_WRONLY;
    else
        oflags = O_RDONLY;
    if (flags & IOS_OPEN_CREATE) /* as IOR's and mdtest's POSIX create: read-write, 0664 */
        oflags = O_RDWR | O_CREAT;
    if (odirect)
        oflags |= O_DIRECT;
    int fd = open(path, oflags | O_CLOEXEC, 0664);
    /* FUSE file systems (MooseFS) may answer EEXIST to an O_CREAT without O_EXCL when another
     * client created the file between their lookup and create: it exists, which is all that
     * O_CREAT asked for, so open it as it is */
    if (fd < 0 && errno == EEXIST && (oflags & O_CREAT))
        fd = open(path, (oflags & ~O_CREAT) | O_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

static int posix_open(struct ios_backend *be, const char *path, int flags, int64_t *handle)
{
    int fd = ios_posix_open_fd(path, flags, posix_values(be)->odirect);
    if (fd < 0)
        return fd;
    *handle = fd;
    return 0;
}

static ssize_t posix_pwrite(struct ios_backend *be, int64_t h, const void *buf, size_t n, off_t off)
{
    (void)be;
    size_t done = 0;
    while (done < n) {
        ssize_t r = pwrite((int)h, (const char *)buf + done, n - done, off + (off_t)done);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        if (r == 0)
            return -EIO;
        done += (size_t)r;
    }
    return (ssize_t)done;
}

static ssize_t posix_pread(struct ios_backend *be, int64_t h, void *buf, size_t n, off_t off)
{
    (void)be;
    size_t done = 0;
    while (done < n) {
        ssize_t r = pread((int)h, (char *)buf + done, n - done, off + (off_t)done);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        if (r == 0)
            break; /* end of file: the caller sees a short read */
        done += (size_t)r;
    }
    return (ssize_t)done;
}

static int posix_fsync(struct ios_backend *be, int64_t h)
{
    (void)be;
    return fsync((int)h) == 0 ? 0 : -errno;
}

static int posix_close(struct ios_backend *be, int64_t h)
{
    (void)be;
    return close((int)h) == 0 ? 0 : -errno;
}

int ios_posix_mkdir(struct ios_backend *be, const char *path, unsigned mode)
{
    (void)be;
    return mkdir(path, (mode_t)mode) == 0 ? 0 : -errno;
}

int ios_posix_rmdir(struct ios_backend *be, const char *path)
{
    (void)be;
    return rmdir(path) == 0 ? 0 : -errno;
}

static int posix_unlink(struct ios_backend *be, const char *path)
{
    (void)be;
    return unlink(path) == 0 ? 0 : -errno;
}

int ios_posix_stat_size(struct ios_backend *be, const char *path, int64_t *size)
{
    (void)be;
    struct stat st;
    if (stat(path, &st) != 0)
        return -errno;
    *size = (int64_t)st.st_size;
    return 0;
}

int ios_posix_sync_all(struct ios_backend *be)
{
    (void)be;
    sync();
    return 0;
}

static unsigned posix_modes(const struct ios_backend *be)
{
    return posix_values(be)->odirect ? IOS_MODE_DIRECT : 0;
}

const struct ios_backend_ops ios_backend_posix = {
    .name = "POSIX",
    .interface_version = IOS_BACKEND_INTERFACE_VERSION,
    .caps = IOS_CAP_STORES_DATA | IOS_CAP_NAMESPACE,
    .options = posix_options,
    .init = posix_init,
    .open = posix_open,
    .pwrite = posix_pwrite,
    .pread = posix_pread,
    .fsync = posix_fsync,
    .close = posix_close,
    .mkdir = ios_posix_mkdir,
    .rmdir = ios_posix_rmdir,
    .unlink = posix_unlink,
    .stat_size = ios_posix_stat_size,
    .sync_all = ios_posix_sync_all,
    .modes = posix_modes,
};
