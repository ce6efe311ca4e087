/*
 * pfind's name predicate. pfind turns the -name glob into a POSIX basic regex ('*' -> ".*",
 * '.' -> "[.]", '"' dropped, everything else kept) and matches it unanchored against d_name.
 * The usual patterns ("*01*") reduce to "the name contains a literal", which we answer with
 * memmem instead of regexec: same result, a fraction of the cost per entry.
 */
#ifndef IOSCORE_FIND_MATCH_H
#define IOSCORE_FIND_MATCH_H

#include <regex.h>
#include <stddef.h>

struct find_matcher {
    int match_all; /* no pattern, or one that reduces to ".*" */
    int use_regex; /* 1: regexec on `regex`; 0: substring `literal` */
    char *literal; /* the substring every match contains (fast path) */
    size_t literal_len;
    regex_t regex;
};

/* Returns 0, or -EINVAL when the converted pattern is not a valid regex. */
int find_matcher_init(struct find_matcher *m, const char *pattern);
void find_matcher_free(struct find_matcher *m);
/* name is NUL-terminated; len is strlen(name). */
int find_matcher_matches(const struct find_matcher *m, const char *name, size_t len);
/* pfind's glob -> BRE conversion; returns a malloc'd string (NULL on allocation failure). */
char *find_pattern_to_regex(const char *pattern);

#endif
