/*
 * What an ior or mdtest launch reports beyond the engine's phases: the per-operation summary
 * over the -i repetitions (the numbers of IOR's "Summary of all tests" and mdtest's SUMMARY
 * table), the measurement notes (what each number could have measured), and the acceptance
 * test the launch belongs to. The report is the launch's (struct ios_acc_launch); result.json
 * gets it as top-level members through the launch's run->extra; the schema documents them
 * under "summary", "measurement_notes" and "acceptance_test".
 */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ioscore/acceptance.h"

void ios_acc_stats(const double *v, int n, struct ios_acc_stats *out)
{
    out->max = -INFINITY;
    out->min = INFINITY;
    double sum = 0, sq = 0;
    for (int i = 0; i < n; i++) {
        out->max = fmax(out->max, v[i]);
        out->min = fmin(out->min, v[i]);
        sum += v[i];
    }
    out->mean = n ? sum / n : 0;
    for (int i = 0; i < n; i++)
        sq += (v[i] - out->mean) * (v[i] - out->mean);
    out->stddev = n ? sqrt(sq / n) : 0; /* population deviation, as IOR */
    if (n == 0)
        out->max = out->min = 0;
}

void ios_acc_series_stats(const struct ios_acc_series *s, const double *v,
                          struct ios_acc_stats *out)
{
    ios_acc_stats(v, s->n, out);
    if (s->measure->deviation == IOS_ACC_SAMPLE)
        out->stddev = s->n > 1 ? out->stddev * sqrt((double)s->n / (s->n - 1)) : 0;
}

struct ios_acc_series *ios_acc_series_of(struct ios_acc_report *r, const char *operation,
                                         const struct ios_acc_measure *measure)
{
    for (int i = 0; i < r->n_series; i++)
        if (strcmp(r->series[i].operation, operation) == 0)
            return &r->series[i];
    if (r->n_series == IOS_ACC_MAX_OPS)
        return NULL;
    struct ios_acc_series *s = &r->series[r->n_series++];
    memset(s, 0, sizeof *s);
    snprintf(s->operation, sizeof s->operation, "%s", operation);
    s->measure = measure;
    return s;
}

void ios_acc_note(struct ios_acc_report *r, const char *operation, const char *level,
                  const char *fmt, ...)
{
    if (r->n_notes == IOS_ACC_MAX_NOTES)
        return;
    struct ios_acc_note *n = &r->notes[r->n_notes++];
    snprintf(n->operation, sizeof n->operation, "%s", operation);
    n->level = level;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(n->text, sizeof n->text, fmt, ap);
    va_end(ap);
}

void ios_acc_print_notes(FILE *out, const struct ios_acc_report *r)
{
    if (r->n_notes == 0)
        return;
    fprintf(out, "\nMeasurement notes (what each number could have measured):\n");
    for (int i = 0; i < r->n_notes; i++)
        fprintf(out, "  %-9s [%s] %s\n", r->notes[i].operation, r->notes[i].level,
                r->notes[i].text);
}

void ios_acc_add_own_part(struct ios_acc_report *r, const struct ios_run *run, const char *role,
                          const char *command)
{
    if (r->n_parts == 2)
        return;
    struct ios_acc_part *p = &r->parts[r->n_parts++];
    memset(p, 0, sizeof *p);
    snprintf(p->role, sizeof p->role, "%s", role);
    snprintf(p->command, sizeof p->command, "%s", command);
    time_t secs = (time_t)run->t_run_start; /* UTC, as result.json's "start" */
    struct tm tm;
    gmtime_r(&secs, &tm);
    strftime(p->run_started, sizeof p->run_started, "%Y-%m-%dT%H:%M:%SZ", &tm);
    /* absolute: the parts of a test are read from other launches' working directories */
    char real[PATH_MAX];
    snprintf(p->result_dir, sizeof p->result_dir, "%s",
             run->resdir_scratch           ? "" /* not kept */
             : realpath(run->resdir, real) ? real
                                           : run->resdir);
    p->n_ops = r->n_series;
    memcpy(p->ops, r->series, sizeof(struct ios_acc_series) * (size_t)r->n_series);
}

uint64_t ios_acc_host_ram(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f)
        return 0;
    char line[256];
    unsigned long long kib = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemTotal: %llu kB", &kib) == 1)
            break;
    fclose(f);
    return (uint64_t)kib * 1024;
}

void ios_acc_data_vs_ram(const struct ios_run *run, double my_bytes, double *host_bytes,
                         double *host_ram, char *host, size_t host_len)
{
    /* each host's bytes summed at its leader (its first rank), whose RAM counts for it */
    double bytes = 0;
    MPI_Reduce(&my_bytes, &bytes, 1, MPI_DOUBLE, MPI_SUM, 0, run->node_comm);
    struct {
        double bytes, ram;
        char host[IOS_HOST_MAX];
    } worst = {0, 0, ""};
    if (run->leaders_comm != MPI_COMM_NULL) {
        double ram = (double)ios_acc_host_ram();
        /* the highest ratio; on a tie MAXLOC keeps the lowest node, the first host to appear */
        struct {
            double ratio;
            int node;
        } mine = {ram > 0 ? bytes / ram : 0, run->node_id}, top;
        MPI_Allreduce(&mine, &top, 1, MPI_DOUBLE_INT, MPI_MAXLOC, run->leaders_comm);
        if (top.node == run->node_id) {
            worst.bytes = bytes;
            worst.ram = ram;
            memcpy(worst.host, run->host, IOS_HOST_MAX);
        }
        MPI_Bcast(&worst, (int)sizeof worst, MPI_BYTE, top.node, run->leaders_comm);
    }
    if (run->rank != 0)
        return;
    *host_bytes = worst.bytes;
    *host_ram = worst.ram;
    snprintf(host, host_len, "%s", worst.host);
}

/* ---------------------------------------------------------------- result.json members */

static void json_stats(struct ios_json *j, const struct ios_acc_series *se, const double *v)
{
    int n = se->n;
    struct ios_acc_stats s;
    ios_acc_series_stats(se, v, &s);
    ios_json_begin_array(j, "values");
    for (int i = 0; i < n; i++)
        ios_json_double(j, NULL, v[i]);
    ios_json_end_array(j);
    ios_json_double(j, "max", s.max);
    ios_json_double(j, "min", s.min);
    ios_json_double(j, "mean", s.mean);
    ios_json_double(j, "stddev", s.stddev);
}

static void json_series(struct ios_json *j, const struct ios_acc_series *s)
{
    ios_json_begin_object(j, NULL);
    ios_json_string(j, "operation", s->operation);
    ios_json_string(j, "unit", s->measure->unit);
    ios_json_int(j, "iterations", s->n);
    json_stats(j, s, s->values);
    if (s->has_ops) {
        ios_json_begin_object(j, "ops_per_s");
        json_stats(j, s, s->ops);
        ios_json_end_object(j);
    }
    ios_json_begin_array(j, "time_s");
    for (int i = 0; i < s->n; i++)
        ios_json_double(j, NULL, s->time[i]);
    ios_json_end_array(j);
    ios_json_end_object(j);
}

void ios_acc_json_members(struct ios_json *j, const void *report)
{
    const struct ios_acc_report *r = report;
    ios_json_begin_array(j, "summary");
    for (int i = 0; i < r->n_series; i++)
        if (r->series[i].n > 0)
            json_series(j, &r->series[i]);
    ios_json_end_array(j);
    ios_json_begin_array(j, "measurement_notes");
    for (int i = 0; i < r->n_notes; i++) {
        ios_json_begin_object(j, NULL);
        ios_json_string(j, "operation", r->notes[i].operation);
        ios_json_string(j, "level", r->notes[i].level);
        ios_json_string(j, "text", r->notes[i].text);
        ios_json_end_object(j);
    }
    ios_json_end_array(j);
    if (!r->test_id[0]) {
        ios_json_null(j, "acceptance_test");
        return;
    }
    ios_json_begin_object(j, "acceptance_test");
    ios_json_string(j, "id", r->test_id);
    ios_json_begin_array(j, "parts");
    for (int p = 0; p < r->n_parts; p++) {
        const struct ios_acc_part *part = &r->parts[p];
        ios_json_begin_object(j, NULL);
        ios_json_string(j, "role", part->role);
        ios_json_string(j, "command", part->command);
        ios_json_string(j, "run_started", part->run_started);
        ios_json_string(j, "result_dir", part->result_dir);
        ios_json_begin_array(j, "summary");
        for (int o = 0; o < part->n_ops; o++)
            json_series(j, &part->ops[o]);
        ios_json_end_array(j);
        ios_json_end_object(j);
    }
    ios_json_end_array(j);
    ios_json_end_object(j);
}
