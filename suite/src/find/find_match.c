#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "find_match.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

char *find_pattern_to_regex(const char *pattern)
{
    size_t n = strlen(pattern);
    char *out = malloc(3 * n + 1); /* '.' grows to "[.]", the widest replacement */
    if (out == NULL)
        return NULL;
    size_t pos = 0;
    for (size_t i = 0; i < n; i++) {
        char c = pattern[i];
        if (c == '*') {
            out[pos++] = '.';
            out[pos++] = '*';
        } else if (c == '.') {
            memcpy(out + pos, "[.]", 3);
            pos += 3;
        } else if (c != '"') {
            out[pos++] = c;
        }
    }
    out[pos] = '\0';
    return out;
}

/* Characters with a meaning in a POSIX basic regex; a literal core must contain none. */
static int has_bre_special(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (strchr(".[]\\*^$", s[i]) != NULL)
            return 1;
    }
    return 0;
}

int find_matcher_init(struct find_matcher *m, const char *pattern)
{
    memset(m, 0, sizeof(*m));
    if (pattern == NULL) {
        m->match_all = 1;
        return 0;
    }
    char *re = find_pattern_to_regex(pattern);
    if (re == NULL)
        return -ENOMEM;
    /* Validate with regcomp even when the fast path answers, so bad patterns fail alike. */
    if (regcomp(&m->regex, re, REG_NOSUB) != 0) {
        free(re);
        return -EINVAL;
    }
    /* Unanchored matching makes leading and trailing ".*" redundant: strip them. */
    const char *core = re;
    size_t len = strlen(re);
    while (len >= 2 && core[0] == '.' && core[1] == '*') {
        core += 2;
        len -= 2;
    }
    while (len >= 2 && core[len - 2] == '.' && core[len - 1] == '*' &&
           !(len >= 3 && core[len - 3] == '\\')) {
        len -= 2;
    }
    if (len == 0) {
        m->match_all = 1;
    } else if (!has_bre_special(core, len)) {
        m->literal = strndup(core, len);
        if (m->literal == NULL) {
            regfree(&m->regex);
            free(re);
            return -ENOMEM;
        }
        m->literal_len = len;
    } else {
        m->use_regex = 1;
    }
    free(re);
    if (!m->use_regex)
        regfree(&m->regex);
    return 0;
}

void find_matcher_free(struct find_matcher *m)
{
    if (m->use_regex)
        regfree(&m->regex);
    free(m->literal);
    memset(m, 0, sizeof(*m));
}

int find_matcher_matches(const struct find_matcher *m, const char *name, size_t len)
{
    if (m->match_all)
        return 1;
    if (!m->use_regex)
        return memmem(name, len, m->literal, m->literal_len) != NULL;
    return regexec(&m->regex, name, 0, NULL, 0) == 0;
}
