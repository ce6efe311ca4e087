/*
 * ioscore-simulate-ranks N [--hosts H] [--out DIR]: the summary form of a whole run at N
 * synthetic ranks on H hosts (default N/100), without MPI traffic. Every standard
 * phase goes through the suite's sketches, merges and result.json writer
 * (src/core/rank_simulate.c, src/report/result_json.c); the tool prints one JSON line with the
 * size of the result.json it wrote and its own peak RSS, which models rank 0's: the reduced
 * sketches, the host aggregates, the named ranks, the output buffer, and the run's host table
 * (N x 64 bytes, which main.c's placement gathers on every rank today). Used by
 * bench/scale_results.py.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "ioscore/phase.h"
#include "ioscore/rank_summary.h"
#include "ioscore/report.h"
#include "ioscore/run.h"

static int usage(void)
{
    fprintf(stderr, "usage: ioscore-simulate-ranks N [--hosts H] [--out DIR]\n"
                    "  N in 1..10000000 synthetic ranks, H in 1..N hosts (default N/100)\n");
    return 2;
}

/* Peak RSS in KiB: VmHWM belongs to this program's address space; getrusage's maxrss would
 * include the parent's peak at fork (Linux keeps it across execve). */
static long peak_rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %ld kB", &kib) == 1)
            break;
    if (f)
        fclose(f);
    if (kib < 0) {
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        kib = ru.ru_maxrss;
    }
    return kib;
}

static long number(const char *text, long max)
{
    char *end = NULL;
    long v = strtol(text, &end, 10);
    return end != text && !*end && v >= 1 && v <= max ? v : -1;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage();
    long n = number(argv[1], 10000000), hosts = -2;
    const char *out = NULL;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--hosts") == 0 && i + 1 < argc)
            hosts = number(argv[++i], n > 0 ? n : 1);
        else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc)
            out = argv[++i];
        else
            return usage();
    }
    if (hosts == -2)
        hosts = n / 100 > 0 ? n / 100 : 1;
    if (n < 0 || hosts < 0)
        return usage();

    static struct ios_run run; /* large: static, zeroed */
    char err[256];
    ios_config_init(&run.cfg, "simulated.ini");
    if (ios_config_parse(&run.cfg, "[global]\ndatadir = /nonexistent\n", err, sizeof err) != 0) {
        fprintf(stderr, "ioscore-simulate-ranks: %s\n", err);
        return 1;
    }
    run.size = (int)n;
    run.ppn0 = (int)((n + hosts - 1) / hosts);
    run.version = "simulated";
    run.mode = "standard";
    snprintf(run.timestamp, sizeof run.timestamp, "simulated");
    snprintf(run.resdir, sizeof run.resdir, "%s", out ? out : ".");
    run.valid = 1;
    run.finished = 1;
    run.t_run_start = 1.6e9; /* any instant: result.json requires one */
    run.t_run_end = run.t_run_start + 60;
    run.unscored = 1;
    /* the host names, as rank 0 of a real run has them: one per host (src/core/placement.c) */
    run.node_hosts = calloc((size_t)hosts, sizeof *run.node_hosts);
    if (!run.node_hosts)
        return 1;
    struct ios_rs_rank r;
    for (long k = 0; k < n; k += run.ppn0) {
        ios_rank_synthetic(k, n, (int)hosts, IOS_METRIC_BW, &r);
        memcpy(run.node_hosts[run.nnodes++], r.host, IOS_HOST_MAX);
    }
    int count = 0;
    const struct ios_phase *const *phases = ios_standard_phases(&count);
    for (int i = 0; i < count && i < IOS_MAX_PHASES; i++)
        ios_rank_simulate_phase(n, (int)hosts, phases[i], &run.results[run.n_results++]);
    if (out && mkdir(out, 0755) != 0 && errno != EEXIST) {
        perror(out);
        return 1;
    }
    if (ios_report_json(&run) != 0) {
        fprintf(stderr, "ioscore-simulate-ranks: cannot write %s/result.json\n", run.resdir);
        return 1;
    }
    char path[IOS_PATH_MAX];
    ios_path(path, sizeof path, "%s/result.json", run.resdir);
    struct stat st;
    printf("{\"ranks\": %ld, \"hosts\": %ld, \"phases\": %d, \"result_json_bytes\": %lld, "
           "\"peak_rss_kib\": %ld, \"host_table_kib\": %lld}\n",
           n, hosts, run.n_results, stat(path, &st) == 0 ? (long long)st.st_size : -1LL,
           peak_rss_kib(), (long long)run.nnodes * IOS_HOST_MAX / 1024);
    return 0;
}
