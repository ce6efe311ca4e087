/*
 * The parser behind the option tables of `ioscore-suite ior` and `ioscore-suite mdtest`
 * (see ioscore/cli_options.h). IOR's and mdtest's syntax: short options may be bundled (-vv,
 * -wr), a value follows its letter directly or as the next word (-b4m, -b 4m), long options
 * are --name=value or --name value, and `-O key=value[,key=value]` sets the directive rows
 * (keys case-insensitive). Defaults are applied through the same setters as the command line,
 * so a default is stated once, in its row, in the words a user would type.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ioscore/cli_options.h"
#include "ioscore/rank_summary.h"
#include "ioscore/util.h"

int ios_cli_fail(const struct ios_cli_tool *t, int rank, const char *fmt, ...)
{
    if (rank == 0) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(stderr, "%s: ERROR: ", t->program);
        vfprintf(stderr, fmt, ap);
        fprintf(stderr, "\n");
        va_end(ap);
    }
    return 2;
}

void ios_cli_command_line(int argc, char **argv, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < argc && used < len - 1; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? " " : "", argv[i]);
}

static void *field(void *params, const struct ios_cli_opt *o)
{
    return (char *)params + o->offset;
}

/* An integer into an int or a 64-bit field (the row's size says which; bounds checked). */
static int store_int(void *params, const struct ios_cli_opt *o, long long v)
{
    void *f = field(params, o);
    if (o->size == sizeof(int))
        *(int *)f = (int)v;
    else if (o->size == sizeof(int64_t))
        *(int64_t *)f = v;
    else
        return -1;
    return 0;
}

/* Sets the row's field from `value` (NULL: a flag without =value). 0, or -1 with err. A
 * default may be a sentinel below the bounds ("-1": not given), which a user cannot type. */
static int apply_as(void *params, const struct ios_cli_opt *o, const char *value, int is_default,
                    char *err, size_t len)
{
    err[0] = '\0';
    char *end = NULL;
    switch (o->type) {
    case IOS_CLI_FLAG: {
        long long v = 1;
        if (value && (strcmp(value, "1") == 0 || ios_streq_nocase(value, "true")))
            v = 1;
        else if (value && (strcmp(value, "0") == 0 || ios_streq_nocase(value, "false")))
            v = 0;
        else if (value) {
            snprintf(err, len, "%s", o->expect ? o->expect : "0 or 1");
            return -1;
        }
        return store_int(params, o, v);
    }
    case IOS_CLI_COUNTER:
        (*(int *)field(params, o))++;
        return 0;
    case IOS_CLI_INT: {
        long long v = strtoll(value, &end, 10);
        if (end == value || *end || (!is_default && (v < o->lo || v > o->hi))) {
            snprintf(err, len, "%s", o->expect);
            return -1;
        }
        return store_int(params, o, v);
    }
    case IOS_CLI_SIZE: {
        uint64_t v;
        if (ios_parse_size(value, &v) != 0 || v < (uint64_t)o->lo || v > (uint64_t)o->hi) {
            snprintf(err, len, "%s", o->expect);
            return -1;
        }
        *(uint64_t *)field(params, o) = v;
        return 0;
    }
    case IOS_CLI_STR:
        if (!value[0] || strlen(value) + (size_t)o->hi >= o->size) {
            snprintf(err, len, "%s", o->expect);
            return -1;
        }
        snprintf(field(params, o), o->size, "%s", value);
        return 0;
    case IOS_CLI_FUNC:
        return o->set(params, o, value, err, len);
    case IOS_CLI_REFUSED:
        break;
    }
    snprintf(err, len, "internal: option type %d", (int)o->type);
    return -1;
}

static int apply(void *params, const struct ios_cli_opt *o, const char *value, char *err,
                 size_t len)
{
    return apply_as(params, o, value, 0, err, len);
}

static const struct ios_cli_opt *by_letter(const struct ios_cli_tool *t, char c)
{
    for (size_t i = 0; i < t->n_opts; i++)
        if (t->opts[i].letter == c && !(t->opts[i].flags & IOS_CLI_DIRECTIVE))
            return &t->opts[i];
    return NULL;
}

static const struct ios_cli_opt *by_name(const struct ios_cli_tool *t, const char *name, size_t n,
                                         int directive)
{
    for (size_t i = 0; i < t->n_opts; i++) {
        const struct ios_cli_opt *o = &t->opts[i];
        if (!o->name || strlen(o->name) != n || !!(o->flags & IOS_CLI_DIRECTIVE) != directive)
            continue;
        if (directive ? strncasecmp(o->name, name, n) == 0 : strncmp(o->name, name, n) == 0)
            return o;
    }
    return NULL;
}

/* "a, b and c": the names of the rows that are (not) directives, for a refusal's hint. */
static void names_of(const struct ios_cli_tool *t, int directive, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < t->n_opts && used < len; i++) {
        const struct ios_cli_opt *o = &t->opts[i];
        if (!o->name || o->type == IOS_CLI_REFUSED || !!(o->flags & IOS_CLI_DIRECTIVE) != directive)
            continue;
        used += (size_t)snprintf(buf + used, len - used, "%s%s%s", used ? ", " : "",
                                 directive ? "" : "--", o->name);
    }
}

static int refuse(const struct ios_cli_tool *t, int rank, const char *shown,
                  const struct ios_cli_opt *o)
{
    return ios_cli_fail(t, rank, "not supported: %s (%s)", shown, o->help);
}

static int bad_value(const struct ios_cli_tool *t, int rank, const char *shown, const char *value,
                     const char *why)
{
    if (strncmp(why, "not supported", 13) == 0)
        return ios_cli_fail(t, rank, "%s", why);
    return ios_cli_fail(t, rank, "%s %s: expected %s", shown, value, why);
}

/* -O key=value[,key=value] */
static int directives(const struct ios_cli_tool *t, void *params, const char *text, int rank)
{
    char copy[512], err[256];
    if (strlen(text) >= sizeof copy)
        return ios_cli_fail(t, rank, "-O %s: too long", text);
    snprintf(copy, sizeof copy, "%s", text);
    char *save = NULL;
    for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(item, '=');
        if (!eq)
            return ios_cli_fail(t, rank, "-O %s: expected key=value", item);
        *eq = '\0';
        const struct ios_cli_opt *o = by_name(t, item, strlen(item), 1);
        if (!o || o->type == IOS_CLI_REFUSED) {
            char names[512];
            names_of(t, 1, names, sizeof names);
            if (o)
                return ios_cli_fail(t, rank, "not supported: -O %s (%s)", item, o->help);
            return ios_cli_fail(t, rank, "not supported: -O %s (this build implements -O %s)", item,
                                names);
        }
        if (apply(params, o, eq + 1, err, sizeof err) != 0) {
            char shown[96];
            snprintf(shown, sizeof shown, "-O %s=%s:", o->name, eq + 1);
            if (strncmp(err, "not supported", 13) == 0)
                return ios_cli_fail(t, rank, "%s", err);
            return ios_cli_fail(t, rank, "%s expected %s", shown, err);
        }
    }
    return 0;
}

/* A value row's value: the rest of the word, else the next word (*used = 1). */
static int take_value(const struct ios_cli_tool *t, void *params, const struct ios_cli_opt *o,
                      const char *shown, const char *value, int rank)
{
    char err[256];
    if (o->letter == 'O' && o->type == IOS_CLI_FUNC && !o->set)
        return directives(t, params, value, rank);
    if (apply(params, o, value, err, sizeof err) != 0)
        return bad_value(t, rank, shown, value, err);
    return 0;
}

static int takes_value(const struct ios_cli_opt *o)
{
    return o->type != IOS_CLI_FLAG && o->type != IOS_CLI_COUNTER;
}

static int parse_short(const struct ios_cli_tool *t, void *params, const char *word,
                       const char *next, int *used, int rank)
{
    char err[256];
    for (const char *c = word + 1; *c; c++) {
        char shown[3] = {'-', *c, '\0'};
        const struct ios_cli_opt *o = by_letter(t, *c);
        if (!o && t->own_options)
            return ios_cli_fail(t, rank, "unknown or incomplete option '%s'", word);
        if (!o)
            return ios_cli_fail(t, rank, "unknown %s option %s in '%s'", t->tool, shown, word);
        if (o->type == IOS_CLI_REFUSED)
            return refuse(t, rank, shown, o);
        if (!takes_value(o)) {
            if (apply(params, o, NULL, err, sizeof err) != 0)
                return ios_cli_fail(t, rank, "%s: %s", shown, err);
            continue;
        }
        const char *v = c[1] ? c + 1 : next;
        if (!v)
            return ios_cli_fail(t, rank, "%s needs a value", shown);
        *used = !c[1];
        return take_value(t, params, o, shown, v, rank);
    }
    return 0;
}

static int parse_long(const struct ios_cli_tool *t, void *params, const char *word,
                      const char *next, int *used, int rank)
{
    const char *eq = strchr(word, '=');
    size_t n = eq ? (size_t)(eq - word - 2) : strlen(word) - 2;
    const struct ios_cli_opt *o = by_name(t, word + 2, n, 0);
    char shown[128], err[256];
    snprintf(shown, sizeof shown, "--%.*s", (int)n, word + 2);
    if (!o && t->own_options)
        return ios_cli_fail(t, rank, "unknown or incomplete option '%s'", word);
    if (!o && t->short_only)
        return ios_cli_fail(t, rank, "not supported: '%s' (%s takes short options)", word, t->tool);
    if (!o) {
        char names[512];
        names_of(t, 0, names, sizeof names);
        return ios_cli_fail(t, rank,
                            "not supported: %s (this build implements %s of %s's long "
                            "options)",
                            word, names, t->tool);
    }
    if (o->type == IOS_CLI_REFUSED)
        return refuse(t, rank, shown, o);
    if (!takes_value(o)) {
        if (apply(params, o, eq ? eq + 1 : NULL, err, sizeof err) != 0)
            return ios_cli_fail(t, rank, "%s: expected %s[=0|1]", word, shown);
        return 0;
    }
    const char *v = eq ? eq + 1 : next;
    if (!v)
        return ios_cli_fail(t, rank, "%s needs a value", shown);
    *used = !eq;
    return take_value(t, params, o, shown, v, rank);
}

int ios_cli_parse(const struct ios_cli_tool *t, void *params, int argc, char **argv, int rank,
                  ios_cli_extra_fn extra)
{
    char err[256];
    for (size_t i = 0; i < t->n_opts; i++) {
        const struct ios_cli_opt *o = &t->opts[i];
        if (o->def && apply_as(params, o, o->def, 1, err, sizeof err) != 0)
            return ios_cli_fail(t, rank, "internal: default of %c/%s: %s",
                                o->letter ? o->letter : '-', o->name ? o->name : "", err);
    }
    for (int i = 1; i < argc; i++) {
        const char *w = argv[i];
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(w, "-h") == 0 || strcmp(w, "--help") == 0) {
            if (rank == 0)
                ios_cli_help(t, stdout);
            return 1;
        }
        if (t->rank_detail.size) {
            int last = i;
            int rc = ios_rank_detail_arg(
                (struct ios_rank_detail_opts *)((char *)params + t->rank_detail.offset), argc, argv,
                &last, t->program, rank);
            if (rc < 0)
                return 2;
            if (rc > 0) {
                i = last;
                continue;
            }
        }
        if (extra) {
            int n = extra(params, argc, argv, i, rank);
            if (n < 0)
                return 2;
            if (n > 0) {
                i += n - 1;
                continue;
            }
        }
        if (w[0] != '-' || !w[1])
            return ios_cli_fail(t, rank, "unexpected argument '%s' (%s takes options only)", w,
                                t->tool);
        int used = 0;
        int rc = w[1] == '-' ? parse_long(t, params, w, next, &used, rank)
                             : parse_short(t, params, w, next, &used, rank);
        if (rc != 0)
            return rc;
        i += used;
    }
    return 0;
}

/* "-b, --name N" as --help shows a row. */
static void shown_name(const struct ios_cli_opt *o, char *buf, size_t len)
{
    size_t used = 0;
    if (o->flags & IOS_CLI_DIRECTIVE) {
        snprintf(buf, len, "-O %s=%s", o->name, o->arg ? o->arg : "1");
        return;
    }
    if (o->letter)
        used += (size_t)snprintf(buf, len, "-%c", o->letter);
    if (o->name)
        used += (size_t)snprintf(buf + used, len - used, "%s--%s", used ? ", " : "", o->name);
    if (o->arg && used < len)
        snprintf(buf + used, len - used, " %s", o->arg);
}

static void help_rows(const struct ios_cli_tool *t, FILE *out, int refused, int directive)
{
    for (size_t i = 0; i < t->n_opts; i++) {
        const struct ios_cli_opt *o = &t->opts[i];
        if ((o->type == IOS_CLI_REFUSED) != refused ||
            !!(o->flags & IOS_CLI_DIRECTIVE) != directive || (o->flags & IOS_CLI_HIDDEN))
            continue;
        char name[96];
        shown_name(o, name, sizeof name);
        /* a long name gets the help on its own line */
        if (strlen(name) > 24)
            fprintf(out, "  %s\n  %-24s %s", name, "", o->help);
        else
            fprintf(out, "  %-24s %s", name, o->help);
        /* a sentinel default below the bounds ("-1": not given) is no value to show */
        int sentinel = o->type == IOS_CLI_INT && o->def && atoll(o->def) < o->lo;
        if (o->def && o->type != IOS_CLI_FLAG && !sentinel)
            fprintf(out, " (%s)", o->def);
        fprintf(out, "\n");
    }
}

void ios_cli_help(const struct ios_cli_tool *t, FILE *out)
{
    fprintf(out, "%s\n", t->usage);
    help_rows(t, out, 0, 0);
    int any = 0;
    for (size_t i = 0; i < t->n_opts; i++)
        any |= (t->opts[i].flags & IOS_CLI_DIRECTIVE) != 0;
    if (any) {
        fprintf(out, "directives (-O key=value[,key=value], keys case-insensitive):\n");
        help_rows(t, out, 0, 1);
    }
    int refused = 0;
    for (size_t i = 0; i < t->n_opts; i++)
        refused |= t->opts[i].type == IOS_CLI_REFUSED;
    if (refused) {
        fprintf(out, "%s options this build refuses (before any I/O):\n", t->tool);
        help_rows(t, out, 1, 0);
        help_rows(t, out, 1, 1);
    }
    if (t->epilog)
        fprintf(out, "%s", t->epilog);
}
