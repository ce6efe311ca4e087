/*
 * io_uring backend (liburing; built when the library is found, IOS_HAVE_LIBURING): files are
 * opened as by the POSIX backend (--iouring.odirect: O_DIRECT), data moves through one ring
 * per backend copy, and the transfer engine keeps up to --iouring.depth transfers in flight
 * through queue/reap (src/core/xfer_engine.c). The plain pread/pwrite calls submit one request
 * and wait for it. The namespace calls are the POSIX ones: io_uring would add nothing there.
 * The ring is set up at the first open and torn down when the last handle closes, so a
 * backend copied by value (as phases do) needs no cleanup.
 */
#ifdef IOS_HAVE_LIBURING
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ioscore/backend.h"

#define DEPTH_DEFAULT 16
#define DEPTH_MAX 4096

static const struct ios_backend_option iouring_options[] = {
    {"--iouring.odirect", NULL, "open data files with O_DIRECT (4 KiB aligned buffers)", NULL},
    {"--iouring.depth", "N", "transfers in flight per rank, 1..4096 (16)", NULL},
    {NULL, NULL, NULL, NULL},
};

struct iouring_state {
    int odirect;
    int depth;    /* 0: DEPTH_DEFAULT */
    int ready;    /* the ring is set up */
    int handles;  /* open files */
    int inflight; /* queued or submitted, not reaped */
    struct io_uring ring;
};
_Static_assert(sizeof(struct iouring_state) <= IOS_BACKEND_STATE_SIZE, "io_uring state fits");

static struct iouring_state *state(struct ios_backend *be)
{
    return (struct iouring_state *)be->state;
}

static const struct iouring_state *values(const struct ios_backend *be)
{
    return (const struct iouring_state *)be->state;
}

static int iouring_init(struct ios_backend *be, int argc, char **argv, char *err, size_t err_len)
{
    struct iouring_state *st = state(be);
    be->alignment = 8;
    for (int i = 0; i < argc; i++) {
        if (strncmp(argv[i], "--iouring.depth", 15) == 0) {
            const char *v = argv[i][15] == '=' ? argv[i] + 16 : "";
            char *end = NULL;
            long d = strtol(v, &end, 10);
            if (!*v || *end || d < 1 || d > DEPTH_MAX) {
                snprintf(err, err_len, "--iouring.depth needs a number in 1..%d, got '%s'",
                         DEPTH_MAX, v);
                return -1;
            }
            st->depth = (int)d;
            continue;
        }
        int on = ios_backend_flag(argv[i]);
        if (on < 0) {
            snprintf(err, err_len, "IOURING backend option '%s' in API '%s': expected =1 or =0",
                     argv[i], be->api);
            return -1;
        }
        st->odirect = on;
        be->alignment = on ? 4096 : 8;
    }
    return 0;
}

static int iouring_depth(const struct ios_backend *be)
{
    return values(be)->depth > 0 ? values(be)->depth : DEPTH_DEFAULT;
}

static int iouring_open(struct ios_backend *be, const char *path, int flags, int64_t *handle)
{
    struct iouring_state *st = state(be);
    if (!st->ready) {
        /* one thread submits and reaps: completions run when it waits, not by interrupting
         * it (kernels before 6.1 refuse the flags; then the plain ring) */
        int rc = io_uring_queue_init((unsigned)iouring_depth(be), &st->ring,
                                     IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN);
        if (rc == -EINVAL)
            rc = io_uring_queue_init((unsigned)iouring_depth(be), &st->ring, 0);
        if (rc < 0)
            return rc;
        st->ready = 1;
        st->inflight = 0;
    }
    int fd = ios_posix_open_fd(path, flags, st->odirect);
    if (fd < 0) {
        int rc = fd;
        if (st->handles == 0) {
            io_uring_queue_exit(&st->ring);
            st->ready = 0;
        }
        return rc;
    }
    st->handles++;
    *handle = fd;
    return 0;
}

static int iouring_close(struct ios_backend *be, int64_t h)
{
    struct iouring_state *st = state(be);
    int rc = close((int)h) == 0 ? 0 : -errno;
    if (st->handles > 0 && --st->handles == 0 && st->ready && st->inflight == 0) {
        io_uring_queue_exit(&st->ring);
        st->ready = 0;
    }
    return rc;
}

/* Queues one transfer; submitted by the next reap. 0 or -errno (-EBUSY: the ring is full). */
static int iouring_queue(struct ios_backend *be, int64_t h, int write, void *buf, size_t n,
                         off_t off, uint64_t tag)
{
    struct iouring_state *st = state(be);
    if (!st->ready)
        return -EBADF;
    struct io_uring_sqe *sqe = io_uring_get_sqe(&st->ring);
    if (!sqe)
        return -EBUSY;
    if (write)
        io_uring_prep_write(sqe, (int)h, buf, (unsigned)n, (uint64_t)off);
    else
        io_uring_prep_read(sqe, (int)h, buf, (unsigned)n, (uint64_t)off);
    io_uring_sqe_set_data64(sqe, tag);
    st->inflight++;
    return 0;
}

/* Submits what is queued and returns between min and max completions (tag, bytes or -errno);
 * negative: -errno of the ring itself. */
static int iouring_reap(struct ios_backend *be, int min, uint64_t *tags, ssize_t *results, int max)
{
    struct iouring_state *st = state(be);
    if (min > st->inflight)
        min = st->inflight;
    int got = 0;
    while (got < max) {
        struct io_uring_cqe *cqe = NULL;
        int rc;
        if (got < min)
            rc = io_uring_submit_and_wait(&st->ring, 1);
        else
            rc = io_uring_submit(&st->ring);
        if (rc < 0 && rc != -EINTR)
            return rc;
        rc = io_uring_peek_cqe(&st->ring, &cqe);
        if (rc == -EAGAIN || !cqe) {
            if (got >= min)
                break;
            continue;
        }
        tags[got] = io_uring_cqe_get_data64(cqe);
        results[got] = cqe->res;
        io_uring_cqe_seen(&st->ring, cqe);
        st->inflight--;
        got++;
    }
    return got;
}

/* One transfer, waited for; continues a short transfer as pread/pwrite loops do. */
static ssize_t one(struct ios_backend *be, int64_t h, int write, void *buf, size_t n, off_t off)
{
    size_t done = 0;
    while (done < n) {
        int rc = iouring_queue(be, h, write, (char *)buf + done, n - done, off + (off_t)done, 0);
        if (rc < 0)
            return rc;
        uint64_t tag;
        ssize_t res;
        rc = iouring_reap(be, 1, &tag, &res, 1);
        if (rc < 0)
            return rc;
        if (res == -EINTR || res == -EAGAIN)
            continue;
        if (res < 0)
            return res;
        if (res == 0) {
            if (write)
                return -EIO;
            break; /* end of file: the caller sees a short read */
        }
        done += (size_t)res;
    }
    return (ssize_t)done;
}

static ssize_t iouring_pwrite(struct ios_backend *be, int64_t h, const void *buf, size_t n,
                              off_t off)
{
    return one(be, h, 1, (void *)(uintptr_t)buf, n, off);
}

static ssize_t iouring_pread(struct ios_backend *be, int64_t h, void *buf, size_t n, off_t off)
{
    return one(be, h, 0, buf, n, off);
}

static int iouring_fsync(struct ios_backend *be, int64_t h)
{
    (void)be;
    return fsync((int)h) == 0 ? 0 : -errno;
}

static int iouring_unlink(struct ios_backend *be, const char *path)
{
    (void)be;
    return unlink(path) == 0 ? 0 : -errno;
}

static unsigned iouring_modes(const struct ios_backend *be)
{
    return values(be)->odirect ? IOS_MODE_DIRECT : 0;
}

const struct ios_backend_ops ios_backend_iouring = {
    .name = "IOURING",
    .interface_version = IOS_BACKEND_INTERFACE_VERSION,
    .caps = IOS_CAP_STORES_DATA | IOS_CAP_NAMESPACE | IOS_CAP_ASYNC,
    .options = iouring_options,
    .init = iouring_init,
    .open = iouring_open,
    .pwrite = iouring_pwrite,
    .pread = iouring_pread,
    .fsync = iouring_fsync,
    .close = iouring_close,
    .mkdir = ios_posix_mkdir,
    .rmdir = ios_posix_rmdir,
    .unlink = iouring_unlink,
    .stat_size = ios_posix_stat_size,
    .sync_all = ios_posix_sync_all,
    .modes = iouring_modes,
    .depth = iouring_depth,
    .queue = iouring_queue,
    .reap = iouring_reap,
};
#endif
