/*
 * MPI-IO backend (IOR's -a MPIIO) through the MPI library's MPI-IO (ROMIO/OMPIO in Open MPI).
 * Data files are MPI files: a shared file (IOS_OPEN_SHARED) is opened by every rank on
 * MPI_COMM_WORLD, a private one on MPI_COMM_SELF. With `collective` (IOR -c) reads and writes
 * are MPI_File_{read,write}_at_all, so every rank of a shared file must make the same calls:
 * the phases run such loops in lockstep. The namespace (mkdir, rmdir, stat, sync) is POSIX, as
 * in IOR; unlink is MPI_File_delete.
 *
 * Hints come, as in IOR, from IOR_HINT__MPI__<key>=<value> environment variables and then from
 * the hints file (`hintsFileName`, or --mpiio.hintsFileName=FILE): lines of the same form, other
 * lines ignored. IOR_HINT__GPFS__ lines are passed to MPI like the reference does.
 */
#include <errno.h>
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ioscore/backend.h"
#include "ioscore/util.h"

_Static_assert(sizeof(MPI_File) <= sizeof(int64_t), "an MPI_File must fit in a handle");

#define HINT_PREFIX "IOR_HINT__"
#define HINTS_FILE_MAX (1u << 20) /* a hints file is a few lines; refuse anything huge */
#define MAX_CHUNK (1 << 30)       /* bytes per MPI call: the count is an int */

extern char **environ;

static const struct ios_backend_option mpiio_options[] = {
    {"--mpiio.hintsFileName", "FILE", "IOR hints file: lines IOR_HINT__MPI__<key>=<value>",
     "hintsFileName"},
    {NULL, NULL, NULL, NULL},
};

/* The option values (struct ios_backend.state). */
struct mpiio_state {
    int collective;        /* collective reads and writes (IO500 `collective`, IOR -c) */
    char hints_file[1024]; /* IOR hints file, "" if none */
    int n_hints;
    struct ios_hint hints[IOS_MAX_HINTS]; /* from IOR_HINT__* variables, then the file */
};
_Static_assert(sizeof(struct mpiio_state) <= IOS_BACKEND_STATE_SIZE, "MPIIO state fits");

static struct mpiio_state *mpiio_state(struct ios_backend *be)
{
    return (struct mpiio_state *)be->state;
}

static const struct mpiio_state *mpiio_values(const struct ios_backend *be)
{
    return (const struct mpiio_state *)be->state;
}

static MPI_File to_file(int64_t h)
{
    MPI_File fh;
    memcpy(&fh, &h, sizeof fh);
    return fh;
}

/* MPI-IO error classes and the errno the phases report (strerror) for them. */
static const struct {
    int mpi_class, err;
} error_classes[] = {
    {MPI_ERR_NO_SUCH_FILE, ENOENT}, {MPI_ERR_BAD_FILE, ENOENT},   {MPI_ERR_ACCESS, EACCES},
    {MPI_ERR_NO_SPACE, ENOSPC},     {MPI_ERR_QUOTA, EDQUOT},      {MPI_ERR_FILE_EXISTS, EEXIST},
    {MPI_ERR_READ_ONLY, EROFS},     {MPI_ERR_FILE_IN_USE, EBUSY},
};

static int mpi_errno(int rc)
{
    int cls = MPI_ERR_OTHER;
    MPI_Error_class(rc, &cls);
    for (size_t i = 0; i < sizeof error_classes / sizeof error_classes[0]; i++)
        if (error_classes[i].mpi_class == cls)
            return -error_classes[i].err;
    return -EIO;
}

/*
 * One hint line "IOR_HINT__<layer>__<key>=<value>" (value up to the first space, tab or end of
 * line, as IOR reads it). Returns 1 when added, 0 when the line is not a hint, -1 on error.
 */
static int add_hint(struct mpiio_state *st, const char *line, const char *where, char *err,
                    size_t err_len)
{
    if (strncmp(line, HINT_PREFIX, strlen(HINT_PREFIX)) != 0)
        return 0;
    const char *p = line + strlen(HINT_PREFIX);
    const char *sep = strstr(p, "__");
    const char *eq = strchr(p, '=');
    if (!sep || !eq || sep > eq || (strncmp(p, "MPI__", 5) != 0 && strncmp(p, "GPFS__", 6) != 0)) {
        snprintf(err, err_len,
                 "%s: bad MPI-IO hint '%.200s' (expected IOR_HINT__MPI__<key>=<value> or "
                 "IOR_HINT__GPFS__<key>=<value>)",
                 where, line);
        return -1;
    }
    const char *key = sep + 2;
    size_t key_len = (size_t)(eq - key);
    const char *value = eq + 1;
    size_t value_len = strcspn(value, " \t\r\n");
    if (key_len == 0 || value_len == 0 || key_len >= sizeof st->hints[0].key ||
        key_len >= MPI_MAX_INFO_KEY || value_len >= sizeof st->hints[0].value) {
        snprintf(err, err_len, "%s: bad MPI-IO hint '%.200s' (empty or too long key or value)",
                 where, line);
        return -1;
    }
    if (st->n_hints >= IOS_MAX_HINTS) {
        snprintf(err, err_len, "%s: more than %d MPI-IO hints", where, IOS_MAX_HINTS);
        return -1;
    }
    struct ios_hint *h = &st->hints[st->n_hints++];
    memcpy(h->key, key, key_len);
    h->key[key_len] = '\0';
    memcpy(h->value, value, value_len);
    h->value[value_len] = '\0';
    return 1;
}

/* Adds the MPI hints of an IOR hints file (lines IOR_HINT__MPI__<key>=<value>). */
static int load_hints_file(struct mpiio_state *st, const char *path, char *err, size_t err_len)
{
    snprintf(st->hints_file, sizeof st->hints_file, "%s", path);
    struct stat sb;
    if (stat(path, &sb) != 0) {
        snprintf(err, err_len, "MPI-IO hints file %s: %s", path, strerror(errno));
        return -1;
    }
    if (!S_ISREG(sb.st_mode) || sb.st_size > (off_t)HINTS_FILE_MAX) {
        snprintf(err, err_len, "MPI-IO hints file %s is not a regular file of at most 1 MiB", path);
        return -1;
    }
    size_t len = 0;
    char *text = ios_read_file(path, &len);
    if (!text) {
        snprintf(err, err_len, "MPI-IO hints file %s: %s", path, strerror(errno));
        return -1;
    }
    if (memchr(text, '\0', len)) {
        snprintf(err, err_len, "MPI-IO hints file %s is not a text file", path);
        free(text);
        return -1;
    }
    int rc = 0, line_no = 0;
    for (char *line = text; line && rc >= 0;) {
        char *next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        line_no++;
        char where[1100];
        snprintf(where, sizeof where, "%s:%d", path, line_no);
        rc = add_hint(st, line, where, err, err_len);
        line = next;
    }
    free(text);
    return rc < 0 ? -1 : 0;
}

static int mpiio_init(struct ios_backend *be, int argc, char **argv, char *err, size_t err_len)
{
    struct mpiio_state *st = mpiio_state(be);
    for (char **env = environ; env && *env; env++) {
        if (add_hint(st, *env, "environment", err, err_len) < 0)
            return -1;
    }
    for (int i = 0; i < argc; i++) { /* only --mpiio.hintsFileName=FILE passes the registry */
        if (load_hints_file(st, strchr(argv[i], '=') + 1, err, err_len) != 0)
            return -1;
    }
    return 0;
}

static int mpiio_open(struct ios_backend *be, const char *path, int flags, int64_t *handle)
{
    int amode = MPI_MODE_RDONLY;
    if ((flags & IOS_OPEN_READ) && (flags & IOS_OPEN_WRITE))
        amode = MPI_MODE_RDWR;
    else if (flags & IOS_OPEN_WRITE)
        amode = MPI_MODE_WRONLY;
    if (flags & IOS_OPEN_CREATE)
        amode |= MPI_MODE_CREATE;
    const struct mpiio_state *st = mpiio_values(be);
    MPI_Info info = MPI_INFO_NULL;
    if (st->n_hints > 0) {
        MPI_Info_create(&info);
        for (int i = 0; i < st->n_hints; i++)
            MPI_Info_set(info, st->hints[i].key, st->hints[i].value);
    }
    MPI_File fh = MPI_FILE_NULL;
    MPI_Comm comm = (flags & IOS_OPEN_SHARED) ? ios_test_comm : MPI_COMM_SELF;
    int rc = MPI_File_open(comm, path, amode, info, &fh);
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    if (rc != MPI_SUCCESS)
        return mpi_errno(rc);
    *handle = 0;
    memcpy(handle, &fh, sizeof fh);
    return 0;
}

/* Moves n bytes in calls of at most MAX_CHUNK; returns the bytes moved or -errno. */
static ssize_t transfer(struct ios_backend *be, int64_t h, void *buf, size_t n, off_t off,
                        int write)
{
    MPI_File fh = to_file(h);
    int collective = mpiio_values(be)->collective;
    size_t done = 0;
    while (done < n) {
        int count = n - done > MAX_CHUNK ? MAX_CHUNK : (int)(n - done);
        MPI_Status status;
        MPI_Offset at = (MPI_Offset)off + (MPI_Offset)done;
        char *p = (char *)buf + done;
        int rc;
        if (write)
            rc = collective ? MPI_File_write_at_all(fh, at, p, count, MPI_BYTE, &status)
                            : MPI_File_write_at(fh, at, p, count, MPI_BYTE, &status);
        else
            rc = collective ? MPI_File_read_at_all(fh, at, p, count, MPI_BYTE, &status)
                            : MPI_File_read_at(fh, at, p, count, MPI_BYTE, &status);
        if (rc != MPI_SUCCESS)
            return mpi_errno(rc);
        int moved = 0;
        MPI_Get_count(&status, MPI_BYTE, &moved);
        if (moved <= 0) {
            if (write)
                return -EIO;
            break; /* end of file: the caller sees a short read */
        }
        done += (size_t)moved;
        if (moved < count && !write)
            break;
    }
    return (ssize_t)done;
}

static ssize_t mpiio_pwrite(struct ios_backend *be, int64_t h, const void *buf, size_t n, off_t off)
{
    return transfer(be, h, (void *)buf, n, off, 1);
}

static ssize_t mpiio_pread(struct ios_backend *be, int64_t h, void *buf, size_t n, off_t off)
{
    return transfer(be, h, buf, n, off, 0);
}

static int mpiio_fsync(struct ios_backend *be, int64_t h)
{
    (void)be;
    int rc = MPI_File_sync(to_file(h));
    return rc == MPI_SUCCESS ? 0 : mpi_errno(rc);
}

static int mpiio_close(struct ios_backend *be, int64_t h)
{
    (void)be;
    MPI_File fh = to_file(h);
    int rc = MPI_File_close(&fh);
    return rc == MPI_SUCCESS ? 0 : mpi_errno(rc);
}

static int mpiio_unlink(struct ios_backend *be, const char *path)
{
    (void)be;
    int rc = MPI_File_delete(path, MPI_INFO_NULL);
    return rc == MPI_SUCCESS ? 0 : mpi_errno(rc);
}

static unsigned mpiio_modes(const struct ios_backend *be)
{
    return mpiio_values(be)->collective ? IOS_MODE_COLLECTIVE : 0;
}

static int mpiio_hints(const struct ios_backend *be, const struct ios_hint **hints)
{
    const struct mpiio_state *st = mpiio_values(be);
    *hints = st->n_hints > 0 ? st->hints : NULL;
    return st->n_hints;
}

static void mpiio_set_collective(struct ios_backend *be)
{
    mpiio_state(be)->collective = 1;
}

const struct ios_backend_ops ios_backend_mpiio = {
    .name = "MPIIO",
    .interface_version = IOS_BACKEND_INTERFACE_VERSION,
    .caps = IOS_CAP_STORES_DATA | IOS_CAP_NAMESPACE | IOS_CAP_COLLECTIVE,
    .options = mpiio_options,
    .init = mpiio_init,
    .open = mpiio_open,
    .pwrite = mpiio_pwrite,
    .pread = mpiio_pread,
    .fsync = mpiio_fsync,
    .close = mpiio_close,
    .mkdir = ios_posix_mkdir,
    .rmdir = ios_posix_rmdir,
    .unlink = mpiio_unlink,
    .stat_size = ios_posix_stat_size,
    .sync_all = ios_posix_sync_all,
    .modes = mpiio_modes,
    .hints = mpiio_hints,
    .set_collective = mpiio_set_collective,
};
