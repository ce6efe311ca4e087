/* Per-rank CSV files in the IOR and mdtest layouts (BENCHMARK-RULES §5.5). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ioscore/rank_summary.h"
#include "ioscore/report.h"

static int rank_id(const struct ios_phase_result *res, int r)
{
    return res->rank_ids ? res->rank_ids[r] : r;
}

/* The summary form's rows are only the named ranks; a last comment line says so (IOR and
 * mdtest CSV readers skip rows whose rank is not a number). */
static void summary_note(FILE *f, const struct ios_phase_result *res)
{
    if (!res->summary)
        return;
    fprintf(f, "# summary form: only the %d slowest and %d fastest of %d ranks; every rank: %s\n",
            res->summary->sketch.n_slow, res->summary->sketch.n_fast, res->procs,
            res->summary->full_file[0] ? res->summary->full_file : "run with --rank-detail-full");
}

static void write_ior(FILE *f, const struct ios_phase_result *res)
{
    const char *access = res->phase->type == IOS_PHASE_WRITE ? "write" : "read";
    double avg_bytes = res->procs ? res->bytes / res->procs : 0;
    fprintf(f, "access,rank,runtime-with-openclose,runtime,throughput-withopenclose,throughput\n");
    for (int r = 0; r < res->n_ranks; r++) {
        const struct ios_rank_stats *s = &res->ranks[r];
        double with_open = s->end - s->start, io = s->loop_end - s->loop_start;
        fprintf(f, "%s,%d,%.10e,%.10e,%.10e,%.10e\n", access, rank_id(res, r), with_open, io,
                with_open > 0 ? avg_bytes / with_open : 0.0, io > 0 ? avg_bytes / io : 0.0);
    }
}

static void write_mdtest(FILE *f, const struct ios_phase_result *res)
{
    int op = (int)ios_phase_md_op(res->phase) - 1; /* the column pair, -1: none */
    fprintf(f, "rank,items");
    for (int i = 0; i < IOS_MD_OPS; i++)
        fprintf(f, ",rate-%s,time-%s", ios_md_op_name(i + 1), ios_md_op_name(i + 1));
    fprintf(f, "\n");
    double max_time = 0;
    for (int r = 0; r < res->n_ranks; r++)
        if (res->ranks[r].end - res->ranks[r].start > max_time)
            max_time = res->ranks[r].end - res->ranks[r].start;
    if (res->summary)
        max_time = res->summary->sketch.totals.max_span;
    double per_rank = res->procs ? res->items / res->procs : 0;
    fprintf(f, "all,%.0f", per_rank);
    for (int i = 0; i < IOS_MD_OPS; i++) {
        if (i == op)
            fprintf(f, ",%.10e,%.10e", max_time > 0 ? res->items / max_time : 0.0, max_time);
        else
            fprintf(f, ",,");
    }
    fprintf(f, "\n");
    for (int r = 0; r < res->n_ranks; r++) {
        const struct ios_rank_stats *s = &res->ranks[r];
        double t = s->end_before_barrier - s->start;
        fprintf(f, "%d,", rank_id(res, r));
        for (int i = 0; i < 9; i++) {
            if (i == op)
                fprintf(f, ",%.10e,%.10e", t > 0 ? s->items / t : 0.0, t);
            else
                fprintf(f, ",,");
        }
        fprintf(f, "\n");
    }
}

int ios_report_csv(const struct ios_run *run, const struct ios_phase_result *res)
{
    char path[IOS_PATH_MAX];
    ios_path(path, sizeof path, "%s/%s.csv", run->resdir, res->phase->name);
    FILE *f = fopen(path, "w");
    if (!f)
        return -errno;
    if (strcmp(res->phase->csv_kind, "ior") == 0)
        write_ior(f, res);
    else
        write_mdtest(f, res);
    summary_note(f, res);
    return fclose(f) == 0 ? 0 : -errno;
}

/*
 * <phase>-timeseries.csv: items completed per 1 s bucket since the phase start, one row per
 * (bucket, rank) plus a row per bucket for all ranks ("all"), in long format so thousands of
 * ranks stay readable by any CSV tool. Items are IOR transfers or mdtest files, as in
 * result.json's "timeseries". The summary form has only the "all" rows.
 */
int ios_report_timeseries_csv(const struct ios_run *run, const struct ios_phase_result *res)
{
    char path[IOS_PATH_MAX];
    ios_path(path, sizeof path, "%s/%s-timeseries.csv", run->resdir, res->phase->name);
    FILE *f = fopen(path, "w");
    if (!f)
        return -errno;
    fprintf(f, "bucket_start_s,bucket_end_s,rank,items\n");
    for (int b = 0; b < res->ts_len; b++) {
        fprintf(f, "%d,%d,all,%llu\n", b, b + 1, (unsigned long long)res->ts_aggregate[b]);
        for (int r = 0; r < res->n_ranks && res->ts_per_rank; r++)
            fprintf(
                f, "%d,%d,%d,%llu\n", b, b + 1, r,
                (unsigned long long)res->ts_per_rank[(size_t)r * (size_t)res->ts_len + (size_t)b]);
    }
    return fclose(f) == 0 ? 0 : -errno;
}

static void latency_cell(FILE *f, uint64_t ops, double seconds)
{
    if (ops)
        fprintf(f, ",%.9g", seconds);
    else
        fputc(',', f);
}

/*
 * <phase>-latency.csv: result.json's "timeseries"."latency" as a table, one row per second
 * since the phase start: operations completed in it, the percentiles merged over all ranks and
 * the slowest operation, in seconds (empty cells for a second without operations, so a stall
 * reads as a gap rather than as zero latency).
 */
int ios_report_latency_csv(const struct ios_run *run, const struct ios_phase_result *res)
{
    char path[IOS_PATH_MAX];
    ios_path(path, sizeof path, "%s/%s-latency.csv", run->resdir, res->phase->name);
    FILE *f = fopen(path, "w");
    if (!f)
        return -errno;
    fprintf(f, "second_start_s,second_end_s,ops");
    for (int k = 0; k < IOS_LAT_QUANTILES; k++)
        fprintf(f, ",%s_s", ios_lat_quantile_keys[k]);
    fprintf(f, ",max_s\n");
    for (int t = 0; t < res->lat_series_len; t++) {
        const struct ios_latency_summary *sec = &res->lat_series[t];
        fprintf(f, "%d,%d,%llu", t, t + 1, (unsigned long long)sec->ops);
        for (int k = 0; k < IOS_LAT_QUANTILES; k++)
            latency_cell(f, sec->ops, sec->q[k]);
        latency_cell(f, sec->ops, sec->max);
        fputc('\n', f);
    }
    return fclose(f) == 0 ? 0 : -errno;
}
