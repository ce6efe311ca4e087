/*
 * The INI configuration: the IO500 option table (benchmark spec §4.2) and its parser (§4.1).
 *
 * The table is data: it drives parsing, --list, config.ini and the config hash, so an
 * existing IO500 config file runs unchanged and the hash matches the reference. Values are
 * kept as the strings the user typed (the hash needs "2m", not 2097152); typed accessors
 * convert on use. Booleans are normalized to "TRUE"/"FALSE" while parsing.
 */
#ifndef IOSCORE_CONFIG_H
#define IOSCORE_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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
};

struct ios_section {
    const char *name;
    const struct ios_option *options;
    int n_options;
    int optional; /* only used in extended mode; still part of the table and the hash */
};

#define IOS_MAX_OPTIONS 12

struct ios_config {
    char filename[1024];
    char *text;                        /* the INI bytes exactly as read */
    char *values[64][IOS_MAX_OPTIONS]; /* NULL = unset */
    int lines[64][IOS_MAX_OPTIONS];    /* 0 = default, otherwise the INI line */
};

/* The option table in --list order (the phase order). */
const struct ios_section *ios_config_sections(int *count);

/* Initializes every option to its default. */
void ios_config_init(struct ios_config *cfg, const char *filename);
void ios_config_free(struct ios_config *cfg);

/*
 * Parses `text` (takes a copy). On error returns -1 and writes "FILE:LINE: message" naming the
 * section/key into err. Also runs the semantic checks (sizes, multiples, ranges).
 */
int ios_config_parse(struct ios_config *cfg, const char *text, char *err, size_t err_len);

/* Sets one value as if read from the INI at `line` (used by tests and --timestamp handling). */
int ios_config_set(struct ios_config *cfg, const char *section, const char *key, const char *value,
                   int line, char *err, size_t err_len);

/* The effective string (NULL when unset). Aborts on a name that is not in the table. */
const char *ios_cfg_str(const struct ios_config *cfg, const char *section, const char *key);
/* 1 / 0, or `unset` when the option has no value. */
int ios_cfg_bool(const struct ios_config *cfg, const char *section, const char *key, int unset);
int64_t ios_cfg_int(const struct ios_config *cfg, const char *section, const char *key,
                    int64_t unset);
uint64_t ios_cfg_size(const struct ios_config *cfg, const char *section, const char *key);

/* The API string for a phase: the phase's API, then the group's API, then global api. */
const char *ios_cfg_api(const struct ios_config *cfg, const char *phase, const char *group);
/* FALSE in the phase or in its group section disables the phase. */
int ios_cfg_run(const struct ios_config *cfg, const char *phase, const char *group);

/* config.ini: every option of every section, `key = value`, blank line after each section. */
void ios_config_write_ini(const struct ios_config *cfg, FILE *out);

/* XOR of kv(name, value) over every option whose value is not NULL (spec §5.4). */
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
