/*
 * INI parsing and the IO500 option table; see include/ioscore/config.h.
 * The line grammar is the reference one (BENCHMARK-RULES §4.1), written as POSIX extended regexes.
 */
#include "ioscore/config.h"

#include <ctype.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "config_hints.h"
#include "ioscore/hash.h"
#include "ioscore/util.h"

/* The option table (config_table.c, which config_hints.c reads too). */
static const struct ios_section *table(int s)
{
    int n = 0;
    return &ios_config_sections(&n)[s];
}
static int n_sections(void)
{
    int n = 0;
    ios_config_sections(&n);
    return n;
}
#define N_SECTIONS n_sections()

static int find_section(const char *name)
{
    for (int s = 0; s < N_SECTIONS; s++)
        if (ios_streq_nocase(table(s)->name, name))
            return s;
    return -1;
}

static int find_option(int s, const char *name)
{
    for (int o = 0; o < table(s)->n_options; o++)
        if (ios_streq_nocase(table(s)->options[o].name, name))
            return o;
    return -1;
}

/* Does the field kind fit the key's INI type? (a string key may hold a size) */
static int kind_fits(const struct ios_option *opt)
{
    switch (opt->kind) {
    case IOS_FIELD_NONE:
        return 1;
    case IOS_FIELD_STRING:
        return opt->type == IOS_OPT_STRING;
    case IOS_FIELD_BOOL:
        return opt->type == IOS_OPT_BOOL;
    case IOS_FIELD_INT:
        return opt->type == IOS_OPT_INT || opt->type == IOS_OPT_UINT;
    case IOS_FIELD_UINT64:
        return opt->type == IOS_OPT_UINT64 || opt->type == IOS_OPT_STRING;
    case IOS_FIELD_FLOAT:
        return opt->type == IOS_OPT_FLOAT;
    }
    return 0;
}

/*
 * Stores the typed value of a (checked) option in its field of cfg->opt. Unset is 0 / NULL; a
 * number out of range (digits only, so it passed the check) reads as the key's default.
 */
static void bind_field(struct ios_config *cfg, const struct ios_option *opt, const char *value)
{
    char *field = (char *)&cfg->opt + opt->field;
    int64_t i = 0;
    uint64_t u = 0;
    int b;
    double d;
    switch (opt->kind) {
    case IOS_FIELD_NONE:
        return;
    case IOS_FIELD_STRING:
        memcpy(field, &value, sizeof value);
        return;
    case IOS_FIELD_BOOL:
        b = value && strcmp(value, "TRUE") == 0;
        memcpy(field, &b, sizeof b);
        return;
    case IOS_FIELD_INT:
    case IOS_FIELD_UINT64:
        if (value && opt->type == IOS_OPT_STRING) {
            if (ios_parse_size(value, &u) != 0)
                u = 0;
        } else if (value && ios_parse_int64(value, &i) != 0 &&
                   (!opt->def || ios_parse_int64(opt->def, &i) != 0)) {
            i = 0;
        }
        if (opt->kind == IOS_FIELD_INT)
            memcpy(field, &i, sizeof i);
        else if (opt->type == IOS_OPT_STRING)
            memcpy(field, &u, sizeof u);
        else
            memcpy(field, &(uint64_t){(uint64_t)i}, sizeof u);
        return;
    case IOS_FIELD_FLOAT:
        d = value ? strtod(value, NULL) : 0.0;
        memcpy(field, &d, sizeof d);
        return;
    }
}

static void set_value(struct ios_config *cfg, int s, int o, const char *value, int line)
{
    free(cfg->values[s][o]);
    cfg->values[s][o] = value ? strdup(value) : NULL;
    if (value && !cfg->values[s][o])
        ios_fatal("out of memory");
    cfg->lines[s][o] = line;
    bind_field(cfg, &table(s)->options[o], cfg->values[s][o]);
}

void ios_config_init(struct ios_config *cfg, const char *filename)
{
    memset(cfg, 0, sizeof *cfg);
    for (int s = 0; s < N_SECTIONS; s++)
        if (table(s)->n_options > IOS_MAX_OPTIONS)
            ios_fatal("internal: [%s] has more than IOS_MAX_OPTIONS keys", table(s)->name);
    for (int s = 0; s < N_SECTIONS; s++)
        for (int o = 0; o < table(s)->n_options; o++)
            if (!kind_fits(&table(s)->options[o]))
                ios_fatal("internal: [%s] %s: its field's C type does not fit the key's type",
                          table(s)->name, table(s)->options[o].name);
    snprintf(cfg->filename, sizeof cfg->filename, "%s", filename);
    for (int s = 0; s < N_SECTIONS; s++)
        for (int o = 0; o < table(s)->n_options; o++)
            set_value(cfg, s, o, table(s)->options[o].def, 0);
}

void ios_config_free(struct ios_config *cfg)
{
    for (int s = 0; s < N_SECTIONS; s++) {
        for (int o = 0; o < table(s)->n_options; o++)
            free(cfg->values[s][o]);
        free(cfg->odirect_api[s]);
        cfg->odirect_api[s] = NULL;
    }
    free(cfg->text);
    cfg->text = NULL;
}

/* Checks `value` against the type and stores it (booleans normalized). */
static int check_and_set(struct ios_config *cfg, int s, int o, const char *value, int line,
                         char *err, size_t err_len)
{
    const struct ios_option *opt = &table(s)->options[o];
    const char *expected = NULL;
    const char *p = value;
    switch (opt->type) {
    case IOS_OPT_STRING:
        break;
    case IOS_OPT_INT:
        if (*p == '-')
            p++;
        /* fall through */
    case IOS_OPT_UINT:
    case IOS_OPT_UINT64:
        if (!*p)
            expected = "an integer";
        for (; *p && !expected; p++)
            if (!isdigit((unsigned char)*p))
                expected = opt->type == IOS_OPT_INT ? "an integer" : "a non-negative integer";
        break;
    case IOS_OPT_FLOAT:
        for (; *p && !expected; p++)
            if (!isdigit((unsigned char)*p) && !strchr("e.+-", *p))
                expected = "a number";
        break;
    case IOS_OPT_BOOL:
        if (ios_streq_nocase(value, "true") || strcmp(value, "1") == 0) {
            value = "TRUE";
        } else if (ios_streq_nocase(value, "false") || strcmp(value, "0") == 0) {
            value = "FALSE";
        } else {
            expected = "TRUE or FALSE";
        }
        break;
    }
    if (expected) {
        snprintf(err, err_len, "%s:%d: [%s] %s: bad value '%s' (expected %s)", cfg->filename, line,
                 table(s)->name, opt->name, value, expected);
        return -1;
    }
    set_value(cfg, s, o, value, line);
    return 0;
}

int ios_config_set(struct ios_config *cfg, const char *section, const char *key, const char *value,
                   int line, char *err, size_t err_len)
{
    int s = find_section(section);
    if (s < 0) {
        ios_config_unknown_section(cfg->filename, line, section, err, err_len);
        return -1;
    }
    int o = find_option(s, key);
    if (o < 0) {
        ios_config_unknown_key(cfg->filename, line, s, key, err, err_len);
        return -1;
    }
    if (!*value) /* the reference ignores empty values: the default stays */
        return 0;
    return check_and_set(cfg, s, o, value, line, err, err_len);
}

/* Location of an option for messages about values: "file:line" or "file (default)". */
static void where(const struct ios_config *cfg, const char *section, const char *key, char *buf,
                  size_t len)
{
    int s = find_section(section), o = find_option(s, key);
    if (cfg->lines[s][o] > 0)
        snprintf(buf, len, "%s:%d", cfg->filename, cfg->lines[s][o]);
    else
        snprintf(buf, len, "%s (default)", cfg->filename);
}

/* Cross-option rules that the reference enforces only later, inside IOR; we check up front. */
static int semantic_checks(struct ios_config *cfg, char *err, size_t err_len)
{
    char loc[1100];
    uint64_t transfer = cfg->opt.ior_easy.transfer_size, block = cfg->opt.ior_easy.block_size;
    const char *t = ios_cfg_str(cfg, "ior-easy", "transferSize");
    const char *b = ios_cfg_str(cfg, "ior-easy", "blockSize");
    if (transfer == 0 || block == 0) {
        const char *key = transfer == 0 ? "transferSize" : "blockSize";
        where(cfg, "ior-easy", key, loc, sizeof loc);
        snprintf(err, err_len,
                 "%s: [ior-easy] %s: bad size '%s' (digits with an "
                 "optional k/m/g/t/p suffix, as in 2m, 512kb or 4MiB)",
                 loc, key, transfer == 0 ? t : b);
        return -1;
    }
    if (transfer % 8 != 0 || block % transfer != 0) {
        where(cfg, "ior-easy", "blockSize", loc, sizeof loc);
        snprintf(err, err_len,
                 "%s: [ior-easy] blockSize: %s must be a multiple of "
                 "transferSize %s, and transferSize a multiple of 8",
                 loc, b, t);
        return -1;
    }
    const char *packet = cfg->opt.global.data_packet_type;
    if (!packet || !strchr("toir", tolower((unsigned char)packet[0]))) {
        where(cfg, "global", "dataPacketType", loc, sizeof loc);
        snprintf(err, err_len,
                 "%s: [global] dataPacketType: bad value '%s' (expected "
                 "timestamp, offset, incompressible or random)",
                 loc, packet ? packet : "");
        return -1;
    }
    if (cfg->opt.debug.stonewall_time <= 0) {
        where(cfg, "debug", "stonewall-time", loc, sizeof loc);
        snprintf(err, err_len, "%s: [debug] stonewall-time: must be > 0", loc);
        return -1;
    }
    if (cfg->opt.ior_hard.segment_count <= 0) {
        where(cfg, "ior-hard", "segmentCount", loc, sizeof loc);
        snprintf(err, err_len, "%s: [ior-hard] segmentCount: must be > 0", loc);
        return -1;
    }
    static const char *finds[] = {"find-easy", "find", "find-hard"};
    const struct ios_find_options *find_opts[] = {&cfg->opt.find_easy, &cfg->opt.find,
                                                  &cfg->opt.find_hard};
    for (int i = 0; i < 3; i++) {
        if (find_opts[i]->queue_length < 10) {
            where(cfg, finds[i], "pfind-queue-length", loc, sizeof loc);
            snprintf(err, err_len, "%s: [%s] pfind-queue-length: must be >= 10", loc, finds[i]);
            return -1;
        }
    }
    return 0;
}

/* The group section of a phase section ("ior-easy" for "ior-easy-write"), or -1. */
static int group_of(int s)
{
    int best = -1;
    size_t best_len = 0;
    for (int g = 0; g < N_SECTIONS; g++) {
        size_t len = strlen(table(g)->name);
        if (g != s && len > best_len && strncmp(table(s)->name, table(g)->name, len) == 0 &&
            table(s)->name[len] == '-') {
            best = g;
            best_len = len;
        }
    }
    return best;
}

/* The value of a key in s, else in its group, else NULL (s/group may lack the key). */
static const char *phase_or_group(const struct ios_config *cfg, int s, int g, const char *key)
{
    int o = find_option(s, key);
    if (o >= 0 && cfg->values[s][o])
        return cfg->values[s][o];
    o = g >= 0 ? find_option(g, key) : -1;
    return o >= 0 ? cfg->values[g][o] : NULL;
}

/* isc20/sc20 posix.odirect = TRUE: the phase's API gets --posix.odirect (see ios_cfg_api). */
static void derive_odirect_apis(struct ios_config *cfg)
{
    for (int s = 0; s < N_SECTIONS; s++) {
        free(cfg->odirect_api[s]);
        cfg->odirect_api[s] = NULL;
        int g = group_of(s);
        const char *odirect = phase_or_group(cfg, s, g, "posix.odirect");
        if (!odirect || strcmp(odirect, "TRUE") != 0)
            continue;
        const char *api = phase_or_group(cfg, s, g, "API");
        if (!api)
            api = cfg->opt.global.api;
        if (strstr(api, "--posix.odirect"))
            continue;
        size_t len = strlen(api) + sizeof " --posix.odirect";
        cfg->odirect_api[s] = malloc(len);
        if (!cfg->odirect_api[s])
            ios_fatal("out of memory");
        snprintf(cfg->odirect_api[s], len, "%s --posix.odirect", api);
    }
}

/* Copies regex group g of `line` into out (bounded). */
static void group_text(const char *line, const regmatch_t *m, int g, char *out, size_t len)
{
    size_t n = 0;
    if (m[g].rm_so >= 0)
        n = (size_t)(m[g].rm_eo - m[g].rm_so);
    if (n >= len)
        n = len - 1;
    memcpy(out, line + (m[g].rm_so >= 0 ? m[g].rm_so : 0), n);
    out[n] = '\0';
}

int ios_config_parse(struct ios_config *cfg, const char *text, char *err, size_t err_len)
{
    regex_t re_section, re_option, re_empty;
    regcomp(&re_section,
            "^[[:space:]]*\\[[[:space:]]*([0-9A-Za-z_-]+)[[:space:]]*\\][[:space:]]*"
            "([[:space:]][#;].*)?$",
            REG_EXTENDED);
    regcomp(&re_option,
            "^[[:space:]]*([0-9A-Za-z_.-]+)[[:space:]]*=[[:space:]]*([^#;]*)[[:space:]]*"
            "([[:space:]][#;].*)?$",
            REG_EXTENDED);
    regcomp(&re_empty, "^[[:space:]]*([#;].*)?$", REG_EXTENDED);

    free(cfg->text);
    cfg->text = strdup(text);
    char *copy = strdup(text);
    if (!cfg->text || !copy)
        ios_fatal("out of memory");
    int rc = 0, line_no = 0, section = -1;
    char *save = NULL;
    /* strtok_r would skip empty lines and miscount; split by hand. */
    for (char *line = copy; line && rc == 0;) {
        char *next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        line_no++;
        size_t len = strlen(line);
        while (len > 0 && (line[len - 1] == '\r' || line[len - 1] == ' ' || line[len - 1] == '\t'))
            line[--len] = '\0';
        regmatch_t m[4];
        char name[256], value[4096];
        if (len >= sizeof value) { /* a value would not fit: refuse rather than cut it */
            snprintf(err, err_len, "%s:%d: line of %zu bytes (at most %zu)", cfg->filename, line_no,
                     len, sizeof value - 1);
            rc = -1;
        } else if (regexec(&re_empty, line, 0, NULL, 0) == 0) {
            /* blank or comment */
        } else if (regexec(&re_section, line, 4, m, 0) == 0) {
            group_text(line, m, 1, name, sizeof name);
            section = find_section(name);
            if (section < 0) {
                ios_config_unknown_section(cfg->filename, line_no, name, err, err_len);
                rc = -1;
            } else if (!cfg->seen[section]) {
                cfg->seen[section] = line_no;
            }
        } else if (regexec(&re_option, line, 4, m, 0) == 0) {
            group_text(line, m, 1, name, sizeof name);
            group_text(line, m, 2, value, sizeof value);
            size_t vlen = strlen(value);
            while (vlen > 0 && isspace((unsigned char)value[vlen - 1]))
                value[--vlen] = '\0';
            if (section < 0) {
                snprintf(err, err_len, "%s:%d: key '%s' appears before the first [section]",
                         cfg->filename, line_no, name);
                rc = -1;
            } else {
                rc = ios_config_set(cfg, table(section)->name, name, value, line_no, err, err_len);
            }
        } else {
            snprintf(err, err_len,
                     "%s:%d: cannot parse line '%.200s' (expected [section], "
                     "key = value, or a comment)",
                     cfg->filename, line_no, line);
            rc = -1;
        }
        line = next;
    }
    (void)save;
    free(copy);
    regfree(&re_section);
    regfree(&re_option);
    regfree(&re_empty);
    if (rc == 0)
        rc = semantic_checks(cfg, err, err_len);
    if (rc == 0)
        derive_odirect_apis(cfg);
    return rc;
}

static void lookup(const char *section, const char *key, int *s, int *o)
{
    *s = find_section(section);
    *o = *s >= 0 ? find_option(*s, key) : -1;
    if (*o < 0)
        ios_fatal("internal: option [%s] %s is not in the table", section, key);
}

const char *ios_cfg_str(const struct ios_config *cfg, const char *section, const char *key)
{
    int s, o;
    lookup(section, key, &s, &o);
    return cfg->values[s][o];
}

int ios_cfg_bool(const struct ios_config *cfg, const char *section, const char *key, int unset)
{
    const char *v = ios_cfg_str(cfg, section, key);
    if (!v)
        return unset;
    return strcmp(v, "TRUE") == 0;
}

int64_t ios_cfg_int(const struct ios_config *cfg, const char *section, const char *key,
                    int64_t unset)
{
    const char *v = ios_cfg_str(cfg, section, key);
    int64_t out;
    if (!v || ios_parse_int64(v, &out) != 0)
        return unset;
    return out;
}

uint64_t ios_cfg_size(const struct ios_config *cfg, const char *section, const char *key)
{
    uint64_t out = 0;
    if (ios_parse_size(ios_cfg_str(cfg, section, key), &out) != 0)
        return 0;
    return out;
}

/* Does this section have the option? (phase sections like [timestamp] have none) */
static int has_option(const char *section, const char *key)
{
    int s = find_section(section);
    return s >= 0 && find_option(s, key) >= 0;
}

const char *ios_cfg_api(const struct ios_config *cfg, const char *phase, const char *group)
{
    int s = phase ? find_section(phase) : -1;
    if (s >= 0 && cfg->odirect_api[s])
        return cfg->odirect_api[s];
    if (phase && has_option(phase, "API") && ios_cfg_str(cfg, phase, "API"))
        return ios_cfg_str(cfg, phase, "API");
    if (group && has_option(group, "API") && ios_cfg_str(cfg, group, "API"))
        return ios_cfg_str(cfg, group, "API");
    return ios_cfg_str(cfg, "global", "api");
}

/* run = FALSE, or the isc20/sc20 spelling noRun = TRUE, in this section. */
static int disabled_in(const struct ios_config *cfg, const char *section)
{
    if (has_option(section, "run") && !ios_cfg_bool(cfg, section, "run", 1))
        return 1;
    return has_option(section, "noRun") && ios_cfg_bool(cfg, section, "noRun", 0);
}

int ios_cfg_run(const struct ios_config *cfg, const char *phase, const char *group)
{
    return !(phase && disabled_in(cfg, phase)) && !(group && disabled_in(cfg, group));
}

int ios_cfg_has_option(const char *section, const char *key)
{
    return has_option(section, key);
}

int ios_cfg_line(const struct ios_config *cfg, const char *section, const char *key)
{
    int s, o;
    lookup(section, key, &s, &o);
    return cfg->lines[s][o];
}

/* Is section s a historical one of a family the INI names (so recorded with all its keys)? */
static int family_named(const struct ios_config *cfg, int s)
{
    for (int other = 0; other < N_SECTIONS; other++)
        if (table(other)->releases && strcmp(table(other)->releases, table(s)->releases) == 0 &&
            cfg->seen[other])
            return 1;
    return 0;
}

int ios_config_section_recorded(const struct ios_config *cfg, int s)
{
    return !table(s)->releases || family_named(cfg, s);
}

int ios_config_option_recorded(const struct ios_config *cfg, int s, int o)
{
    if (!ios_config_section_recorded(cfg, s))
        return 0;
    return !table(s)->options[o].releases || cfg->values[s][o] != NULL;
}

int ios_config_unrun_sections(const struct ios_config *cfg, char *buf, size_t len)
{
    int count = 0;
    size_t used = 0;
    buf[0] = '\0';
    for (int s = 0; s < N_SECTIONS; s++) {
        if (!cfg->seen[s] || (!table(s)->optional && !table(s)->releases))
            continue;
        int n = snprintf(buf + used, len - used, "%s[%s]", count ? ", " : "", table(s)->name);
        if (n > 0 && used + (size_t)n < len)
            used += (size_t)n;
        count++;
    }
    return count;
}

void ios_config_write_ini(const struct ios_config *cfg, FILE *out)
{
    for (int s = 0; s < N_SECTIONS; s++) {
        if (!ios_config_section_recorded(cfg, s))
            continue;
        fprintf(out, "[%s]\n", table(s)->name);
        for (int o = 0; o < table(s)->n_options; o++)
            if (ios_config_option_recorded(cfg, s, o))
                fprintf(out, "%s = %s\n", table(s)->options[o].name,
                        cfg->values[s][o] ? cfg->values[s][o] : "");
        fprintf(out, "\n");
    }
}

uint32_t ios_config_hash(const struct ios_config *cfg)
{
    uint32_t h = 0;
    for (int s = 0; s < N_SECTIONS; s++)
        for (int o = 0; o < table(s)->n_options; o++)
            if (cfg->values[s][o] && ios_config_option_recorded(cfg, s, o))
                h ^= ios_hash_kv(table(s)->options[o].name, cfg->values[s][o]);
    return h;
}

uint32_t ios_config_hash_ini_text(const char *text)
{
    uint32_t h = 0;
    const char *line = text;
    while (line && *line) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char buf[8192];
        if (len >= sizeof buf)
            len = sizeof buf - 1;
        memcpy(buf, line, len);
        buf[len] = '\0';
        while (len > 0 && (buf[len - 1] == '\r'))
            buf[--len] = '\0';
        char *eq = strstr(buf, " = ");
        if (buf[0] != '[' && buf[0] != '#' && buf[0] != ';' && eq) {
            *eq = '\0';
            const char *key = buf, *value = eq + 3;
            /* config.ini cannot tell "unset" from "": only these defaults are real "". */
            int empty_is_value =
                strcmp(key, "external-mpi-args") == 0 || strcmp(key, "external-extra-args") == 0;
            if (*value || empty_is_value)
                h ^= ios_hash_kv(key, value);
        }
        line = end ? end + 1 : NULL;
    }
    return h;
}

static const char *type_name(enum ios_opt_type t)
{
    switch (t) {
    case IOS_OPT_STRING:
        return "string";
    case IOS_OPT_INT:
        return "int";
    case IOS_OPT_UINT:
        return "uint";
    case IOS_OPT_UINT64:
        return "uint64";
    case IOS_OPT_FLOAT:
        return "float";
    case IOS_OPT_BOOL:
        return "bool";
    }
    return "?";
}

void ios_config_list(FILE *out)
{
    for (int s = 0; s < N_SECTIONS; s++) {
        if (table(s)->releases)
            fprintf(out, "[%s]  (historical: releases %s; read and recorded, never run)\n",
                    table(s)->name, table(s)->releases);
        else
            fprintf(out, "[%s]%s\n", table(s)->name,
                    table(s)->optional ? "  (optional: extended mode only)" : "");
        for (int o = 0; o < table(s)->n_options; o++) {
            const struct ios_option *opt = &table(s)->options[o];
            fprintf(out, "  %-20s %-7s default=%-12s %s", opt->name, type_name(opt->type),
                    opt->def ? (opt->def[0] ? opt->def : "\"\"") : "(unset)", opt->help);
            if (opt->releases)
                fprintf(out, "  (historical: releases %s)", opt->releases);
            fprintf(out, "\n");
        }
        fprintf(out, "\n");
    }
}
