/*
 * --score-from: recompute the scores of an existing result file (ours or the corpus').
 *
 * result.txt: the `score` key of every scored phase section, plus [SCORE] MD/BW/SCORE/hash.
 * result_summary.txt (C app 2020+ and the bash era): each phase line reads
 * "[TAG] ... <name> <value> <unit> : time <t> seconds" and the totals line
 * "[SCORE...] Bandwidth <bw> <unit> : IOPS <md> <unit> : TOTAL <total>".
 * When a file holds several runs, the last complete one is used.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ioscore/score.h"
#include "ioscore/util.h"

#define MAX_PHASES 32

struct parsed_run {
    char version[256];
    int has_version;
    int n;
    char names[MAX_PHASES][64];
    char values[MAX_PHASES][64];
    char md[64], bw[64], total[64], hash[64];
    int invalid;
    int has_totals;
};

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t len = strlen(s);
    while (len > 0 && isspace((unsigned char)s[len - 1]))
        s[--len] = '\0';
    return s;
}

static void copy_field(char *dst, size_t len, const char *src)
{
    snprintf(dst, len, "%s", src);
}

static void add_phase(struct parsed_run *run, const char *name, const char *value)
{
    char norm[64];
    size_t i = 0;
    for (; name[i] && i < sizeof norm - 1; i++)
        norm[i] = name[i] == '_' ? '-' : name[i];
    norm[i] = '\0';
    if (ios_phase_group(norm) == IOS_GROUP_NONE || run->n >= MAX_PHASES)
        return;
    for (int k = 0; k < run->n; k++) { /* a repeated phase replaces the earlier value */
        if (strcmp(run->names[k], norm) == 0) {
            copy_field(run->values[k], sizeof run->values[k], value);
            return;
        }
    }
    copy_field(run->names[run->n], sizeof run->names[0], norm);
    copy_field(run->values[run->n], sizeof run->values[0], value);
    run->n++;
}

/* One result.txt line. `section` is the current [section] name ("" before the first). */
static void parse_result_txt_line(struct parsed_run *run, char *section, char *line)
{
    char *t = trim(line);
    if (t[0] == '[') {
        char *end = strchr(t, ']');
        if (end) {
            *end = '\0';
            copy_field(section, 64, trim(t + 1));
        }
        return;
    }
    char *eq = strchr(t, '=');
    if (!eq || t[0] == ';' || t[0] == '#')
        return;
    *eq = '\0';
    char *key = trim(t), *value = trim(eq + 1);
    if (strcmp(key, "version") == 0) {
        memset(run, 0, sizeof *run);
        copy_field(run->version, sizeof run->version, value);
        run->has_version = 1;
    } else if (strcmp(section, "SCORE") == 0) {
        if (strcmp(key, "MD") == 0)
            copy_field(run->md, sizeof run->md, value);
        else if (strcmp(key, "BW") == 0)
            copy_field(run->bw, sizeof run->bw, value);
        else if (strcmp(key, "hash") == 0)
            copy_field(run->hash, sizeof run->hash, value);
        else if (strcmp(key, "SCORE") == 0) {
            run->invalid = strstr(value, "INVALID") != NULL;
            char *space = strchr(value, ' '); /* the verifier cuts at the first space */
            if (space)
                *space = '\0';
            copy_field(run->total, sizeof run->total, value);
            run->has_totals = 1;
        }
    } else if (strcmp(key, "score") == 0) {
        add_phase(run, section, value);
    }
}

/* One result_summary.txt line of any family. */
static void parse_summary_line(struct parsed_run *run, char *line)
{
    char *t = trim(line);
    if (strncmp(t, "IO500 version", 13) == 0) {
        memset(run, 0, sizeof *run);
        char version[256] = "";
        sscanf(t + 13, " %255s", version);
        if (version[0] == '(') /* built outside git: "IO500 version  (standard)" */
            version[0] = '\0';
        copy_field(run->version, sizeof run->version, version);
        run->has_version = 1;
        return;
    }
    if (t[0] != '[')
        return;
    if (strncmp(t, "[SCORE", 6) == 0 && strncmp(t, "[SCOREX", 7) != 0) {
        char bw[64], md[64], total[64];
        const char *b = strstr(t, "Bandwidth"), *m = strstr(t, "IOPS"), *s = strstr(t, "TOTAL");
        if (b && m && s && sscanf(b, "Bandwidth %63s", bw) == 1 &&
            sscanf(m, "IOPS %63s", md) == 1 && sscanf(s, "TOTAL %63s", total) == 1) {
            copy_field(run->bw, sizeof run->bw, bw);
            copy_field(run->md, sizeof run->md, md);
            copy_field(run->total, sizeof run->total, total);
            run->invalid = strstr(t, "INVALID") != NULL || strncmp(t, "[SCORE-invalid", 14) == 0;
            run->has_totals = 1;
        }
        return;
    }
    char *colon = strstr(t, " : time");
    if (!colon)
        return;
    *colon = '\0';
    /* the last three words before " : time" are name, value and unit */
    char *words[64];
    int n = 0;
    for (char *w = strtok(t, " \t"); w && n < 64; w = strtok(NULL, " \t"))
        words[n++] = w;
    if (n >= 4)
        add_phase(run, words[n - 3], words[n - 2]);
}

int ios_score_from_file(const char *path, FILE *out)
{
    size_t len = 0;
    char *text = ios_read_file(path, &len);
    if (!text) {
        fprintf(stderr, "ioscore-suite: --score-from %s: cannot read the file\n", path);
        return 1;
    }
    /* summaries of every family have " : time " phase lines; result.txt never does */
    int is_result_txt = strstr(text, " : time ") == NULL;
    struct parsed_run run, last;
    memset(&run, 0, sizeof run);
    memset(&last, 0, sizeof last);
    char section[64] = "";
    for (char *line = text; line;) {
        char *next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        if (is_result_txt)
            parse_result_txt_line(&run, section, line);
        else
            parse_summary_line(&run, line);
        if (run.has_totals && run.n > 0)
            last = run;
        line = next;
    }
    free(text);
    if (last.n == 0) {
        fprintf(stderr, "ioscore-suite: --score-from %s: no scored phase values found\n", path);
        return 1;
    }
    const char *names[MAX_PHASES];
    double values[MAX_PHASES];
    for (int i = 0; i < last.n; i++) {
        names[i] = last.names[i];
        values[i] = strtod(last.values[i], NULL);
    }
    struct ios_scores s = ios_compute_scores(names, values, last.n);
    fprintf(out, "file = %s\nformat = %s\n", path, is_result_txt ? "result.txt" : "summary");
    if (last.has_version)
        fprintf(out, "version = %s\n", last.version);
    for (int i = 0; i < last.n; i++)
        fprintf(out, "phase.%s = %s\n", last.names[i], last.values[i]);
    fprintf(out, "phases = %d\n", last.n);
    fprintf(out, "printed.MD = %s\nprinted.BW = %s\nprinted.SCORE = %s\n", last.md, last.bw,
            last.total);
    fprintf(out, "printed.valid = %s\n", last.invalid ? "NO" : "YES");
    if (last.hash[0])
        fprintf(out, "printed.hash = %s\n", last.hash);
    fprintf(out, "MD = %.10g\nBW = %.10g\nSCORE = %.10g\n", s.md, s.bw, s.total);
    /* TOTAL from the printed group scores: what the published value was computed from. */
    double pmd = strtod(last.md, NULL), pbw = strtod(last.bw, NULL);
    fprintf(out, "SCORE-from-printed-groups = %.10g\n", sqrt(pbw * pmd));
    if (last.has_version && is_result_txt) {
        /* hash the printed strings exactly as the reference verifier does */
        const char *printed[MAX_PHASES];
        for (int i = 0; i < last.n; i++)
            printed[i] = last.values[i];
        fprintf(out, "score-hash = %X\n",
                ios_score_hash_text(last.version, names, printed, last.n, last.md, last.bw,
                                    last.total, !last.invalid));
    }
    return 0;
}
