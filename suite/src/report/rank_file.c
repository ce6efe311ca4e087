/*
 * The optional full per-rank file of the summary form (--rank-detail-full): one CSV row per
 * rank, streamed by rank 0 as src/core/gather.c receives the ranks chunk by chunk, gzip-
 * compressed through zlib when the build has it (IOS_HAVE_ZLIB, see the Makefile) because at
 * 100,000 ranks the plain CSV is about 13 MB. Times are seconds from the phase's earliest start.
 */
#include <stdio.h>
#include <stdlib.h>

#include "ioscore/rank_summary.h"
#include "ioscore/run.h"
#ifdef IOS_HAVE_ZLIB
#include <zlib.h>
#define RANK_FILE_SUFFIX ".csv.gz"
#else
#define RANK_FILE_SUFFIX ".csv"
#endif

struct ios_rank_file {
#ifdef IOS_HAVE_ZLIB
    gzFile gz;
#else
    FILE *f;
#endif
    int failed;
};

void ios_rank_file_name(const struct ios_phase *p, char *buf, size_t len)
{
    snprintf(buf, len, "ranks-%s%s", p->name, RANK_FILE_SUFFIX);
}

static void put(struct ios_rank_file *f, const char *text, int n)
{
    if (n <= 0 || f->failed)
        return;
#ifdef IOS_HAVE_ZLIB
    f->failed = gzwrite(f->gz, text, (unsigned)n) != n;
#else
    f->failed = fwrite(text, 1, (size_t)n, f->f) != (size_t)n;
#endif
}

struct ios_rank_file *ios_rank_file_open(const struct ios_run *run,
                                         const struct ios_phase_result *res)
{
    char name[128], path[IOS_PATH_MAX];
    ios_rank_file_name(res->phase, name, sizeof name);
    ios_path(path, sizeof path, "%s/%s", run->resdir, name);
    struct ios_rank_file *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
#ifdef IOS_HAVE_ZLIB
    f->gz = gzopen(path, "wb6");
    if (!f->gz) {
#else
    f->f = fopen(path, "w");
    if (!f->f) {
#endif
        free(f);
        return NULL;
    }
    static const char header[] =
        "rank,host,start,first_done,end,items,bytes,rate,verify_errors,io_error\n";
    put(f, header, (int)sizeof header - 1);
    return f;
}

void ios_rank_file_row(struct ios_rank_file *f, const struct ios_rs_rank *r, double t0)
{
    if (!f)
        return;
    const struct ios_rank_stats *s = &r->stats;
    double first_done = s->first_done > 0 ? s->first_done : s->end;
    char line[256];
    int n = snprintf(line, sizeof line, "%d,%s,%.6f,%.6f,%.6f,%.0f,%.0f,%.10g,%.0f,%.0f\n",
                     r->rank, r->host, s->start - t0, first_done - t0, s->end - t0, s->items,
                     s->bytes, r->rate, s->verify_errors, s->io_error);
    put(f, line, n < (int)sizeof line ? n : (int)sizeof line - 1);
}

int ios_rank_file_close(struct ios_rank_file *f)
{
    if (!f)
        return -1;
#ifdef IOS_HAVE_ZLIB
    int bad = gzclose(f->gz) != Z_OK;
#else
    int bad = fclose(f->f) != 0;
#endif
    bad |= f->failed;
    free(f);
    return bad ? -1 : 0;
}
