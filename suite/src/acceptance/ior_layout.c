/*
 * IOR's -O file-system layout hints (see ioscore/ior_layout.h). A hint changes the workload
 * (a file striped over one OST is another test than one striped over all), so it is either
 * applied or refused before any I/O: never accepted and ignored. The file system is told by
 * the statfs magic of the test file's directory (the kernel's own answer, also through
 * symlinks and bind mounts); /proc/mounts only names it in the refusal.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ioscore/ior_layout.h"

extern char **environ;

enum fs { FS_LUSTRE, FS_BEEGFS };

/* The file systems with layout hints: statfs magic, and the tool that creates a file with one. */
static const struct {
    const char *name;
    unsigned long magic;
    const char *tool;
} file_systems[] = {
    [FS_LUSTRE] = {"Lustre", 0x0BD00BD0UL, "lfs"},        /* LL_SUPER_MAGIC */
    [FS_BEEGFS] = {"BeeGFS", 0x19830326UL, "beegfs-ctl"}, /* BEEGFS_MAGIC */
};

/* IOR's hint keys, each one option of its file system's tool. */
static const struct {
    const char *key;
    enum fs fs;
    const char *flag; /* the tool's option; ends in '=' when the value is attached */
    int is_size;      /* a size with IOR's k/m/g suffixes (passed on in bytes), else a count */
    long lo, hi;
} kinds[] = {
    {"lustreStripeCount", FS_LUSTRE, "-c", 0, -1, 65535}, /* -1: every OST */
    {"lustreStripeSize", FS_LUSTRE, "-S", 1, 0, 0},
    {"lustreStartOST", FS_LUSTRE, "-i", 0, -1, 65535},
    {"beegfsNumTargets", FS_BEEGFS, "--numtargets=", 0, 1, 65535},
    {"beegfsChunkSize", FS_BEEGFS, "--chunksize=", 1, 0, 0},
};
#define N_KINDS (int)(sizeof kinds / sizeof kinds[0])

int ios_ior_layout_set(void *params, const struct ios_cli_opt *o, const char *value, char *err,
                       size_t err_len)
{
    struct ios_ior_params *p = params;
    int k = 0;
    while (k < N_KINDS && !ios_streq_nocase(o->name, kinds[k].key))
        k++;
    if (k == N_KINDS) {
        snprintf(err, err_len, "internal: -O %s is not a layout hint", o->name);
        return -1;
    }
    char text[64];
    if (kinds[k].is_size) {
        uint64_t bytes;
        if (ios_parse_size(value, &bytes) != 0 || bytes == 0) {
            snprintf(err, err_len, "a size > 0 (digits with k, m or g)");
            return -1;
        }
        snprintf(text, sizeof text, "%llu", (unsigned long long)bytes);
    } else {
        char *end = NULL;
        long v = strtol(value, &end, 10);
        if (end == value || *end || v < kinds[k].lo || v > kinds[k].hi) {
            snprintf(err, err_len, "a number in %ld..%ld", kinds[k].lo, kinds[k].hi);
            return -1;
        }
        snprintf(text, sizeof text, "%ld", v);
    }
    int slot = 0; /* a repeated key: the last value counts, as in IOR */
    while (slot < p->n_hints && p->hints[slot].kind != k)
        slot++;
    if (slot == IOS_IOR_MAX_HINTS) {
        snprintf(err, err_len, "at most %d layout hints", IOS_IOR_MAX_HINTS);
        return -1;
    }
    if (slot == p->n_hints)
        p->n_hints++;
    p->hints[slot].kind = k;
    snprintf(p->hints[slot].value, sizeof p->hints[slot].value, "%s", text);
    return 0;
}

/* The type /proc/mounts gives the mount holding `dir` (the longest matching mount point). */
static void fs_type_name(const char *dir, char *out, size_t len)
{
    snprintf(out, len, "an unknown file system");
    char real[PATH_MAX];
    if (!realpath(dir, real))
        return;
    FILE *f = fopen("/proc/mounts", "r");
    if (!f)
        return;
    char line[2 * PATH_MAX], mnt[PATH_MAX], type[64];
    size_t best = 0;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "%*s %4095s %63s", mnt, type) != 2)
            continue;
        size_t n = strlen(mnt);
        int inside = strncmp(real, mnt, n) == 0 &&
                     (real[n] == '/' || real[n] == '\0' || strcmp(mnt, "/") == 0);
        if (inside && n >= best) {
            best = n;
            snprintf(out, len, "%s", type);
        }
    }
    fclose(f);
}

static int on_path(const char *tool)
{
    const char *path = getenv("PATH");
    char dirs[4096], file[PATH_MAX];
    snprintf(dirs, sizeof dirs, "%s", path ? path : "/usr/bin:/bin");
    char *save = NULL;
    for (char *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        snprintf(file, sizeof file, "%s/%s", d, tool);
        if (access(file, X_OK) == 0)
            return 1;
    }
    return 0;
}

int ios_ior_layout_check(const struct ios_ior_params *p)
{
    if (p->n_hints == 0)
        return 0;
    char copy[IOS_PATH_MAX];
    snprintf(copy, sizeof copy, "%s", p->test_file);
    const char *dir = dirname(copy);
    struct statfs st;
    int have_statfs = statfs(dir, &st) == 0;
    for (int i = 0; i < p->n_hints; i++) {
        const char *key = kinds[p->hints[i].kind].key, *value = p->hints[i].value;
        enum fs fs = kinds[p->hints[i].kind].fs;
        if (!have_statfs || (unsigned long)st.f_type != file_systems[fs].magic) {
            char type[64], real[PATH_MAX];
            fs_type_name(dir, type, sizeof type);
            if (realpath(dir, real))
                dir = real;
            fprintf(stderr,
                    "ioscore-suite ior: ERROR: -O %s=%s: %s is on %s, not %s: the layout "
                    "cannot be applied (IOR without %s support refuses it too)\n",
                    key, value, dir, type, file_systems[fs].name, file_systems[fs].name);
            return -1;
        }
        if (!on_path(file_systems[fs].tool)) {
            fprintf(stderr,
                    "ioscore-suite ior: ERROR: -O %s=%s: %s is on %s but its tool %s is not "
                    "on PATH to apply the layout\n",
                    key, value, dir, file_systems[fs].name, file_systems[fs].tool);
            return -1;
        }
    }
    return 0;
}

int ios_ior_layout_apply(const struct ios_ior_params *p, const char *path, char *why,
                         size_t why_len)
{
    if (p->n_hints == 0)
        return 0;
    enum fs fs = kinds[p->hints[0].kind].fs; /* one file system per directory */
    char args[IOS_IOR_MAX_HINTS][2][80];
    char *argv[4 + 2 * IOS_IOR_MAX_HINTS];
    int n = 0;
    argv[n++] = (char *)file_systems[fs].tool;
    argv[n++] = fs == FS_LUSTRE ? "setstripe" : "--createfile";
    for (int i = 0; i < p->n_hints; i++) {
        const char *flag = kinds[p->hints[i].kind].flag;
        if (flag[strlen(flag) - 1] == '=') { /* --numtargets=N */
            snprintf(args[i][0], sizeof args[i][0], "%s%s", flag, p->hints[i].value);
            argv[n++] = args[i][0];
        } else { /* -c N */
            snprintf(args[i][0], sizeof args[i][0], "%s", flag);
            snprintf(args[i][1], sizeof args[i][1], "%s", p->hints[i].value);
            argv[n++] = args[i][0];
            argv[n++] = args[i][1];
        }
    }
    argv[n++] = (char *)path;
    argv[n] = NULL;
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ);
    if (rc != 0) {
        snprintf(why, why_len, "cannot run %s: %s", argv[0], strerror(rc));
        return -1;
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        snprintf(why, why_len, "%s %s %s failed (status %d)", argv[0], argv[1], path,
                 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        return -1;
    }
    return 0;
}
