/*
 * Removal by known names for the phases' cleanup and sweep hooks: unlink and rmdir of names a
 * phase knows it created, never a recursive removal (BENCHMARK-RULES §1.5).
 */
#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ioscore/run.h"

void ios_remove_known(const struct ios_run *run, struct ios_backend *be, const char *path,
                      int is_dir)
{
    int rc = is_dir ? be->ops->rmdir(be, path) : be->ops->unlink(be, path);
    if (rc != 0 && rc != -ENOENT && run->verbosity > 0)
        fprintf(stderr, "ioscore-suite: rank %d: WARNING: cannot remove %s: %s\n", run->rank, path,
                strerror(-rc));
}

int ios_name_numbered(const char *name, const char *prefix, int parts)
{
    size_t len = strlen(prefix);
    if (strncmp(name, prefix, len) != 0)
        return 0;
    const char *p = name + len;
    for (int part = 0; part < parts; part++) {
        if (part > 0) {
            if (*p != '.')
                return 0;
            p++;
        }
        if (*p < '0' || *p > '9')
            return 0;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    return *p == '\0';
}

long ios_sweep_files(const char *dir, int (*ours)(const char *name))
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    long removed = 0;
    struct dirent *e;
    char path[IOS_PATH_MAX];
    while ((e = readdir(d)) != NULL) {
        if (!ours(e->d_name))
            continue;
        ios_path(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && unlink(path) == 0)
            removed++;
    }
    closedir(d);
    return removed;
}

void ios_rmdir_quiet(const char *path, int verbose)
{
    if (rmdir(path) != 0 && errno != ENOENT && verbose)
        fprintf(stderr, "ioscore-suite: kept %s: %s\n", path, strerror(errno));
}

long ios_sweep_numbered_dirs(const char *dir, const char *prefix, int parts,
                             int (*ours)(const char *name), int verbose)
{
    long removed = 0;
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    struct dirent *e;
    char path[IOS_PATH_MAX];
    while ((e = readdir(d)) != NULL) {
        if (!ios_name_numbered(e->d_name, prefix, parts))
            continue;
        ios_path(path, sizeof path, "%s/%s", dir, e->d_name);
        removed += ios_sweep_files(path, ours);
        ios_rmdir_quiet(path, verbose);
    }
    closedir(d);
    return removed;
}
