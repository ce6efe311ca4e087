/*
 * The INI configuration: the IO500 option table (BENCHMARK-RULES §4.2) and its parser (§4.1).
 *
 * The table is data: it drives parsing, --list, config.ini and the config hash, so an
 * existing IO500 config file runs unchanged and the hash matches the reference. Values are
 * kept as the strings the user typed (the hash needs "2m", not 2097152), and each key that code
 * reads is also bound to a typed field of cfg->opt (include/ioscore/options.h), which code
 * reads instead of looking the key up. Booleans are normalized to "TRUE"/"FALSE" while parsing.
 */
#ifndef IOSCORE_CONFIG_H
#define IOSCORE_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ioscore/options.h"

enum ios_opt_type {
    IOS_OPT_STRING,
    IOS_OPT_INT,
    IOS_OPT_UINT,
    IOS_OPT_UINT64,
    IOS_OPT_FLOAT,
    IOS_OPT_BOOL
};

struct ios_option {
    const char *name;
    enum ios_opt_type type;
    const char *def; /* NULL = unset */
    const char *help;
    /*
     * NULL: a key of the current (HEAD) table. Otherwise the releases whose tables had it: the
     * key is parsed and type-checked, written to config.ini and hashed only when set (as those
     * releases did), and otherwise unused.
     */
    const char *releases;
    /* The field of struct ios_options the key is bound to (IOS_FIELD_NONE: none). */
    enum ios_field_kind kind;
    size_t field; /* offsetof in struct ios_options */
};

struct ios_section {
    const char *name;
    const struct ios_option *options;
    int n_options;
    int optional; /* only used in extended mode; still part of the table and the hash */
    /*
     * NULL: a section of the current table. Otherwise the releases that had it (a phase that
     * standard mode never ran). Sections with the same `releases` form one family: when the INI
     * names any of them, the whole family goes into config.ini and the hash with its defaults,
     * exactly as those releases recorded it; otherwise none of it does.
     */
    const char *releases;
};

#define IOS_MAX_OPTIONS 12
#define IOS_MAX_SECTIONS 64

struct ios_config {
    char filename[1024];
    char *text;                                      /* the INI bytes exactly as read */
    char *values[IOS_MAX_SECTIONS][IOS_MAX_OPTIONS]; /* NULL = unset */
    int lines[IOS_MAX_SECTIONS][IOS_MAX_OPTIONS];    /* 0 = default, otherwise the INI line */
    int seen[IOS_MAX_SECTIONS];                      /* line of the section's first header */
    /* a phase's API with " --posix.odirect" added by the isc20/sc20 key (NULL: none) */
    char *odirect_api[IOS_MAX_SECTIONS];
    struct ios_options opt; /* the typed values, updated with every value set */
};

/* The option table in --list order (the phase order). */
const struct ios_section *ios_config_sections(int *count);

/* Initializes every option to its default. */
void ios_config_init(struct ios_config *cfg, const char *filename);
void ios_config_free(struct ios_config *cfg);

/*
 * Refuses bytes that are not an INI text before parsing: empty (no section, key or comment),
 * NUL bytes (a binary file, for example a macOS `._` AppleDouble resource fork) or invalid
 * UTF-8 outside comments. Returns 0, or -1 with "FILE[:LINE]: message" in err.
 */
int ios_config_check_text(const char *filename, const char *text, size_t len, char *err,
                          size_t err_len);

/*
 * Parses `text` (takes a copy). On error returns -1 and writes "FILE:LINE: message" naming the
 * section/key into err. Also runs the semantic checks (sizes, multiples, ranges).
 */
int ios_config_parse(struct ios_config *cfg, const char *text, char *err, size_t err_len);

/* Sets one value as if read from the INI at `line` (used by tests and --timestamp handling). */
int ios_config_set(struct ios_config *cfg, const char *section, const char *key, const char *value,
                   int line, char *err, size_t err_len);

/* Is `key` in the table's `section`? */
int ios_cfg_has_option(const char *section, const char *key);
/* The INI line that set the option, 0 when it has its default. */
int ios_cfg_line(const struct ios_config *cfg, const char *section, const char *key);

/*
 * The sections the INI names that standard mode does not run (extended-mode and historical
 * ones), as "[a], [b]" into buf. Returns their number.
 */
int ios_config_unrun_sections(const struct ios_config *cfg, char *buf, size_t len);

/*
 * Lookups by name, for code that walks the table (API and run of a phase section, config.ini,
 * tests). Phases read cfg->opt instead. The effective string (NULL when unset); aborts on a name
 * that is not in the table.
 */
const char *ios_cfg_str(const struct ios_config *cfg, const char *section, const char *key);
/* 1 / 0, or `unset` when the option has no value. */
int ios_cfg_bool(const struct ios_config *cfg, const char *section, const char *key, int unset);
int64_t ios_cfg_int(const struct ios_config *cfg, const char *section, const char *key,
                    int64_t unset);
uint64_t ios_cfg_size(const struct ios_config *cfg, const char *section, const char *key);

/*
 * The API string for a phase: the phase's API, then the group's API, then global api; plus
 * " --posix.odirect" when the isc20/sc20 key posix.odirect is TRUE in the phase (or, unset
 * there, in its group), as those releases passed it to IOR and mdtest.
 */
const char *ios_cfg_api(const struct ios_config *cfg, const char *phase, const char *group);
/* run = FALSE (or the isc20/sc20 noRun = TRUE) in the phase or its group disables the phase. */
int ios_cfg_run(const struct ios_config *cfg, const char *phase, const char *group);

/*
 * What config.ini, result.json and the hash record: every current section and option; a
 * historical section only when the INI names its family; a historical key only when set.
 * Indices as in ios_config_sections().
 */
int ios_config_section_recorded(const struct ios_config *cfg, int section);
int ios_config_option_recorded(const struct ios_config *cfg, int section, int option);

/* config.ini: every recorded option of every recorded section, `key = value`, blank line after
 * each section. */
void ios_config_write_ini(const struct ios_config *cfg, FILE *out);

/* XOR of kv(name, value) over every option whose value is not NULL (BENCHMARK-RULES §5.4). */
uint32_t ios_config_hash(const struct ios_config *cfg);

/*
 * Hash of a config.ini as written (`key = value` lines; sections ignored). Empty values count
 * only for the options whose default is the empty string. Used to verify result.txt files of
 * any version, whose option tables differ from ours.
 */
uint32_t ios_config_hash_ini_text(const char *text);

/* --list: every section and option with type, default and help. */
void ios_config_list(FILE *out);

#endif
