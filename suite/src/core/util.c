/* Shared helpers; see include/ioscore/util.h. */
#include "ioscore/util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

double ios_wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void ios_format_time(double t, const char *fmt, char *buf, size_t len)
{
    time_t secs = (time_t)t;
    struct tm tm;
    localtime_r(&secs, &tm);
    if (strftime(buf, len, fmt, &tm) == 0 && len > 0)
        buf[0] = '\0';
}

int ios_parse_size(const char *text, uint64_t *out)
{
    if (!text || !isdigit((unsigned char)text[0]))
        return -1;
    char *end = NULL;
    errno = 0;
    unsigned long long value = strtoull(text, &end, 10);
    if (errno)
        return -1;
    unsigned shift = 0;
    if (*end) {
        switch (tolower((unsigned char)*end)) {
        case 'k':
            shift = 10;
            break;
        case 'm':
            shift = 20;
            break;
        case 'g':
            shift = 30;
            break;
        case 't':
            shift = 40;
            break;
        case 'p':
            shift = 50;
            break;
        default:
            return -1;
        }
        /* IOR reads only the first letter: 512k, 512kb, 512K and 512KiB are all 512 KiB */
        const char *unit = end + 1;
        if (*unit == 'i' || *unit == 'I')
            unit++;
        if (*unit == 'b' || *unit == 'B')
            unit++;
        if (*unit != '\0' || (unit == end + 2 && tolower((unsigned char)end[1]) == 'i'))
            return -1;
    }
    if (shift && value > (UINT64_MAX >> shift))
        return -1;
    *out = (uint64_t)value << shift;
    return 0;
}

int ios_parse_int64(const char *text, int64_t *out)
{
    if (!text || !*text)
        return -1;
    const char *p = text[0] == '-' ? text + 1 : text;
    if (!*p)
        return -1;
    for (const char *c = p; *c; c++)
        if (!isdigit((unsigned char)*c))
            return -1;
    errno = 0;
    long long value = strtoll(text, NULL, 10);
    if (errno)
        return -1;
    *out = value;
    return 0;
}

void ios_path(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= len)
        ios_fatal("path too long (limit %zu bytes): %.80s...", len, buf);
}

int ios_mkdir_p(const char *path, unsigned mode)
{
    char tmp[IOS_PATH_MAX];
    if (strlen(path) >= sizeof tmp)
        return -ENAMETOOLONG;
    strcpy(tmp, path);
    for (char *p = tmp + 1;; p++) {
        if (*p == '/' || *p == '\0') {
            char saved = *p;
            *p = '\0';
            if (mkdir(tmp, (mode_t)mode) != 0 && errno != EEXIST)
                return -errno;
            *p = saved;
            if (saved == '\0')
                break;
        }
    }
    struct stat st;
    if (stat(path, &st) != 0)
        return -errno;
    return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

MPI_Comm ios_test_comm = MPI_COMM_WORLD;

void ios_fatal(const char *fmt, ...)
{
    int rank = 0, initialized = 0;
    MPI_Initialized(&initialized);
    if (initialized)
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char msg[IOS_MSG_MAX * 2];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "ioscore-suite: rank %d: ERROR: %s\n", rank, msg);
    fflush(stderr);
    if (initialized)
        MPI_Abort(MPI_COMM_WORLD, 2);
    exit(2);
}

char *ios_read_file(const char *path, size_t *len_out)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        size_t n = fread(buf + len, 1, cap - len - 1, f);
        len += n;
        if (n == 0)
            break;
        if (cap - len - 1 == 0) {
            char *bigger = realloc(buf, cap * 2);
            if (!bigger) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = bigger;
            cap *= 2;
        }
    }
    int failed = ferror(f);
    fclose(f);
    if (!buf || failed) {
        free(buf);
        errno = failed ? EIO : ENOMEM;
        return NULL;
    }
    buf[len] = '\0';
    if (len_out)
        *len_out = len;
    return buf;
}

int ios_write_file_atomic(const char *path, const char *data, size_t len)
{
    char tmp[IOS_PATH_MAX];
    if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp", path) >= sizeof tmp)
        return -ENAMETOOLONG;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return -errno;
    size_t done = 0;
    while (done < len) {
        ssize_t n = write(fd, data + done, len - done);
        if (n < 0) {
            int err = errno;
            close(fd);
            unlink(tmp);
            return -err;
        }
        done += (size_t)n;
    }
    if (close(fd) != 0 || rename(tmp, path) != 0) {
        int err = errno;
        unlink(tmp);
        return -err;
    }
    return 0;
}

int ios_streq_nocase(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return 0;
    return *a == *b;
}
