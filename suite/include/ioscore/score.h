/*
 * Scoring (BENCHMARK-RULES §3): group scores are geometric means over the phases of a group
 * that scored > 0 (zeros are left out since sc21; the run is invalid anyway), and
 * TOTAL = sqrt(BW * MD). Also the score hash (§5.4) and a reader that recomputes the scores
 * of an existing result.txt or result_summary.txt (any family of the corpus, §7.3).
 */
#ifndef IOSCORE_SCORE_H
#define IOSCORE_SCORE_H

#include <stdint.h>
#include <stdio.h>

enum ios_group { IOS_GROUP_NONE = 0, IOS_GROUP_MD = 1, IOS_GROUP_BW = 2 };

/* Group of a standard phase name (dashes or the bash era's underscores), from the phase table
 * (src/phases/table.c); NONE if unscored or unknown. */
enum ios_group ios_phase_group(const char *phase);

/* Geometric mean of the values > 0; 0 when none qualifies. */
double ios_geometric_mean(const double *values, int n);

struct ios_scores {
    double bw, md, total;
};

/* BW, MD and TOTAL from the scores of the scored mandatory phases and their groups. */
struct ios_scores ios_group_scores(const enum ios_group *groups, const double *scores, int n);
/* The same with each phase's group looked up by its name (result files; at most 64). */
struct ios_scores ios_compute_scores(const char *const *names, const double *scores, int n);

/*
 * The [SCORE] hash over the strings as printed: kv(version) ^ kv(phase, value) over the scored
 * mandatory phases passed ^ kv(MD) ^ kv(BW) ^ kv(SCORE) ^ (invalid ? kv(valid, NO) : 0). The
 * one implementation: the run (below) and --score-from (printed values) both use it.
 */
uint32_t ios_score_hash_text(const char *version, const char *const *names,
                             const char *const *values, int n, const char *md, const char *bw,
                             const char *total, int valid);
/* The hash of a run's numbers, each printed with "%f" as result.txt does (at most 64). */
uint32_t ios_score_hash(const char *version, const char *const *names, const double *scores, int n,
                        struct ios_scores s, int valid);

/*
 * Reads a result.txt or result_summary.txt, recomputes the scores from its phase values and
 * prints them with the printed ones (the --score-from helper). Returns 0, or 1 when the file
 * holds no phase values (message on stderr naming the file).
 */
int ios_score_from_file(const char *path, FILE *out);

#endif
