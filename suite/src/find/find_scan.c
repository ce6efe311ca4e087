#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "find_scan.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The kernel's record layout for getdents64 (glibc has no public struct for it). */
struct linux_dirent64 {
    uint64_t d_ino;
    int64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

enum { ERRORS_SHOWN_QUIET = 10, OUT_BUFFER = 1 << 16 };

void find_report_error(struct find_scanner *sc, const char *what, const char *path,
                       const char *name, int err)
{
    sc->counts->errors++;
    if (!sc->verbose && sc->errors_shown > ERRORS_SHOWN_QUIET)
        return;
    sc->errors_shown++;
    if (!sc->verbose && sc->errors_shown > ERRORS_SHOWN_QUIET) {
        fprintf(stderr, "ioscore-find: further errors are counted, not shown (use -v)\n");
        return;
    }
    fprintf(stderr, "ioscore-find: %s '%s%s%s': %s\n", what, path, name ? "/" : "",
            name ? name : "", strerror(err));
}

void find_scanner_flush(struct find_scanner *sc)
{
    if (sc->out_len == 0 || !sc->print_matches)
        return;
    sc->emit(sc->emit_ctx, sc->out, sc->out_len);
    sc->out_len = 0;
}

/* Matched paths are printed whole-line-buffered, so the lines of different ranks never mix
 * inside a line. */
static void print_match(struct find_scanner *sc, const char *path, size_t path_len,
                        const char *name, size_t name_len)
{
    size_t sep = (path_len > 0 && path[path_len - 1] == '/') ? 0 : 1; /* root "/" */
    size_t need = path_len + sep + name_len + 1;
    if (sc->out == NULL) {
        sc->out = malloc(OUT_BUFFER);
        if (sc->out == NULL)
            return;
    }
    if (sc->out_len + need > OUT_BUFFER)
        find_scanner_flush(sc);
    if (need > OUT_BUFFER) { /* a path longer than the buffer goes out on its own */
        char *line = malloc(need);
        if (line == NULL)
            return;
        memcpy(line, path, path_len);
        if (sep)
            line[path_len] = '/';
        memcpy(line + path_len + sep, name, name_len);
        line[need - 1] = '\n';
        sc->emit(sc->emit_ctx, line, need);
        free(line);
        return;
    }
    char *p = sc->out + sc->out_len;
    memcpy(p, path, path_len);
    if (sep)
        p[path_len] = '/';
    memcpy(p + path_len + sep, name, name_len);
    p[path_len + sep + name_len] = '\n';
    sc->out_len += need;
}

int find_open_dir(const char *path, int follow)
{
    int flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW);
    size_t len = strlen(path);
    if (len < PATH_MAX) {
        int fd = open(path, flags);
        return fd >= 0 ? fd : -errno;
    }
    /* Too long for one open: walk it in pieces shorter than PATH_MAX, split at '/'. */
    int at = AT_FDCWD;
    const char *rest = path;
    char piece[PATH_MAX];
    while (1) {
        size_t rest_len = strlen(rest);
        size_t cut = rest_len;
        int last = 1;
        if (rest_len >= PATH_MAX) {
            cut = PATH_MAX - 1;
            while (cut > 0 && rest[cut] != '/')
                cut--;
            if (cut == 0) {
                if (at != AT_FDCWD)
                    close(at);
                return -ENAMETOOLONG;
            }
            last = 0;
        }
        memcpy(piece, rest, cut);
        piece[cut] = '\0';
        int fd = openat(at, piece, last ? flags : (O_RDONLY | O_DIRECTORY | O_CLOEXEC));
        int err = errno;
        if (at != AT_FDCWD)
            close(at);
        if (fd < 0)
            return -err;
        if (last)
            return fd;
        at = fd;
        rest += cut;
        while (*rest == '/')
            rest++;
    }
}

int find_open_for_reading(struct find_scanner *sc, const char *path)
{
    int fd = find_open_dir(path, 0);
    if (fd < 0) {
        find_report_error(sc, "cannot open directory", path, NULL, -fd);
        return -1;
    }
    if (!sc->cross_mounts) {
        struct stat st;
        if (fstat(fd, &st) != 0) {
            find_report_error(sc, "cannot stat directory", path, NULL, errno);
            close(fd);
            return -1;
        }
        if ((uint64_t)st.st_dev != sc->root_dev) { /* a mount point: not descended, no error */
            close(fd);
            return -1;
        }
    }
    return fd;
}

long find_read_batch(int fd, char *buf, size_t cap)
{
    long n = syscall(SYS_getdents64, fd, buf, cap);
    return n >= 0 ? n : -errno;
}

static int is_dot_or_dotdot(const char *name)
{
    return name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'));
}

/* d_off of the last record of a directory on tmpfs: "nothing follows" (INT_MAX). */
#define COOKIE_END ((int64_t)INT32_MAX)
#define TMPFS_MAGIC_NUMBER 0x01021994
/* Below this many cookie values (about entries on tmpfs) a split is not worth a message. */
enum { MIN_SPLIT_COOKIES = 8192, PROBE_BUFFER = 4096 };

void find_cursor_init(struct find_cursor *c, int fd, int64_t stop)
{
    memset(c, 0, sizeof(*c));
    c->stop = stop;
    c->ordered = 1;
    struct statfs fs;
    c->splittable = fstatfs(fd, &fs) == 0 && fs.f_type == TMPFS_MAGIC_NUMBER;
}

size_t find_cursor_take(struct find_cursor *c, const char *buf, size_t nbytes, int *ended)
{
    *ended = 0;
    size_t pos = 0;
    while (pos < nbytes) {
        const struct linux_dirent64 *d = (const struct linux_dirent64 *)(buf + pos);
        /* the dots lead a directory (cookies 1 and max + 1): ranges are cut between entries */
        if (c->seen_entry && c->stop != INT64_MIN && c->last_doff <= c->stop) {
            *ended = 1; /* this record and all after it belong to another rank's range */
            return pos;
        }
        if (!is_dot_or_dotdot(d->d_name)) {
            if (c->seen_entry && d->d_off < COOKIE_END) {
                if (d->d_off < c->last_doff)
                    c->confirmed++;
                else
                    c->ordered = 0;
            }
            c->seen_entry = 1;
        }
        c->last_doff = d->d_off;
        pos += d->d_reclen;
    }
    if (c->seen_entry && c->stop != INT64_MIN && c->last_doff <= c->stop)
        *ended = 1; /* the range's last record closed this batch */
    return pos;
}

int find_cursor_split(struct find_cursor *c, int fd, int64_t *start, int64_t *stop)
{
    if (!c->splittable || !c->ordered || !c->confirmed || c->last_doff >= COOKIE_END)
        return 0;
    int64_t hi = c->last_doff;
    int64_t lo = c->stop == INT64_MIN ? 0 : c->stop;
    if (hi - lo < MIN_SPLIT_COOKIES)
        return 0;
    char probe[PROBE_BUFFER];
    int ok = lseek(fd, lo + (hi - lo) / 2, SEEK_SET) >= 0;
    long n = ok ? find_read_batch(fd, probe, sizeof probe) : -1;
    /* back to where this reader stands: hi is an exact resume cookie */
    if (lseek(fd, hi, SEEK_SET) < 0) {
        c->splittable = 0;
        return 0;
    }
    if (n <= 0)
        return 0;
    const struct linux_dirent64 *first = (const struct linux_dirent64 *)probe;
    int64_t cut = first->d_off;
    if (is_dot_or_dotdot(first->d_name) || cut <= lo || cut >= hi || cut >= COOKIE_END)
        return 0;
    *start = cut;
    *stop = c->stop;
    c->stop = cut;
    return 1;
}

/* The directory fd of a NAMES item is opened only when an entry needs a stat. */
struct lazy_dir {
    int fd;
    int err;
    const char *path;
};

static int lazy_dir_fd(struct lazy_dir *d)
{
    if (d->fd < 0 && d->err == 0) {
        int fd = find_open_dir(d->path, 0);
        if (fd < 0)
            d->err = -fd;
        else
            d->fd = fd;
    }
    return d->fd;
}

static int stat_entry(struct find_scanner *sc, struct lazy_dir *dir, const char *name,
                      struct stat *st)
{
    int fd = lazy_dir_fd(dir);
    if (fd < 0) {
        find_report_error(sc, "cannot open directory to stat", dir->path, name, dir->err);
        return -1;
    }
    if (fstatat(fd, name, st, AT_SYMLINK_NOFOLLOW) != 0) {
        find_report_error(sc, "cannot stat", dir->path, name, errno);
        return -1;
    }
    return 0;
}

/* One entry, counted as pfind counts it (spec §6.2). */
static int process_entry(struct find_scanner *sc, struct lazy_dir *dir, size_t path_len,
                         const char *name, unsigned char d_type, struct find_stack *stack)
{
    struct ioscore_find_counts *c = sc->counts;
    size_t name_len = strlen(name);
    struct stat st;
    int have_stat = 0;
    c->checked++;
    if (d_type == DT_UNKNOWN) {
        c->unknown++;
        if (stat_entry(sc, dir, name, &st) != 0)
            return 0;
        have_stat = 1;
        d_type = S_ISDIR(st.st_mode) ? DT_DIR : DT_REG;
    }
    if (d_type == DT_DIR) {
        struct find_item item;
        if (find_item_new_dir(&item, dir->path, path_len, name, name_len) != 0)
            return -ENOMEM;
        if (find_stack_push(stack, item) != 0) {
            find_item_free(&item);
            return -ENOMEM;
        }
        return 0;
    }
    c->scanned++;
    if (!find_matcher_matches(&sc->matcher, name, name_len))
        return 0;
    if (sc->need_stat) {
        if (!have_stat && stat_entry(sc, dir, name, &st) != 0)
            return 0;
        if (sc->size_bytes >= 0 && (int64_t)st.st_size != sc->size_bytes)
            return 0;
        if (sc->has_newer && (int64_t)st.st_ctime < sc->ref_ctime)
            return 0;
    }
    c->found++;
    if (sc->print_matches)
        print_match(sc, dir->path, path_len, name, name_len);
    return 0;
}

int find_process_dirents(struct find_scanner *sc, int dirfd, const char *path, size_t path_len,
                         const char *buf, size_t nbytes, struct find_stack *stack)
{
    struct lazy_dir dir = {.fd = dirfd, .err = 0, .path = path};
    size_t pos = 0;
    while (pos < nbytes) {
        const struct linux_dirent64 *d = (const struct linux_dirent64 *)(buf + pos);
        pos += d->d_reclen;
        if (is_dot_or_dotdot(d->d_name))
            continue;
        int rc = process_entry(sc, &dir, path_len, d->d_name, d->d_type, stack);
        if (rc != 0)
            return rc;
    }
    return 0;
}

int find_dirents_to_names(const char *path, size_t path_len, const char *buf, size_t nbytes,
                          struct find_item *item)
{
    memset(item, 0, sizeof(*item));
    item->kind = FIND_ITEM_NAMES;
    item->path = strndup(path, path_len);
    item->names = malloc(nbytes); /* a record never grows: reclen > 1 + name + NUL */
    if (item->path == NULL || item->names == NULL) {
        find_item_free(item);
        return -ENOMEM;
    }
    item->path_len = (uint32_t)path_len;
    size_t pos = 0, out = 0;
    while (pos < nbytes) {
        const struct linux_dirent64 *d = (const struct linux_dirent64 *)(buf + pos);
        pos += d->d_reclen;
        if (is_dot_or_dotdot(d->d_name))
            continue;
        size_t len = strlen(d->d_name);
        item->names[out] = (char)d->d_type;
        memcpy(item->names + out + 1, d->d_name, len + 1);
        out += len + 2;
        item->count++;
    }
    item->names_len = (uint32_t)out;
    return 0;
}

int find_process_names(struct find_scanner *sc, const struct find_item *item,
                       struct find_stack *stack)
{
    struct lazy_dir dir = {.fd = -1, .err = 0, .path = item->path};
    int rc = 0;
    size_t pos = 0;
    while (pos < item->names_len && rc == 0) {
        unsigned char d_type = (unsigned char)item->names[pos];
        const char *name = item->names + pos + 1;
        pos += strlen(name) + 2;
        rc = process_entry(sc, &dir, item->path_len, name, d_type, stack);
    }
    if (dir.fd >= 0)
        close(dir.fd);
    return rc;
}
