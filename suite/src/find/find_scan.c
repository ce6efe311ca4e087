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

/* What tmpfs and btrfs (INT32_MAX) and ext4 (INT64_MAX) put in the last record's d_off:
 * "nothing follows", outside the order of the other cookies. */
static int is_end_marker(int64_t d_off)
{
    return d_off == INT32_MAX || d_off == INT64_MAX;
}

/* statfs(2) magic numbers (linux/magic.h) of the file systems whose seek semantics the
 * tests check (tests/suite/test_find_fs.py). */
enum {
    TMPFS_MAGIC_NUMBER = 0x01021994,
    EXT4_MAGIC_NUMBER = 0xEF53, /* ext2/3/4 */
    XFS_MAGIC_NUMBER = 0x58465342,
    BTRFS_MAGIC_NUMBER = 0x9123683E,
};

int find_cookie_direction(int fd, enum ioscore_find_range_policy policy)
{
    if (policy == IOSCORE_FIND_RANGE_OFF)
        return 0;
    struct statfs fs;
    if (fstatfs(fd, &fs) != 0)
        return 0;
    /*
     * Splitting is correct on all four; it is also faster on ext4 and xfs (two readers of one
     * 200k-entry directory: 1.75-2 x one reader). On tmpfs (Linux 6.18: offset_readdir locks
     * the parent dentry per entry) and btrfs, two readers of one directory were slower than
     * one, so "auto" shares those by batches of names and only "any" splits them.
     */
    int any = policy == IOSCORE_FIND_RANGE_ANY;
    switch ((unsigned long)fs.f_type) {
    case TMPFS_MAGIC_NUMBER:
        return any ? -1 : 0; /* Linux >= 6.6; older kernels ascend: `ordered` turns off */
    case BTRFS_MAGIC_NUMBER:
        return any ? 1 : 0;
    case EXT4_MAGIC_NUMBER:
    case XFS_MAGIC_NUMBER:
        return 1;
    default:
        return 0; /* IOSCORE_FIND_RANGE_ANY learns it from the records */
    }
}

void find_cursor_init(struct find_cursor *c, int direction, int learn, int64_t stop)
{
    memset(c, 0, sizeof(*c));
    c->direction = direction;
    c->learn = learn && direction == 0;
    c->stop = stop;
    c->ordered = 1;
}

static int64_t key_of(const struct find_cursor *c, int64_t cookie)
{
    return c->direction < 0 ? -cookie : cookie;
}

/* Order bookkeeping for one more entry (not a dot, not an end marker). */
static void note_order(struct find_cursor *c, int64_t d_off)
{
    if (!c->seen_entry || is_end_marker(c->last_doff)) {
        c->first_doff = c->seen_entry ? c->first_doff : d_off;
        return;
    }
    if (c->direction == 0 && c->learn && d_off != c->last_doff) {
        c->direction = d_off > c->last_doff ? 1 : -1;
        c->learn = 0;
    }
    if (c->direction != 0 && key_of(c, d_off) > key_of(c, c->last_doff))
        c->confirmed++;
    else
        c->ordered = 0;
}

static int range_ends_before_next(const struct find_cursor *c)
{
    return c->seen_entry && c->stop != FIND_NO_STOP && c->direction != 0 &&
           key_of(c, c->last_doff) >= key_of(c, c->stop);
}

size_t find_cursor_take(struct find_cursor *c, const char *buf, size_t nbytes, int *ended)
{
    *ended = 0;
    size_t pos = 0;
    while (pos < nbytes) {
        const struct linux_dirent64 *d = (const struct linux_dirent64 *)(buf + pos);
        /* the dots lead a directory: ranges are cut between entries */
        if (range_ends_before_next(c)) {
            *ended = 1; /* this record and all after it belong to another rank's range */
            return pos;
        }
        if (!is_dot_or_dotdot(d->d_name)) {
            if (!is_end_marker(d->d_off))
                note_order(c, d->d_off);
            c->seen_entry = 1;
        }
        c->last_doff = d->d_off;
        pos += d->d_reclen;
    }
    if (range_ends_before_next(c))
        *ended = 1; /* the range's last record closed this batch */
    return pos;
}

/* Records a probe at cookie x finds: up to cap bytes; -1 when the seek or read fails. */
static long probe_at(int fd, int64_t x, char *buf, size_t cap)
{
    if (lseek(fd, x, SEEK_SET) < 0)
        return -1;
    return find_read_batch(fd, buf, cap);
}

/*
 * The key just past the last entry of an ascending directory read to its end: double the
 * distance from p until a probe finds nothing, then halve the gap a few times. Only called
 * for the first split of a directory (later ones have a stop); a probe is one small
 * getdents64 call.
 */
static int64_t find_end_key(const struct find_cursor *c, int fd, int64_t p)
{
    char small[512];
    int64_t step = p - c->first_doff > 1 ? p - c->first_doff : 1;
    int64_t lo = p, hi = INT64_MAX;
    for (int i = 0; i < 64; i++) {
        int64_t x = step > INT64_MAX - p ? INT64_MAX : p + step;
        long n = probe_at(fd, x, small, sizeof small);
        if (n < 0)
            return p; /* cannot probe: do not split */
        if (n == 0) {
            hi = x;
            break;
        }
        lo = x;
        if (x == INT64_MAX)
            return INT64_MAX;
        step = step > INT64_MAX / 2 ? INT64_MAX : 2 * step;
    }
    for (int i = 0; i < 16 && hi - lo > (lo - p) / 8 + 1; i++) {
        int64_t mid = lo + (hi - lo) / 2;
        long n = probe_at(fd, mid, small, sizeof small);
        if (n < 0)
            return p;
        if (n > 0)
            lo = mid;
        else
            hi = mid;
    }
    return hi;
}

/*
 * Look at what a probe at the middle found: the cut (R2's d_off), the thief's first name,
 * and whether enough of the thief's half lies in the probe to be worth a message.
 */
static int choose_cut(const struct find_cursor *c, const char *buf, long n, size_t cap, int64_t p,
                      int64_t end_key, struct find_split *split)
{
    const struct linux_dirent64 *r1 = NULL, *r2 = NULL;
    long pos = 0;
    size_t beyond = 0; /* bytes of entries after R2 with positions inside the range */
    int64_t prev_doff = 0;
    while (pos < n) {
        const struct linux_dirent64 *d = (const struct linux_dirent64 *)(buf + pos);
        pos += d->d_reclen;
        if (is_dot_or_dotdot(d->d_name))
            continue;
        if (r1 == NULL) {
            r1 = d;
        } else if (r2 == NULL) {
            if (is_end_marker(d->d_off) || key_of(c, d->d_off) <= key_of(c, r1->d_off))
                return 0; /* no strict boundary here */
            r2 = d;
        } else {
            if (key_of(c, prev_doff) >= end_key)
                break; /* this and later records belong to the next range */
            if (beyond == 0) {
                size_t len = strlen(d->d_name);
                if (len >= sizeof split->first_name)
                    return 0;
                memcpy(split->first_name, d->d_name, len + 1);
            }
            beyond += d->d_reclen;
        }
        prev_doff = d->d_off;
    }
    if (r2 == NULL || beyond < cap / 2)
        return 0;
    int64_t cut_key = key_of(c, r2->d_off);
    if (cut_key <= p || cut_key >= end_key)
        return 0;
    split->start = r2->d_off;
    split->stop = c->stop;
    return 1;
}

int find_cursor_split(struct find_cursor *c, int fd, char *probe, size_t probe_cap,
                      struct find_split *split)
{
    if (c->direction == 0 || !c->ordered || !c->confirmed || is_end_marker(c->last_doff))
        return 0;
    int64_t p = key_of(c, c->last_doff);
    int64_t end_key;
    if (c->stop != FIND_NO_STOP)
        end_key = key_of(c, c->stop);
    else if (c->direction < 0)
        end_key = 0; /* descending cookies run down towards 0 */
    else
        end_key = find_end_key(c, fd, p);
    int rc = 0;
    if (end_key - p >= 4) {
        int64_t mid = p + (end_key - p) / 2;
        long n = probe_at(fd, key_of(c, mid), probe, probe_cap);
        if (n > 0)
            rc = choose_cut(c, probe, n, probe_cap, p, end_key, split);
    }
    /* back to where this reader stands: last_doff is an exact resume cookie */
    if (lseek(fd, c->last_doff, SEEK_SET) < 0)
        return -errno;
    if (rc == 1)
        c->stop = split->start;
    return rc;
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

/* One entry, counted as pfind counts it (BENCHMARK-RULES §6.2). */
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

const char *find_first_entry_name(const char *buf, size_t nbytes)
{
    for (size_t pos = 0; pos < nbytes;) {
        const struct linux_dirent64 *d = (const struct linux_dirent64 *)(buf + pos);
        if (!is_dot_or_dotdot(d->d_name))
            return d->d_name;
        pos += d->d_reclen;
    }
    return NULL;
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
        sc->counts->entries_read++;
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
