/* Services for phases: reasons, errors, result keys, status files, buffers, time series. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ioscore/run.h"

void ios_phase_invalidate(struct ios_phase_result *res, const char *fmt, ...)
{
    res->valid = 0;
    if (res->n_reasons >= IOS_MAX_REASONS)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(res->reasons[res->n_reasons++], sizeof res->reasons[0], fmt, ap);
    va_end(ap);
}

void ios_phase_error(struct ios_phase_ctx *ctx, int neg_errno, const char *fmt, ...)
{
    if (ctx->mine.io_error != 0)
        return;
    ctx->mine.io_error = neg_errno ? neg_errno : -EIO;
    char what[IOS_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(ctx->error, sizeof ctx->error, "rank %d: %.400s: %s", ctx->run->rank, what,
             strerror(neg_errno < 0 ? -neg_errno : EIO));
    fprintf(stderr, "ioscore-suite: %s: ERROR: %s\n", ctx->phase->name, ctx->error);
}

void ios_phase_key(struct ios_phase_ctx *ctx, const char *key, const char *fmt, ...)
{
    struct ios_phase_result *res = ctx->res;
    if (ctx->run->rank != 0 || res->n_keys >= IOS_MAX_KEYS)
        return;
    struct ios_kv *kv = &res->keys[res->n_keys++];
    snprintf(kv->key, sizeof kv->key, "%s", key);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(kv->value, sizeof kv->value, fmt, ap);
    va_end(ap);
}

static void status_path(const struct ios_run *run, const char *name, char *path, size_t len)
{
    ios_path(path, len, "%s/%s.stonewall", run->resdir, name); /* POSIX: always in resdir */
}

void ios_status_write(struct ios_run *run, const char *name, int64_t count)
{
    if (run->rank != 0)
        return;
    char path[IOS_PATH_MAX], text[32];
    status_path(run, name, path, sizeof path);
    int n = snprintf(text, sizeof text, "%lld", (long long)count); /* no newline, as IO500 */
    int rc = ios_write_file_atomic(path, text, (size_t)n);
    if (rc != 0)
        fprintf(stderr, "ioscore-suite: WARNING: cannot write status file %s: %s\n", path,
                strerror(-rc));
}

int64_t ios_status_read_bcast(struct ios_run *run, const char *name)
{
    long long value = -1;
    if (run->rank == 0) {
        char path[IOS_PATH_MAX];
        status_path(run, name, path, sizeof path);
        FILE *f = fopen(path, "r");
        if (!f || fscanf(f, "%lld", &value) != 1) {
            fprintf(stderr,
                    "ioscore-suite: WARNING: cannot read status file %s; the phase "
                    "runs without a count limit\n",
                    path);
            value = -1;
        }
        if (f)
            fclose(f);
    }
    MPI_Bcast(&value, 1, MPI_LONG_LONG, 0, ios_test_comm);
    return value;
}

int ios_status_remove(const struct ios_run *run, const char *name)
{
    if (run->rank != 0)
        return 0;
    char path[IOS_PATH_MAX];
    status_path(run, name, path, sizeof path);
    return unlink(path) == 0;
}

void *ios_alloc_buffer(const struct ios_backend *be, size_t size)
{
    void *buf = NULL;
    size_t align = be->alignment < 64 ? 64 : be->alignment;
    size_t rounded = (size + align - 1) / align * align;
    if (posix_memalign(&buf, align, rounded ? rounded : align) != 0)
        ios_fatal("cannot allocate a %zu-byte I/O buffer", size);
    memset(buf, 0, rounded);
    return buf;
}

void ios_timeseries_start(struct ios_timeseries *ts, double t0)
{
    free(ts->buckets);
    memset(ts, 0, sizeof *ts);
    ts->t0 = t0;
}

void ios_timeseries_add(struct ios_timeseries *ts, double now)
{
    double rel = now - ts->t0;
    int bucket = rel < 0 ? 0 : (int)rel;
    if (bucket >= 1000000)
        bucket = 999999;
    if (bucket >= ts->cap) {
        int cap = ts->cap ? ts->cap : 64;
        while (cap <= bucket)
            cap *= 2;
        uint64_t *bigger = realloc(ts->buckets, (size_t)cap * sizeof *bigger);
        if (!bigger)
            ios_fatal("out of memory (time series)");
        memset(bigger + ts->cap, 0, (size_t)(cap - ts->cap) * sizeof *bigger);
        ts->buckets = bigger;
        ts->cap = cap;
    }
    ts->buckets[bucket]++;
    if (bucket + 1 > ts->n)
        ts->n = bucket + 1;
}

void ios_timeseries_free(struct ios_timeseries *ts)
{
    free(ts->buckets);
    memset(ts, 0, sizeof *ts);
}
