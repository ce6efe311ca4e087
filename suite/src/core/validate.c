/*
 * The pre-I/O checks shared by the real run and --dry-run; see ios_run_validate in run.h.
 * Nothing here creates, writes or removes a file.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ioscore/backend.h"
#include "ioscore/run.h"

/* Is `name` the top-level directory some standard phase creates (a site may pre-create it)? */
static int is_phase_top_dir(const char *name)
{
    int n = 0;
    const struct ios_phase *const *phases = ios_standard_phases(&n);
    for (int i = 0; i < n; i++)
        if (phases[i]->top_dir && strcmp(phases[i]->top_dir, name) == 0)
            return 1;
    return 0;
}

/*
 * The data directory must be new, ours (marker file), or hold only the phases' top-level
 * directories a site may pre-create for striping. Anything else: refuse before any I/O.
 */
static int check_datadir(const struct ios_run *run, char *err, size_t err_len)
{
    DIR *dir = opendir(run->datadir);
    if (!dir) {
        if (errno == ENOENT)
            return 0;
        snprintf(err, err_len, "cannot open data directory %s: %s", run->datadir, strerror(errno));
        return -1;
    }
    char marker[IOS_PATH_MAX];
    ios_path(marker, sizeof marker, "%s/%s", run->datadir, IOS_MARKER_NAME);
    int ours = access(marker, F_OK) == 0;
    int rc = 0;
    struct dirent *e;
    while (!ours && rc == 0 && (e = readdir(dir)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (!is_phase_top_dir(e->d_name)) {
            snprintf(err, err_len,
                     "data directory %s is not empty (found '%s') and has no %s "
                     "marker of an earlier ioscore run; refusing to write into it",
                     run->datadir, e->d_name, IOS_MARKER_NAME);
            rc = -1;
        }
    }
    closedir(dir);
    return rc;
}

/* Result files we would overwrite: refuse unless the directory is new. */
static int check_resdir(const struct ios_run *run, char *err, size_t err_len)
{
    static const char *outputs[] = {"result.txt", "result_summary.txt", "result.json"};
    for (int i = 0; i < 3; i++) {
        char path[IOS_PATH_MAX];
        ios_path(path, sizeof path, "%s/%s", run->resdir, outputs[i]);
        if (access(path, F_OK) == 0) {
            snprintf(err, err_len,
                     "result directory %s already holds %s; refusing to "
                     "overwrite it (use timestamp-resultdir = TRUE or another resultdir)",
                     run->resdir, outputs[i]);
            return -1;
        }
    }
    return 0;
}

/*
 * The run creates `path` with mkdir -p: its nearest existing ancestor (or the path itself)
 * must be a directory we may write into.
 */
static int check_creatable(const char *what, const char *path, char *err, size_t err_len)
{
    char probe[IOS_PATH_MAX];
    ios_path(probe, sizeof probe, "%s", path);
    struct stat st;
    while (stat(probe, &st) != 0) {
        if (errno != ENOENT && errno != ENOTDIR) {
            snprintf(err, err_len, "%s %s: cannot check %s: %s", what, path, probe,
                     strerror(errno));
            return -1;
        }
        char *slash = strrchr(probe, '/');
        if (!slash) {
            ios_path(probe, sizeof probe, ".");
        } else if (slash == probe) {
            probe[1] = '\0';
        } else {
            *slash = '\0';
        }
    }
    int problem = !S_ISDIR(st.st_mode) ? ENOTDIR : access(probe, W_OK | X_OK) != 0 ? EACCES : 0;
    if (problem) {
        snprintf(err, err_len, "cannot create %s %s: %s: %s", what, path, probe, strerror(problem));
        return -1;
    }
    return 0;
}

static int check_directories(const struct ios_run *run, char *err, size_t err_len)
{
    if (check_creatable("result directory", run->resdir, err, err_len) != 0 ||
        check_creatable("data directory", run->datadir, err, err_len) != 0)
        return -1;
    if (check_datadir(run, err, err_len) != 0)
        return -1;
    return check_resdir(run, err, err_len);
}

/*
 * Backend, its options, hints file and GPU buffers for one phase that runs. `collective = TRUE`
 * on a backend without collective I/O is not an error: IOR warns and runs independent I/O, so
 * configs written for IOR keep running (said once per run).
 */
static int check_phase_backend(const struct ios_run *run, const struct ios_phase *p,
                               int *collective_warned, char *err, size_t err_len)
{
    const struct ios_config *cfg = &run->cfg;
    struct ios_backend be;
    char why[IOS_MSG_MAX];
    if (ios_backend_for_phase(cfg, p->name, p->group, &be, why, sizeof why) != 0) {
        snprintf(err, err_len, "%s: [%s] API: %s", cfg->filename, p->name, why);
        return -1;
    }
    if ((be.ignored_caps & IOS_CAP_COLLECTIVE) && !*collective_warned && run->rank == 0) {
        fprintf(stderr,
                "ioscore-suite: WARNING: %s: [%s] collective = TRUE: collective I/O is not "
                "available with API %s; the phase runs independent I/O (as IOR does)\n",
                cfg->filename, p->name, be.ops->name);
        *collective_warned = 1;
    }
    if (cfg->opt.global.io_buffers_on_gpu && !(be.ops->caps & IOS_CAP_GPU_BUFFERS)) {
        snprintf(err, err_len,
                 "%s: [global] io-buffers-on-gpu = TRUE: backend '%s' (phase %s) cannot use "
                 "GPU buffers in this build",
                 cfg->filename, be.ops->name, p->name);
        return -1;
    }
    return 0;
}

/* mdtest -I: n / files-per-dir full directories, so it must divide n. */
static int check_files_per_dir(const struct ios_config *cfg, char *err, size_t err_len)
{
    uint64_t per_dir = cfg->opt.mdtest_hard.files_per_dir;
    if (per_dir > 0 && cfg->opt.mdtest_hard.n % per_dir != 0) {
        snprintf(err, err_len,
                 "%s: [mdtest-hard] files-per-dir must divide n: mdtest creates "
                 "n / files-per-dir full directories",
                 cfg->filename);
        return -1;
    }
    return 0;
}

int ios_run_validate(struct ios_run *run)
{
    char err[IOS_PATH_MAX * 3] = "";
    int rc = check_files_per_dir(&run->cfg, err, sizeof err);
    int n = 0, collective_warned = 0;
    const struct ios_phase *const *phases = ios_standard_phases(&n);
    for (int i = 0; i < n && rc == 0; i++)
        if (ios_cfg_run(&run->cfg, phases[i]->name, phases[i]->group))
            rc = check_phase_backend(run, phases[i], &collective_warned, err, sizeof err);
    /* the file system is rank 0's view, as when it creates the directories */
    if (rc == 0 && run->rank == 0)
        rc = check_directories(run, err, sizeof err);
    MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, ios_test_comm);
    if (rc != 0) {
        if (run->rank == 0)
            fprintf(stderr, "ioscore-suite: ERROR: %s\n", err);
        return 2;
    }
    char unrun[2048];
    if (run->rank == 0 && ios_config_unrun_sections(&run->cfg, unrun, sizeof unrun) > 0)
        fprintf(stderr,
                "ioscore-suite: NOTE: %s: read and recorded but not run in standard mode: %s\n",
                run->cfg.filename, unrun);
    return 0;
}
