/*
 * result.txt and result_summary.txt (rank 0), written line by line as the run goes so an
 * interrupted run still records what finished; also the copies of the configuration.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ioscore/report.h"

void ios_result_line(const struct ios_run *run, const char *fmt, ...)
{
    if (run->rank != 0 || !run->result_txt)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(run->result_txt, fmt, ap);
    va_end(ap);
    fputc('\n', run->result_txt);
    fflush(run->result_txt);
}

void ios_result_key(const struct ios_run *run, const char *key, const char *value)
{
    ios_result_line(run, "%-15s = %s", key, value);
}

static void summary_line(const struct ios_run *run, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void summary_line(const struct ios_run *run, const char *fmt, ...)
{
    if (run->rank != 0)
        return;
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(run->summary, "%s\n", line);
    fflush(run->summary);
    if (!run->quiet) {
        printf("%s\n", line);
        fflush(stdout);
    }
}

static FILE *open_output(const struct ios_run *run, const char *name)
{
    char path[IOS_PATH_MAX];
    ios_path(path, sizeof path, "%s/%s", run->resdir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        ios_fatal("cannot create %s: %s", path, strerror(errno));
    return f;
}

void ios_report_open(struct ios_run *run)
{
    if (run->rank != 0)
        return;
    FILE *orig = open_output(run, "config-orig.ini");
    fputs(run->cfg.text ? run->cfg.text : "", orig);
    fclose(orig);
    FILE *eff = open_output(run, "config.ini");
    ios_config_write_ini(&run->cfg, eff);
    fclose(eff);
    run->summary = open_output(run, "result_summary.txt");
    run->result_txt = open_output(run, "result.txt");
    char hash[16];
    snprintf(hash, sizeof hash, "%X", run->config_hash);
    ios_result_line(run, "[run]");
    char procs[16];
    snprintf(procs, sizeof procs, "%d", run->size);
    ios_result_key(run, "procs", procs);
    ios_result_key(run, "version", run->version);
    ios_result_key(run, "config-hash", hash);
    ios_result_key(run, "result-dir", run->resdir);
    ios_result_key(run, "mode", run->mode);
    fprintf(run->summary, "IO500 version %s (%s)\n", run->version, run->mode);
    fflush(run->summary);
    if (!run->quiet)
        printf("IO500 version %s (%s)\n", run->version, run->mode);
}

static void warn_unwritten(int rc, const char *phase, const char *suffix)
{
    if (rc != 0)
        fprintf(stderr, "ioscore-suite: WARNING: cannot write %s%s: %s\n", phase, suffix,
                strerror(-rc));
}

/* "12.3 us": a latency in seconds with a unit that keeps it readable. */
static void latency_text(double s, char *buf, size_t len)
{
    if (s < 1e-6)
        snprintf(buf, len, "%.0f ns", s * 1e9);
    else if (s < 1e-3)
        snprintf(buf, len, "%.4g us", s * 1e6);
    else if (s < 1)
        snprintf(buf, len, "%.4g ms", s * 1e3);
    else
        snprintf(buf, len, "%.4g s", s);
}

/* One comment line of the merged latency percentiles (a comment, so that readers of
 * result.txt in IO500's layout pass over it). */
static void latency_line(const struct ios_run *run, const struct ios_phase_result *res)
{
    struct ios_latency_summary sum;
    ios_latency_summarize(&res->latency, &sum);
    char line[400], v[32];
    int n = snprintf(line, sizeof line, "; latency: ops %llu", (unsigned long long)sum.ops);
    for (int k = 0; k < IOS_LAT_QUANTILES && n > 0 && (size_t)n < sizeof line; k++) {
        latency_text(sum.q[k], v, sizeof v);
        n += snprintf(line + n, sizeof line - (size_t)n, "  %s %s", ios_lat_quantile_keys[k], v);
    }
    latency_text(sum.max, v, sizeof v);
    if (n > 0 && (size_t)n < sizeof line)
        snprintf(line + n, sizeof line - (size_t)n, "  max %s", v);
    ios_result_line(run, "%s", line);
}

void ios_report_phase(const struct ios_run *run, const struct ios_phase_result *res)
{
    const struct ios_phase *p = res->phase;
    if (run->rank != 0)
        return;
    for (int k = 0; k < res->n_keys; k++)
        ios_result_key(run, res->keys[k].key, res->keys[k].value);
    for (int k = 0; k < res->n_reasons; k++)
        ios_result_line(run, "; ERROR INVALID %s", res->reasons[k]);
    char score[64];
    snprintf(score, sizeof score, "%f", res->score);
    if (p->type != IOS_PHASE_DUMMY)
        ios_result_key(run, "score", score);
    if (res->latency.ops > 0)
        latency_line(run, res);
    summary_line(run, "%s %20s %15s %s : time %.3f seconds%s",
                 p->score_group != IOS_GROUP_NONE ? "[RESULT]" : "[      ]", p->name, score,
                 ios_phase_unit(p), res->t_delta, res->valid ? "" : " [INVALID]");
    if (run->verbosity > 0) {
        char text[64];
        snprintf(text, sizeof text, "%.4f", res->t_delta);
        ios_result_key(run, "t_delta", text);
        ios_format_time(res->t_end, "%Y-%m-%d %H:%M:%S", text, sizeof text);
        ios_result_key(run, "t_end", text);
    }
    if (res->ran && p->csv_kind)
        warn_unwritten(ios_report_csv(run, res), p->name, ".csv");
    if (res->ran && res->ts_len > 0)
        warn_unwritten(ios_report_timeseries_csv(run, res), p->name, "-timeseries.csv");
    if (res->ran && res->lat_series_len > 0)
        warn_unwritten(ios_report_latency_csv(run, res), p->name, "-latency.csv");
    if (res->ran && p->has_log)
        warn_unwritten(ios_report_log(run, res), p->name, ".txt");
}

void ios_report_scores(const struct ios_run *run)
{
    ios_result_line(run, "%s", "");
    ios_result_line(run, "[SCORE]");
    ios_result_line(run, "%-15s = %f", "MD", run->scores.md);
    ios_result_line(run, "%-15s = %f", "BW", run->scores.bw);
    ios_result_line(run, "%-15s = %f%s", "SCORE", run->scores.total,
                    run->valid ? "" : " [INVALID]");
    ios_result_line(run, "%-15s = %X", "hash", run->score_hash);
    summary_line(run, "[SCORE ] Bandwidth %f GiB/s : IOPS %f kiops : TOTAL %f%s", run->scores.bw,
                 run->scores.md, run->scores.total, run->valid ? "" : " [INVALID]");
}

void ios_report_close(struct ios_run *run)
{
    if (run->rank != 0)
        return;
    if (run->result_txt)
        fclose(run->result_txt);
    if (run->summary)
        fclose(run->summary);
    run->result_txt = run->summary = NULL;
}
