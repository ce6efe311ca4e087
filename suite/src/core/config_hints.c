/*
 * Messages for names the option table does not know, with a hint: a near spelling ("did you
 * mean ...", by edit distance) or the section that has the key (and the release or mode it
 * belongs to). See config_hints.h.
 */
#include "config_hints.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "ioscore/util.h"

static int option_index(const struct ios_section *section, const char *key)
{
    for (int o = 0; o < section->n_options; o++)
        if (ios_streq_nocase(section->options[o].name, key))
            return o;
    return -1;
}

/* Levenshtein distance ignoring case; names longer than 63 bytes count as far from anything. */
static int edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return 1000;
    int row[64];
    for (size_t j = 0; j <= lb; j++)
        row[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        int diagonal = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int above = row[j];
            int same = tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1]);
            int best = diagonal + !same;
            if (above + 1 < best)
                best = above + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diagonal = above;
        }
    }
    return row[lb];
}

/* Close enough to be a typo: at most one edit per three characters (at least one). */
static int is_typo_of(const char *typed, const char *known)
{
    int limit = (int)strlen(typed) / 3;
    return edit_distance(typed, known) <= (limit < 1 ? 1 : limit);
}

/* Where a section came from, for hints: "" or " (extended mode, isc21 and later)". */
static const char *section_origin(const struct ios_section *section)
{
    static char text[96];
    if (section->optional)
        return " (an extended-mode section, isc21 and later)";
    if (section->releases) {
        snprintf(text, sizeof text, " (a section of releases %s)", section->releases);
        return text;
    }
    return "";
}

void ios_config_unknown_section(const char *filename, int line, const char *name, char *err,
                                size_t err_len)
{
    int n_sections = 0;
    const struct ios_section *sections = ios_config_sections(&n_sections);
    int n = snprintf(err, err_len, "%s:%d: unknown section [%s]", filename, line, name);
    for (int s = 0; s < n_sections && n >= 0 && (size_t)n < err_len; s++)
        if (is_typo_of(name, sections[s].name)) {
            snprintf(err + n, err_len - (size_t)n, "; did you mean [%s]?", sections[s].name);
            return;
        }
}

void ios_config_unknown_key(const char *filename, int line, int s, const char *key, char *err,
                            size_t err_len)
{
    int n_sections = 0;
    const struct ios_section *sections = ios_config_sections(&n_sections);
    int n = snprintf(err, err_len, "%s:%d: unknown key '%s' in section [%s]", filename, line, key,
                     sections[s].name);
    if (n < 0 || (size_t)n >= err_len)
        return;
    for (int o = 0; o < sections[s].n_options; o++)
        if (is_typo_of(key, sections[s].options[o].name)) {
            snprintf(err + n, err_len - (size_t)n, "; did you mean '%s'?",
                     sections[s].options[o].name);
            return;
        }
    for (int other = 0; other < n_sections; other++) {
        int o = option_index(&sections[other], key);
        if (o < 0)
            continue;
        const char *origin =
            sections[other].options[o].releases ? "" : section_origin(&sections[other]);
        snprintf(err + n, err_len - (size_t)n, "; '%s' is a key of [%s]%s",
                 sections[other].options[o].name, sections[other].name, origin);
        return;
    }
}
