/* Scores and the score hash; see include/ioscore/score.h. */
#include "ioscore/score.h"

#include <math.h>
#include <stdio.h>

#include "ioscore/hash.h"

double ios_geometric_mean(const double *values, int n)
{
    /* Sum of logs rather than a running product: thousands of GiB/s over 8 phases would
       still fit a double, but the log form keeps the rounding independent of order. */
    double log_sum = 0.0;
    int used = 0;
    for (int i = 0; i < n; i++) {
        if (values[i] > 0.0) {
            log_sum += log(values[i]);
            used++;
        }
    }
    return used ? exp(log_sum / used) : 0.0;
}

struct ios_scores ios_group_scores(const enum ios_group *groups, const double *scores, int n)
{
    double bw[16], md[16];
    int nbw = 0, nmd = 0;
    for (int i = 0; i < n; i++) {
        if (groups[i] == IOS_GROUP_BW && nbw < 16)
            bw[nbw++] = scores[i];
        else if (groups[i] == IOS_GROUP_MD && nmd < 16)
            md[nmd++] = scores[i];
    }
    struct ios_scores s;
    s.md = ios_geometric_mean(md, nmd);
    s.bw = ios_geometric_mean(bw, nbw);
    s.total = sqrt(s.bw * s.md);
    return s;
}

struct ios_scores ios_compute_scores(const char *const *names, const double *scores, int n)
{
    enum ios_group groups[64];
    if (n > 64)
        n = 64;
    for (int i = 0; i < n; i++)
        groups[i] = ios_phase_group(names[i]);
    return ios_group_scores(groups, scores, n);
}

uint32_t ios_score_hash_text(const char *version, const char *const *names,
                             const char *const *values, int n, const char *md, const char *bw,
                             const char *total, int valid)
{
    uint32_t h = ios_hash_kv("version", version);
    for (int i = 0; i < n; i++)
        h ^= ios_hash_kv(names[i], values[i]);
    h ^= ios_hash_kv("MD", md) ^ ios_hash_kv("BW", bw) ^ ios_hash_kv("SCORE", total);
    if (!valid)
        h ^= ios_hash_kv("valid", "NO");
    return h;
}

uint32_t ios_score_hash(const char *version, const char *const *names, const double *scores, int n,
                        struct ios_scores s, int valid)
{
    char text[64][32], md[32], bw[32], total[32];
    const char *values[64];
    if (n > 64)
        n = 64;
    for (int i = 0; i < n; i++) {
        snprintf(text[i], sizeof text[i], "%f", scores[i]); /* as printed in result.txt */
        values[i] = text[i];
    }
    snprintf(md, sizeof md, "%f", s.md);
    snprintf(bw, sizeof bw, "%f", s.bw);
    snprintf(total, sizeof total, "%f", s.total);
    return ios_score_hash_text(version, names, values, n, md, bw, total, valid);
}
