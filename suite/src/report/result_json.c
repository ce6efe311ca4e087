/*
 * result.json (schema suite/schema/ioscore-result-1.schema.json, contract in
 * docs/ARCHITECTURE.md). Rewritten atomically after every phase, so an interrupted run still
 * leaves a valid document describing what finished.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ioscore/json.h"
#include "ioscore/rank_summary.h"
#include "ioscore/report.h"
#include "ioscore/version.h"

static void iso_time(double t, char *buf, size_t len)
{
    time_t secs = (time_t)t;
    struct tm tm;
    gmtime_r(&secs, &tm);
    char base[32];
    strftime(base, sizeof base, "%Y-%m-%dT%H:%M:%S", &tm);
    int ms = (int)((t - (double)secs) * 1000.0);
    if (ms < 0 || ms > 999)
        ms = 0;
    snprintf(buf, len, "%s.%03dZ", base, ms);
}

static void json_time(struct ios_json *j, const char *key, double t)
{
    if (t <= 0) {
        ios_json_null(j, key);
        return;
    }
    char text[48];
    iso_time(t, text, sizeof text);
    ios_json_string(j, key, text);
}

static void write_config(struct ios_json *j, const struct ios_run *run)
{
    int n = 0;
    const struct ios_section *sections = ios_config_sections(&n);
    ios_json_begin_object(j, "config");
    for (int s = 0; s < n; s++) {
        if (!ios_config_section_recorded(&run->cfg, s))
            continue; /* as in config.ini, so that both give the config hash */
        ios_json_begin_object(j, sections[s].name);
        for (int o = 0; o < sections[s].n_options; o++)
            if (ios_config_option_recorded(&run->cfg, s, o))
                ios_json_string(j, sections[s].options[o].name, run->cfg.values[s][o]);
        ios_json_end_object(j);
    }
    ios_json_end_object(j);
}

/* The operation a phase times, for "latency"."op": the mdtest operation or IOR's access. */
static const char *latency_op(const struct ios_phase *p)
{
    enum ios_md_op op = ios_phase_md_op(p);
    return op != IOS_MD_NONE ? ios_md_op_name(op) : ios_phase_access(p);
}

static void write_quantiles(struct ios_json *j, const struct ios_latency_summary *sum)
{
    ios_json_int(j, "ops", (int64_t)sum->ops);
    for (int k = 0; k < IOS_LAT_QUANTILES; k++)
        ios_json_double(j, ios_lat_quantile_keys[k], sum->q[k]);
    ios_json_double(j, "max", sum->max);
}

/* A rank's {"unit": "s", "ops", "p50", "p90", "p99", "p99_9", "p99_99", "max"}. */
static void write_rank_latency(struct ios_json *j, const struct ios_latency_summary *sum)
{
    ios_json_begin_object(j, "latency");
    ios_json_string(j, "unit", "s");
    write_quantiles(j, sum);
    ios_json_end_object(j);
}

/* The phase's merged histogram: its percentiles, its layout and its non-empty buckets
 * {"le", "count"} (results before the log-linear layout have power-of-two "le"s and no
 * "histogram" member). */
static void write_latency(struct ios_json *j, const struct ios_phase_result *res)
{
    const struct ios_latency *lat = &res->latency;
    struct ios_latency_summary sum;
    ios_latency_summarize(lat, &sum);
    ios_json_begin_object(j, "latency");
    ios_json_string(j, "unit", "s");
    ios_json_string(j, "op", latency_op(res->phase));
    write_quantiles(j, &sum);
    ios_json_begin_object(j, "histogram");
    ios_json_string(j, "layout", "log-linear");
    ios_json_int(j, "sub_buckets", IOS_LAT_SUB);
    ios_json_double(j, "rel_error", IOS_LAT_REL_ERROR);
    ios_json_end_object(j);
    ios_json_begin_array(j, "buckets");
    for (int b = 0; b < IOS_LAT_BUCKETS; b++) {
        if (lat->count[b] == 0)
            continue;
        ios_json_begin_object(j, NULL);
        ios_json_double(j, "le", ios_latency_bucket_le(b));
        ios_json_int(j, "count", (int64_t)lat->count[b]);
        ios_json_end_object(j);
    }
    ios_json_end_array(j);
    ios_json_end_object(j);
}

/* "timeseries"."latency": per second, the merged percentiles and the max of that second
 * (arrays as long as "aggregate"; 0 where a second had no operation). */
static void write_latency_series(struct ios_json *j, const struct ios_phase_result *res)
{
    const struct ios_latency_summary *sec = res->lat_series;
    int n = res->lat_series_len;
    ios_json_begin_object(j, "latency");
    ios_json_string(j, "unit", "s");
    ios_json_begin_array(j, "ops");
    for (int t = 0; t < n; t++)
        ios_json_int(j, NULL, (int64_t)sec[t].ops);
    ios_json_end_array(j);
    for (int k = 0; k < IOS_LAT_QUANTILES; k++) {
        ios_json_begin_array(j, ios_lat_quantile_keys[k]);
        for (int t = 0; t < n; t++)
            ios_json_double(j, NULL, sec[t].q[k]);
        ios_json_end_array(j);
    }
    ios_json_begin_array(j, "max");
    for (int t = 0; t < n; t++)
        ios_json_double(j, NULL, sec[t].max);
    ios_json_end_array(j);
    ios_json_end_object(j);
}

/* Full form: whose data each rank accessed (so what a read read is recorded, not inferred from
 * the options) and every failed rank's first error, each naming its file. */
static void write_data_and_errors(struct ios_json *j, const struct ios_phase_result *res)
{
    if (res->rank_ids || res->n_ranks == 0)
        return;
    int accessed = 0;
    for (int r = 0; r < res->n_ranks; r++)
        accessed |= res->ranks[r].data_of > 0;
    if (accessed) {
        ios_json_begin_array(j, "data_ranks");
        for (int r = 0; r < res->n_ranks; r++)
            ios_json_int(j, NULL, (int64_t)res->ranks[r].data_of - 1);
        ios_json_end_array(j);
    }
    if (!res->errors)
        return;
    ios_json_begin_array(j, "io_errors");
    for (int r = 0; r < res->n_ranks; r++) {
        if (res->ranks[r].io_error == 0)
            continue;
        ios_json_begin_object(j, NULL);
        ios_json_int(j, "rank", r);
        ios_json_string(j, "host", res->hosts[r]);
        ios_json_string(j, "error", res->errors[r]);
        ios_json_end_object(j);
    }
    ios_json_end_array(j);
}

static void write_phase(struct ios_json *j, const struct ios_phase_result *res)
{
    const struct ios_phase *p = res->phase;
    ios_json_begin_object(j, NULL);
    ios_json_string(j, "name", p->name);
    ios_json_string(j, "group", ios_group_name(p->score_group));
    ios_json_string(j, "unit", ios_phase_unit(p));
    ios_json_bool(j, "ran", res->ran);
    ios_json_double(j, "score", res->score);
    ios_json_double(j, "time", res->t_delta);
    json_time(j, "t_start", res->t_start);
    json_time(j, "t_end", res->t_end);
    ios_json_bool(j, "valid", res->valid);
    ios_json_begin_array(j, "invalid_reasons");
    for (int k = 0; k < res->n_reasons; k++)
        ios_json_string(j, NULL, res->reasons[k]);
    ios_json_end_array(j);
    ios_json_int(j, "items", (int64_t)res->items);
    ios_json_int(j, "bytes", (int64_t)res->bytes);
    ios_json_int(j, "verify_errors", (int64_t)res->verify_errors);
    write_data_and_errors(j, res);
    if (res->has_stonewall) {
        ios_json_begin_object(j, "stonewall");
        ios_json_double(j, "deadline_s", res->deadline_s);
        ios_json_int(j, "items_at_deadline_max", (int64_t)res->items_at_deadline_max);
        ios_json_int(j, "items_at_deadline_sum", (int64_t)res->items_at_deadline_sum);
        ios_json_int(j, "wearout_items", (int64_t)res->wearout_items);
        ios_json_double(j, "stonewall_time_rank0", res->stonewall_time);
        ios_json_end_object(j);
    } else {
        ios_json_null(j, "stonewall");
    }
    double t0 = INFINITY; /* the summary form names only some ranks: its t0 is over all */
    for (int r = 0; r < res->n_ranks; r++)
        t0 = fmin(t0, res->ranks[r].start);
    if (res->summary)
        t0 = res->summary->sketch.t0;
    ios_json_begin_array(j, "ranks");
    for (int r = 0; r < res->n_ranks; r++) {
        const struct ios_rank_stats *s = &res->ranks[r];
        double span = s->end - s->start;
        double amount = p->metric == IOS_METRIC_BW ? s->bytes : s->items;
        ios_json_begin_object(j, NULL);
        ios_json_int(j, "rank", res->rank_ids ? res->rank_ids[r] : r);
        ios_json_string(j, "host", res->hosts[r]);
        ios_json_double(j, "start", s->start - t0);
        ios_json_double(j, "first_done", s->first_done > 0 ? s->first_done - t0 : s->end - t0);
        ios_json_double(j, "end", s->end - t0);
        ios_json_int(j, "items", (int64_t)s->items);
        ios_json_int(j, "bytes", (int64_t)s->bytes);
        ios_json_double(j, "rate", span > 0 ? amount / span : 0.0);
        ios_json_int(j, "verify_errors", (int64_t)s->verify_errors);
        if (res->lat_ranks && res->lat_ranks[r].ops > 0)
            write_rank_latency(j, &res->lat_ranks[r]);
        ios_json_end_object(j);
    }
    ios_json_end_array(j);
    if (res->summary)
        ios_rank_summary_json(j, res->summary);
    if (res->latency.ops > 0)
        write_latency(j, res);
    ios_json_begin_object(j, "timeseries");
    ios_json_double(j, "bucket_s", 1.0);
    ios_json_begin_array(j, "aggregate");
    for (int b = 0; b < res->ts_len; b++)
        ios_json_int(j, NULL, (int64_t)res->ts_aggregate[b]);
    ios_json_end_array(j);
    ios_json_begin_array(j, "per_rank");
    for (int r = 0; r < res->n_ranks && res->ts_per_rank; r++) {
        ios_json_begin_array(j, NULL);
        for (int b = 0; b < res->ts_len; b++)
            ios_json_int(j, NULL,
                         (int64_t)res->ts_per_rank[(size_t)r * (size_t)res->ts_len + (size_t)b]);
        ios_json_end_array(j);
    }
    ios_json_end_array(j);
    if (res->lat_series_len > 0)
        write_latency_series(j, res);
    ios_json_end_object(j);
    ios_json_begin_object(j, "extra");
    if (res->has_find) {
        ios_json_int(j, "found", (int64_t)res->found);
        ios_json_int(j, "scanned", (int64_t)res->scanned);
    }
    ios_json_begin_object(j, "result_keys"); /* the phase's result.txt keys, as printed */
    for (int k = 0; k < res->n_keys; k++)
        ios_json_string(j, res->keys[k].key, res->keys[k].value);
    ios_json_end_object(j);
    ios_json_end_object(j);
    ios_json_end_object(j);
}

static int summary_form(const struct ios_run *run)
{
    for (int i = 0; i < run->n_results; i++)
        if (run->results[i].summary)
            return 1;
    return 0;
}

/* The run's hosts in order of first appearance (their node numbers). */
static void write_hosts(struct ios_json *j, const struct ios_run *run)
{
    ios_json_begin_array(j, "hosts");
    for (int h = 0; h < run->nnodes && run->node_hosts; h++)
        ios_json_string(j, NULL, run->node_hosts[h]);
    ios_json_end_array(j);
}

/* "rank_detail": which form the phases' per-rank data has (readers: absent means "full"). */
static void write_rank_detail(struct ios_json *j, const struct ios_run *run, int summary)
{
    int threshold =
        run->rank_detail_threshold > 0 ? run->rank_detail_threshold : IOS_RANK_DETAIL_THRESHOLD;
    char pattern[128] = "";
    const struct ios_phase any = {.name = "{phase}"};
    for (int i = 0; i < run->n_results && !pattern[0]; i++)
        if (run->results[i].summary && run->results[i].summary->full_file[0])
            ios_rank_file_name(&any, pattern, sizeof pattern);
    ios_json_begin_object(j, "rank_detail");
    ios_json_string(j, "form", summary ? "summary" : "full");
    ios_json_int(j, "threshold", threshold);
    ios_json_string(j, "full_file", pattern[0] ? pattern : NULL);
    ios_json_end_object(j);
}

int ios_report_json(const struct ios_run *run)
{
    struct ios_json j;
    ios_json_init(&j);
    char hex[16];
    ios_json_begin_object(&j, NULL);
    /* the summary form is 1.1: a reader of 1 would take its named ranks for all of them */
    int summary = summary_form(run);
    ios_json_string(&j, "schema", summary ? "ioscore-result/1.1" : "ioscore-result/1");
    ios_json_string(&j, "version", run->version);
    ios_json_string(&j, "mpi_library", ios_mpi_library());
    ios_json_string(&j, "mode", run->mode);
    ios_json_string(&j, "timestamp", run->timestamp);
    json_time(&j, "start", run->t_run_start);
    json_time(&j, "end", run->finished ? run->t_run_end : 0);
    ios_json_bool(&j, "finished", run->finished);
    ios_json_bool(&j, "aborted", run->aborted);
    ios_json_int(&j, "procs", run->size);
    ios_json_int(&j, "nodes", run->nnodes);
    ios_json_int(&j, "ppn0", run->ppn0);
    write_hosts(&j, run);
    ios_json_string(&j, "result_dir", run->resdir);
    ios_json_string(&j, "data_dir", run->datadir);
    ios_json_int(&j, "stonewall_s", run->extra ? run->extra->stonewall_s : run->stonewall);
    write_rank_detail(&j, run, summary);
    ios_json_bool(&j, "valid", run->valid && run->finished);
    ios_json_begin_array(&j, "invalid_reasons");
    for (int k = 0; k < run->n_reasons; k++)
        ios_json_string(&j, NULL, run->reasons[k]);
    if (!run->finished)
        ios_json_string(&j, NULL, "run not finished");
    ios_json_end_array(&j);
    write_config(&j, run);
    snprintf(hex, sizeof hex, "%X", run->config_hash);
    ios_json_string(&j, "config_hash", hex);
    if (run->finished && !run->unscored) {
        snprintf(hex, sizeof hex, "%X", run->score_hash);
        ios_json_string(&j, "score_hash", hex);
        ios_json_begin_object(&j, "scores");
        ios_json_double(&j, "bw", run->scores.bw);
        ios_json_double(&j, "md", run->scores.md);
        ios_json_double(&j, "total", run->scores.total);
        ios_json_bool(&j, "valid", run->valid);
        ios_json_end_object(&j);
    } else {
        ios_json_null(&j, "score_hash");
        ios_json_null(&j, "scores");
    }
    if (run->extra)
        run->extra->members(&j, run->extra->ctx);
    ios_json_begin_array(&j, "phases");
    for (int i = 0; i < run->n_results; i++)
        write_phase(&j, &run->results[i]);
    ios_json_end_array(&j);
    ios_json_end_object(&j);
    char path[IOS_PATH_MAX];
    ios_path(path, sizeof path, "%s/result.json", run->resdir);
    int rc = ios_write_file_atomic(path, j.buf, j.len);
    ios_json_free(&j);
    return rc;
}
