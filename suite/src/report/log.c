/*
 * Per-phase text log <resdir>/<phase>.txt. It carries the lines importers of IOR and mdtest
 * logs look for (BENCHMARK-RULES §5.6) plus a per-rank table with first-done/last-done times, so
 * stragglers are visible.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ioscore/rank_summary.h"
#include "ioscore/report.h"

static void per_rank_table(FILE *f, const struct ios_phase_result *res)
{
    double t0 = INFINITY;
    for (int r = 0; r < res->n_ranks; r++)
        t0 = fmin(t0, res->ranks[r].start);
    if (res->summary) {
        t0 = res->summary->sketch.t0;
        fprintf(f, "\nonly the %d slowest and %d fastest of %d ranks (result.json rank_summary):",
                res->summary->sketch.n_slow, res->summary->sketch.n_fast, res->procs);
    }
    fprintf(f, "\nper rank (seconds from the earliest start):\n");
    fprintf(f, "%6s %-24s %10s %10s %10s %14s %16s %8s\n", "rank", "host", "start", "first_done",
            "end", "items", "bytes", "errors");
    for (int r = 0; r < res->n_ranks; r++) {
        const struct ios_rank_stats *s = &res->ranks[r];
        fprintf(f, "%6d %-24s %10.4f %10.4f %10.4f %14.0f %16.0f %8.0f\n",
                res->rank_ids ? res->rank_ids[r] : r, res->hosts[r], s->start - t0,
                s->first_done - t0, s->end - t0, s->items, s->bytes, s->verify_errors);
    }
}

int ios_report_log(const struct ios_run *run, const struct ios_phase_result *res)
{
    char path[IOS_PATH_MAX];
    ios_path(path, sizeof path, "%s/%s.txt", run->resdir, res->phase->name);
    FILE *f = fopen(path, "w");
    if (!f)
        return -errno;
    fprintf(f, "ioscore-suite %s, phase %s, %d ranks\n", run->version, res->phase->name,
            res->procs);
    for (int k = 0; k < res->n_keys; k++)
        fprintf(f, "%s = %s\n", res->keys[k].key, res->keys[k].value);
    double t_min = INFINITY, t_max = -INFINITY, loop_max = 0;
    for (int r = 0; r < res->n_ranks; r++) {
        t_min = fmin(t_min, res->ranks[r].start);
        t_max = fmax(t_max, res->ranks[r].end);
        loop_max = fmax(loop_max, res->ranks[r].loop_end - res->ranks[r].loop_start);
    }
    if (res->summary) { /* the named ranks are not all: take the extremes of every rank */
        t_min = res->summary->sketch.totals.min_start;
        t_max = res->summary->sketch.totals.max_end;
        loop_max = res->summary->sketch.totals.max_loop;
    }
    double total = t_max - t_min;
    if (strcmp(res->phase->csv_kind, "ior") == 0) {
        const char *access = res->phase->type == IOS_PHASE_WRITE ? "write" : "read";
        double mib = total > 0 ? res->bytes / total / 1048576.0 : 0;
        double iops = total > 0 ? res->items / total : 0;
        fprintf(f, "\naccess    bw(MiB/s)  IOPS       Latency(s)  block(KiB) xfer(KiB)  open(s)    "
                   "wr/rd(s)   close(s)   total(s)   iter\n");
        double xfer = res->items > 0 ? res->bytes / res->items : 0;
        fprintf(f,
                "%-9s %-10.2f %-10.2f %-11.6f %-10.2f %-10.2f %-10.6f %-10.6f %-10.6f "
                "%-10.6f 0\n",
                access, mib, iops, iops > 0 ? 1.0 / iops * res->procs : 0.0,
                res->procs ? res->bytes / res->procs / 1024.0 : 0.0, xfer / 1024.0, 0.0, loop_max,
                0.0, total);
        if (res->has_stonewall)
            fprintf(f, "stonewalling pairs accessed max: %.0f -- time: %.3fs\n",
                    res->items_at_deadline_max, res->stonewall_time);
        fprintf(f, "data verification errors: %.0f\n", res->verify_errors);
    } else {
        double max_t = 0, min_t = INFINITY;
        for (int r = 0; r < res->n_ranks; r++) {
            double t = res->ranks[r].end - res->ranks[r].start;
            max_t = fmax(max_t, t);
            min_t = fmin(min_t, t);
        }
        if (res->summary) {
            max_t = res->summary->sketch.totals.max_span;
            min_t = res->summary->sketch.totals.min_span;
        }
        const char *op = ios_md_op_name(ios_phase_md_op(res->phase));
        if (res->has_stonewall)
            fprintf(f, "Continue stonewall hit max: %.0f\n", res->items_at_deadline_max);
        fprintf(f, "Shifting ranks by %d for each phase.\n", ios_mdtest_shift(run));
        fprintf(f, "\nSUMMARY rate (in ops/sec): (of 1 iterations)\n");
        fprintf(f, "   Operation                     Max            Min           Mean        "
                   "Std Dev\n");
        double rate = max_t > 0 ? res->items / max_t : 0;
        fprintf(f, "   %-19s : %14.3f %14.3f %14.3f %14.3f\n", op, rate, rate, rate, 0.0);
        fprintf(f, "SUMMARY time (in sec): (of 1 iterations)\n");
        fprintf(f, "   %-19s : %14.3f %14.3f %14.3f %14.3f\n", op, max_t, min_t, max_t, 0.0);
        fprintf(f, "data verification errors: %.0f\n", res->verify_errors);
    }
    per_rank_table(f, res);
    return fclose(f) == 0 ? 0 : -errno;
}
