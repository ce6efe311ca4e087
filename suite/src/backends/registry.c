/* Backend selection from an API string and the phase's INI keys; see include/ioscore/backend.h. */
#include <stdio.h>
#include <string.h>

#include "ioscore/backend.h"
#include "ioscore/config.h"
#include "ioscore/util.h"

static const struct ios_backend_ops *const all_backends[] = {
    &ios_backend_posix,
    &ios_backend_mpiio,
    &ios_backend_dummy,
#ifdef IOS_HAVE_LIBURING
    &ios_backend_iouring,
#endif
};
#define N_BACKENDS (sizeof all_backends / sizeof all_backends[0])

const char *ios_backends_optional(void)
{
#ifdef IOS_HAVE_LIBURING
    return "IOURING";
#else
    return "";
#endif
}

/* Backends and options of the reference (IOR) that need client libraries this build lacks. */
struct unavailable {
    const char *name; /* backend name, or option prefix when it starts with "--" */
    const char *needs;
};

static const struct unavailable unavailable[] = {
    {"DFS", "a build against the DAOS client libraries (libdfs, libdaos)"},
    {"DAOS", "a build against the DAOS client libraries (libdaos)"},
    {"IME", "a build against DDN's IME native client (libim_client)"},
    {"CHFS", "a build against the CHFS client library (libchfs)"},
    {"FINCHFS", "a build against the FINCHFS client library (libfinchfs)"},
    {"Gfarm", "a build against the Gfarm client library (libgfarm)"},
    {"HDF5", "a build against parallel HDF5 (libhdf5)"},
    {"NCMPI", "a build against PnetCDF (libpnetcdf)"},
    {"HDFS", "a build against libhdfs"},
    {"RADOS", "a build against librados"},
    {"CEPHFS", "a build against libcephfs"},
    {"S3", "a build against an S3 client library (libs3 or aws4c)"},
    {"S3-4c", "a build against aws4c"},
    {"S3-libs3", "a build against libs3"},
    {"PMDK", "a build against PMDK (libpmem)"},
    {"AIO", "a build against libaio"},
#ifndef IOS_HAVE_LIBURING
    {"IOURING", "a build with liburing (Debian: liburing-dev; make IOURING=yes)"},
#endif
    {"MMAP", "IOR's MMAP backend, which ioscore does not implement (use POSIX)"},
    {"GPUDirect", "a build against NVIDIA GPUDirect Storage (libcufile)"},
    {"libnfs", "a build against libnfs"},
    {"--posix.gpfs.", "a build against the GPFS client library (gpfs.h, libgpfs)"},
    {"--posix.lustre.", "a build against the Lustre client API (lustre/lustreapi.h, liblustreapi)"},
    {"--posix.beegfs.", "a build against the BeeGFS client library (libbeegfs)"},
    {"--gpfs.", "a build against the GPFS client library (gpfs.h, libgpfs)"},
    {"--lustre.", "a build against the Lustre client API (liblustreapi)"},
    {"--beegfs.", "a build against the BeeGFS client library (libbeegfs)"},
    {"--dfs.", "a build against the DAOS client libraries (libdfs, libdaos)"},
};
#define N_UNAVAILABLE (sizeof unavailable / sizeof unavailable[0])

/*
 * Options of IOR modules that never act on the selected backend. IOR parses every module's
 * options whatever the API, so real POSIX configs carry them; they change nothing there. The
 * same holds for the options of our other backends (--posix.odirect with MPIIO).
 */
static const char *const inert_prefixes[] = {"--aio."};

/* Splits at spaces; "\ " keeps a space inside a word. Returns the word count. */
static int split_words(const char *text, char *storage, size_t storage_len, char **words,
                       int max_words)
{
    int n = 0;
    size_t out = 0;
    const char *p = text;
    while (*p && n < max_words) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            break;
        words[n++] = storage + out;
        while (*p && *p != ' ' && *p != '\t' && out + 1 < storage_len) {
            if (p[0] == '\\' && p[1] == ' ')
                p++;
            storage[out++] = *p++;
        }
        storage[out++] = '\0';
        if (out >= storage_len)
            break;
    }
    return n;
}

static const struct ios_backend_ops *find_backend(const char *name)
{
    for (size_t i = 0; i < N_BACKENDS; i++)
        if (ios_streq_nocase(all_backends[i]->name, name))
            return all_backends[i];
    return NULL;
}

static const struct unavailable *find_unavailable(const char *word)
{
    for (size_t i = 0; i < N_UNAVAILABLE; i++) {
        const char *name = unavailable[i].name;
        if (strncmp(name, "--", 2) == 0 ? strncmp(word, name, strlen(name)) == 0
                                        : ios_streq_nocase(word, name))
            return &unavailable[i];
    }
    return NULL;
}

static void list_options(const struct ios_backend_ops *ops, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (const struct ios_backend_option *o = ops->options; o && o->name; o++) {
        int n = snprintf(buf + used, len - used, "%s%s%s%s", used ? ", " : "", o->name,
                         o->value ? "=" : "", o->value ? o->value : "");
        if (n < 0 || (size_t)n >= len - used)
            break;
        used += (size_t)n;
    }
    if (!used)
        snprintf(buf, len, "none");
}

/* Is `word` ("--name" or "--name=value") an option in the backend's table, in the right form? */
static int check_option(const struct ios_backend_ops *ops, const char *word, const char *api,
                        char *err, size_t err_len)
{
    const char *eq = strchr(word, '=');
    size_t name_len = eq ? (size_t)(eq - word) : strlen(word);
    for (const struct ios_backend_option *o = ops->options; o && o->name; o++) {
        if (strlen(o->name) != name_len || strncmp(o->name, word, name_len) != 0)
            continue;
        if (o->value && (!eq || !eq[1])) {
            snprintf(err, err_len, "%s backend option %s needs a value: %s=%s (in API '%s')",
                     ops->name, o->name, o->name, o->value, api);
            return -1;
        }
        return 0;
    }
    const struct unavailable *u = find_unavailable(word);
    char supported[512];
    list_options(ops, supported, sizeof supported);
    if (u)
        snprintf(err, err_len,
                 "%s backend option '%s' (in API '%s') needs %s; this build supports: %s",
                 ops->name, word, api, u->needs, supported);
    else
        snprintf(err, err_len, "unknown %s backend option '%s' in API '%s' (supported: %s)",
                 ops->name, word, api, supported);
    return -1;
}

/* Does the option word name an option in the table of `ops`? */
static int in_table(const struct ios_backend_ops *ops, const char *word)
{
    size_t name_len = strcspn(word, "=");
    for (const struct ios_backend_option *o = ops->options; o && o->name; o++)
        if (strlen(o->name) == name_len && strncmp(o->name, word, name_len) == 0)
            return 1;
    return 0;
}

/* An option of another module (IOR accepts every module's options whatever the API). */
static int is_inert(const struct ios_backend_ops *selected, const char *word)
{
    for (size_t i = 0; i < sizeof inert_prefixes / sizeof inert_prefixes[0]; i++)
        if (strncmp(word, inert_prefixes[i], strlen(inert_prefixes[i])) == 0)
            return 1;
    for (size_t i = 0; i < N_BACKENDS; i++)
        if (all_backends[i] != selected && in_table(all_backends[i], word))
            return 1;
    return 0;
}

/* The option words of an API string, split in `storage` (escaped spaces kept). */
struct api_words {
    char storage[1024];
    char *opts[32];
    int n_opts;
};

/* Splits and checks the API string: be->api and be->ops set, the options left in `w`. */
static int parse_api(const char *api, struct ios_backend *be, struct api_words *w, char *err,
                     size_t err_len)
{
    memset(be, 0, sizeof *be);
    snprintf(be->api, sizeof be->api, "%s", api ? api : "POSIX");
    char *words[32];
    int n = split_words(be->api, w->storage, sizeof w->storage, words, 32);
    const char *name = n > 0 ? words[0] : "POSIX";
    const struct ios_backend_ops *ops = find_backend(name);
    if (!ops) {
        const struct unavailable *u = find_unavailable(name);
        char names[128] = "";
        for (size_t i = 0; i < N_BACKENDS; i++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "",
                     all_backends[i]->name);
        if (u)
            snprintf(err, err_len,
                     "backend '%s' (API '%s') is not available in this build: it needs %s "
                     "(available: %s)",
                     name, be->api, u->needs, names);
        else
            snprintf(err, err_len, "unknown backend '%s' in API '%s' (available: %s)", name,
                     be->api, names);
        return -1;
    }
    w->n_opts = 0;
    for (int i = 1; i < n; i++) {
        if (is_inert(ops, words[i]))
            continue;
        if (check_option(ops, words[i], be->api, err, err_len) != 0)
            return -1;
        w->opts[w->n_opts++] = words[i];
    }
    be->ops = ops;
    be->alignment = 8;
    return 0;
}

int ios_backend_create(const char *api, struct ios_backend *be, char *err, size_t err_len)
{
    struct api_words w;
    if (parse_api(api, be, &w, err, err_len) != 0)
        return -1;
    return be->ops->init(be, w.n_opts, w.opts, err, err_len);
}

/* The option's value when `section` has `key` in the table and it is set, else NULL. */
static const char *section_value(const struct ios_config *cfg, const char *section, const char *key)
{
    if (!section)
        return NULL;
    int n = 0;
    const struct ios_section *sections = ios_config_sections(&n);
    for (int s = 0; s < n; s++) {
        if (strcmp(sections[s].name, section) != 0)
            continue;
        for (int o = 0; o < sections[s].n_options; o++)
            if (strcmp(sections[s].options[o].name, key) == 0)
                return ios_cfg_str(cfg, section, key);
    }
    return NULL;
}

/* The phase's value of `key`, else the group's (IO500: the phase section overrides). */
static const char *phase_value(const struct ios_config *cfg, const char *phase, const char *group,
                               const char *key)
{
    const char *v = section_value(cfg, phase, key);
    if (v && *v)
        return v;
    v = section_value(cfg, group, key);
    return v && *v ? v : NULL;
}

/* Is the option `name` among the words of the API string? */
static int given(const struct api_words *w, const char *name)
{
    size_t len = strlen(name);
    for (int i = 0; i < w->n_opts; i++)
        if (strncmp(w->opts[i], name, len) == 0 &&
            (w->opts[i][len] == '\0' || w->opts[i][len] == '='))
            return 1;
    return 0;
}

int ios_backend_for_phase(const struct ios_config *cfg, const char *phase, const char *group,
                          struct ios_backend *be, char *err, size_t err_len)
{
    struct api_words w;
    if (parse_api(ios_cfg_api(cfg, phase, group), be, &w, err, err_len) != 0)
        return -1;
    /* the INI keys the backend's option table maps to its options */
    char from_ini[8][IOS_PATH_MAX + 64];
    int n_ini = 0;
    for (const struct ios_backend_option *o = be->ops->options; o && o->name; o++) {
        const char *v = o->ini_key ? phase_value(cfg, phase, group, o->ini_key) : NULL;
        if (!v || given(&w, o->name) || n_ini >= 8 || w.n_opts >= 32)
            continue;
        if (!o->value && strcmp(v, "TRUE") != 0)
            continue; /* a flag the INI leaves off */
        snprintf(from_ini[n_ini], sizeof from_ini[0], "%s%s%s", o->name, o->value ? "=" : "",
                 o->value ? v : "");
        w.opts[w.n_opts++] = from_ini[n_ini++];
    }
    if (be->ops->init(be, w.n_opts, w.opts, err, err_len) != 0)
        return -1;
    const char *collective = phase_value(cfg, phase, group, "collective");
    if (collective && strcmp(collective, "TRUE") == 0)
        (void)ios_backend_set_collective(be); /* IOR: "collective not available in POSIX" */
    return 0;
}

int ios_backend_check(const char *api, char *err, size_t err_len)
{
    struct ios_backend be;
    return ios_backend_create(api, &be, err, err_len);
}

void ios_backend_list(FILE *out)
{
    /* comment lines: the listing stays a valid INI text */
    fprintf(out, "; backends of this build (API = NAME [--option[=VALUE] ...]):\n");
    for (size_t i = 0; i < N_BACKENDS; i++) {
        const struct ios_backend_ops *ops = all_backends[i];
        fprintf(out, ";   %s\n", ops->name);
        for (const struct ios_backend_option *o = ops->options; o && o->name; o++) {
            char form[128];
            snprintf(form, sizeof form, "%s%s%s", o->name, o->value ? "=" : "",
                     o->value ? o->value : "");
            fprintf(out, ";     %-28s %s%s%s%s\n", form, o->help, o->ini_key ? " (INI key " : "",
                    o->ini_key ? o->ini_key : "", o->ini_key ? ")" : "");
        }
    }
    fprintf(out, "; backends and options of the reference that this build cannot offer:\n");
    for (size_t i = 0; i < N_UNAVAILABLE; i++)
        fprintf(out, ";   %-28s needs %s\n", unavailable[i].name, unavailable[i].needs);
}
