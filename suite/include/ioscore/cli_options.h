/*
 * Option tables for the IOR-style command lines of `ioscore-suite ior` and `ioscore-suite
 * mdtest` (src/acceptance/cli_options.c). Each option is one row: its letter, its long name (or its
 * -O directive key), the typed field it sets, its bounds, its default and its help. Parsing,
 * the defaults, `--help` and the refusal of the tool's options this build does not implement
 * all come from the rows, as in IOR's option tables and fio's: code reads the field, never the
 * string, and never restates a default.
 */
#ifndef IOSCORE_CLI_OPTIONS_H
#define IOSCORE_CLI_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum ios_cli_type {
    IOS_CLI_FLAG,    /* int field = 1; a long name also takes =0/=1 */
    IOS_CLI_COUNTER, /* int field += 1 per occurrence (-v -v, -vv) */
    IOS_CLI_INT,     /* int, int32_t or int64_t field: a decimal integer in lo..hi */
    IOS_CLI_SIZE,    /* uint64_t field: a size with k/m/g/t, in lo..hi */
    IOS_CLI_STR,     /* char[] field: a non-empty text shorter than the field (less `hi`) */
    IOS_CLI_FUNC,    /* set() owns the rule (choices, lists) */
    IOS_CLI_REFUSED, /* the tool's option that this build does not implement: `help` says
                        what it means in the tool, and it is refused before any I/O */
};

enum {
    IOS_CLI_DIRECTIVE = 1u, /* a `-O key=value` directive (name is the key, case-insensitive) */
    IOS_CLI_HIDDEN = 2u,    /* not in --help (aliases shown by another row) */
};

struct ios_cli_opt;

/* A FUNC row's setter: 0, or -1 with the reason ("expected ...") in err. */
typedef int (*ios_cli_set_fn)(void *params, const struct ios_cli_opt *o, const char *value,
                              char *err, size_t err_len);

struct ios_cli_opt {
    char letter;      /* the short option, 0 when none */
    const char *name; /* the long option without "--", or the -O key; NULL when none */
    enum ios_cli_type type;
    unsigned flags;
    size_t offset, size; /* the field (IOS_CLI_FIELD); size 0: no field */
    long long lo, hi;    /* INT and SIZE bounds; STR: bytes kept free in the field */
    const char *def;     /* the default as the command line would say it; NULL: zero */
    const char *arg;     /* --help: the value's name; NULL for flags */
    const char *expect;  /* the error's "expected ..." for a bad value */
    const char *help;
    ios_cli_set_fn set; /* FUNC rows */
};

#define IOS_CLI_FIELD(type, member) offsetof(type, member), sizeof(((type *)0)->member)
#define IOS_CLI_NO_FIELD 0, 0
/* A row of the tool's option `letter` (or its -O key `name`) that this build refuses, with
 * what the option means in the tool. */
#define IOS_CLI_REFUSE(letter, meaning)                                                            \
    {                                                                                              \
        (letter), NULL, IOS_CLI_REFUSED, 0, IOS_CLI_NO_FIELD, 0, 0, NULL, NULL, NULL, (meaning),   \
            NULL                                                                                   \
    }
#define IOS_CLI_REFUSE_KEY(name, meaning)                                                          \
    {                                                                                              \
        0, (name), IOS_CLI_REFUSED, IOS_CLI_DIRECTIVE, IOS_CLI_NO_FIELD, 0, 0, NULL, NULL, NULL,   \
            (meaning), NULL                                                                        \
    }

/* The rows of a tool: IOS_CLI_ROWS(array) in its struct ios_cli_tool. */
#define IOS_CLI_ROWS(rows) .opts = (rows), .n_opts = sizeof(rows) / sizeof((rows)[0])

/* One tool's command line: its rows and how it names itself. */
struct ios_cli_tool {
    const char *program; /* "ioscore-suite ior": the prefix of every message */
    const char *tool;    /* "IOR": "unknown IOR option -q" */
    const struct ios_cli_opt *opts;
    size_t n_opts;
    const char *usage;  /* the first line of --help */
    const char *epilog; /* --help's last lines, or NULL */
    int short_only;     /* the tool takes short options only (mdtest): an unknown long option
                           is refused as such */
    int own_options;    /* the program's own command line, not another tool's: an unknown
                           option is unknown, not "not supported" */
    /* where params hold their struct ios_rank_detail_opts ({IOS_CLI_FIELD(type, member)}): the
     * parser then also takes the rank-detail options (src/core/rank_summary.c); size 0: not */
    struct {
        size_t offset, size;
    } rank_detail;
};

/*
 * Sets every row's default, then parses argv[1..] (argv[0] is the tool's name) into params.
 * `extra` (may be NULL) sees each word first: it returns how many words it used (0: not its
 * own), or -1 after printing why. Returns 0; 1 after --help; 2 after the error (rank 0 prints).
 */
typedef int (*ios_cli_extra_fn)(void *params, int argc, char **argv, int i, int rank);
int ios_cli_parse(const struct ios_cli_tool *t, void *params, int argc, char **argv, int rank,
                  ios_cli_extra_fn extra);

/* --help from the rows: the usage line, the options with their defaults, the -O directives,
 * the refused options with their meanings, the epilog. */
void ios_cli_help(const struct ios_cli_tool *t, FILE *out);

/* The command line as given (argv[0..argc-1] joined by spaces, cut to fit), for the reports. */
void ios_cli_command_line(int argc, char **argv, char *buf, size_t len);

/* The program's error line on rank 0; returns 2 (the exit status of a refused command line). */
int ios_cli_fail(const struct ios_cli_tool *t, int rank, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
