/* Backend registry: option tables, refusals of unavailable backends, MPI-IO hints files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "ioscore/backend.h"
#include "ioscore/config.h"

static char err[1024];

static int create(const char *api, struct ios_backend *be)
{
    err[0] = '\0';
    return ios_backend_create(api, be, err, sizeof err);
}

/* The option values, as generic code sees them: through the backend's queries. */
static int direct(const struct ios_backend *be)
{
    return (ios_backend_modes(be) & IOS_MODE_DIRECT) != 0;
}

static int collective(const struct ios_backend *be)
{
    return (ios_backend_modes(be) & IOS_MODE_COLLECTIVE) != 0;
}

static int n_hints(const struct ios_backend *be)
{
    const struct ios_hint *hints;
    return ios_backend_hints(be, &hints);
}

/* The i-th MPI-IO hint is key=value. */
static int hint_is(const struct ios_backend *be, int i, const char *key, const char *value)
{
    const struct ios_hint *hints;
    int n = ios_backend_hints(be, &hints);
    return i < n && strcmp(hints[i].key, key) == 0 &&
           (!value || strcmp(hints[i].value, value) == 0);
}

/* A scratch file in /dev/shm (or TMPDIR) holding `text`; returns its path in `path`. */
static void scratch_file(char *path, size_t len, const char *text)
{
    const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(path, len, "%s/ioscore-test-hints-XXXXXX", dir);
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    CHECK(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
    close(fd);
}

int main(void)
{
    struct ios_backend be;
    char path[256], api[512];

    /* the built-in backends and their published options */
    CHECK(create("POSIX", &be) == 0 && be.ops == &ios_backend_posix && !direct(&be));
    CHECK(create("posix --posix.odirect", &be) == 0 && direct(&be) && be.alignment == 4096);
    struct ios_backend copy = be; /* phases get the backend by value: the values go along */
    CHECK(direct(&copy) && !collective(&copy));
    CHECK(create("POSIX --posix.odirect=1", &be) == 0 && direct(&be));
    CHECK(create("POSIX --posix.odirect=0", &be) == 0 && !direct(&be));
    CHECK(create("POSIX --posix.odirect=maybe", &be) != 0);
    CHECK_STR_CONTAINS(err, "--posix.odirect=maybe");
    CHECK(create("MPIIO", &be) == 0 && be.ops == &ios_backend_mpiio && n_hints(&be) == 0);
    CHECK(!direct(&be) && !collective(&be));
    CHECK(ios_backend_set_collective(&be) == 0 && collective(&be) && !be.ignored_caps);
    CHECK((be.ops->caps & IOS_CAP_COLLECTIVE) && (be.ops->caps & IOS_CAP_STORES_DATA));
    CHECK(create("DUMMY", &be) == 0 && be.ops == &ios_backend_dummy);
    CHECK(ios_backend_modes(&be) == 0 && n_hints(&be) == 0);
    CHECK(ios_backend_set_collective(&be) != 0 && !collective(&be));
    CHECK(be.ignored_caps == IOS_CAP_COLLECTIVE);
    CHECK(create("POSIX --posix.bogus", &be) != 0);
    CHECK_STR_CONTAINS(err, "unknown POSIX backend option '--posix.bogus'");
    CHECK_STR_CONTAINS(err, "--posix.odirect");
    CHECK(create("MPIIO --mpiio.hintsFileName", &be) != 0);
    CHECK_STR_CONTAINS(err, "needs a value");

    /* reference backends and options that need client libraries: refused, naming the build */
    CHECK(create("DFS --dfs.pool=tank --dfs.cont=c", &be) != 0);
    CHECK_STR_CONTAINS(err, "backend 'DFS'");
    CHECK_STR_CONTAINS(err, "libdfs");
    CHECK(ios_backend_check("IME", err, sizeof err) != 0);
    CHECK_STR_CONTAINS(err, "IME native client");
    CHECK(ios_backend_check("Gfarm", err, sizeof err) != 0);
    CHECK_STR_CONTAINS(err, "libgfarm");
    CHECK(ios_backend_check("CHFS", err, sizeof err) != 0);
    CHECK(ios_backend_check("POSIX --posix.gpfs.finegrainwritesharing", err, sizeof err) != 0);
    CHECK_STR_CONTAINS(err, "GPFS client library");
    CHECK(ios_backend_check("POSIX --posix.lustre.stripecount=4", err, sizeof err) != 0);
    CHECK_STR_CONTAINS(err, "liblustreapi");
    CHECK(ios_backend_check("POSIX --posix.beegfs.chunkSize=1m", err, sizeof err) != 0);
    CHECK_STR_CONTAINS(err, "BeeGFS");
    CHECK(ios_backend_check("NOSUCH", err, sizeof err) != 0);
    CHECK_STR_CONTAINS(err, "unknown backend 'NOSUCH'");
    CHECK_STR_CONTAINS(err, "POSIX, MPIIO, DUMMY");
    /* IOR parses AIO module options whatever the API; they never act on POSIX I/O */
    CHECK(ios_backend_check("POSIX --aio.max-pending=128 --aio.granularity=8", err, sizeof err) ==
          0);
    CHECK(create("MPIIO --posix.odirect", &be) == 0 && !direct(&be) && be.alignment == 8);
    CHECK(create("POSIX --mpiio.hintsFileName=/nonexistent", &be) == 0 && n_hints(&be) == 0);

    /* IOR hints file: IOR_HINT__MPI__ and IOR_HINT__GPFS__ lines, anything else ignored */
    scratch_file(path, sizeof path,
                 "# comment\nIOR_HINT__MPI__romio_cb_write=enable\nIOR_HINT__MPI__cb_nodes=2 "
                 "trailing\nIOR_HINT__GPFS__important_hint=true\nstriping_factor=4\n");
    snprintf(api, sizeof api, "MPIIO --mpiio.hintsFileName=%s", path);
    CHECK(create(api, &be) == 0);
    CHECK(n_hints(&be) == 3);
    CHECK(hint_is(&be, 0, "romio_cb_write", "enable"));
    CHECK(hint_is(&be, 1, "cb_nodes", "2"));
    CHECK(hint_is(&be, 2, "important_hint", "true"));
    unlink(path);
    scratch_file(path, sizeof path, "IOR_HINT__MPI__romio_cb_write=enable\nIOR_HINT__XFS__a=1\n");
    snprintf(api, sizeof api, "MPIIO --mpiio.hintsFileName=%s", path);
    CHECK(create(api, &be) != 0);
    CHECK_STR_CONTAINS(err, ":2: bad MPI-IO hint 'IOR_HINT__XFS__a=1'");
    unlink(path);
    CHECK(create(api, &be) != 0); /* the file is gone */
    CHECK_STR_CONTAINS(err, "No such file or directory");
    /* hints from the environment come first, as in IOR */
    setenv("IOR_HINT__MPI__striping_unit", "1048576", 1);
    CHECK(create("MPIIO", &be) == 0 && n_hints(&be) == 1);
    CHECK(hint_is(&be, 0, "striping_unit", "1048576"));
    unsetenv("IOR_HINT__MPI__striping_unit");

    /* a phase's backend: `collective` of the phase or its group; ignored by POSIX as in IOR */
    struct ios_config cfg;
    ios_config_init(&cfg, "t.ini");
    CHECK(ios_config_parse(&cfg,
                           "[global]\ndatadir = /nonexistent\n[ior-hard]\nAPI = MPIIO\n"
                           "collective = TRUE\n[ior-hard-read]\ncollective = FALSE\n"
                           "[ior-easy]\nAPI = POSIX\n",
                           err, sizeof err) == 0);
    CHECK(ios_backend_for_phase(&cfg, "ior-hard-write", "ior-hard", &be, err, sizeof err) == 0);
    CHECK(be.ops == &ios_backend_mpiio && collective(&be));
    CHECK(ios_backend_for_phase(&cfg, "ior-hard-read", "ior-hard", &be, err, sizeof err) == 0);
    CHECK(be.ops == &ios_backend_mpiio && !collective(&be));
    CHECK(ios_backend_for_phase(&cfg, "ior-easy-write", "ior-easy", &be, err, sizeof err) == 0);
    CHECK(be.ops == &ios_backend_posix && !collective(&be) && !be.ignored_caps);
    ios_config_free(&cfg);
    ios_config_init(&cfg, "t.ini");
    CHECK(ios_config_parse(&cfg, "[global]\ndatadir = /x\n[ior-hard]\ncollective = TRUE\n", err,
                           sizeof err) == 0);
    CHECK(ios_backend_for_phase(&cfg, "ior-hard-write", "ior-hard", &be, err, sizeof err) == 0);
    CHECK(be.ops == &ios_backend_posix && !collective(&be));
    CHECK(be.ignored_caps == IOS_CAP_COLLECTIVE);
    ios_config_free(&cfg);

    /* --list shows every backend's options and what the others need */
    char *listing = NULL;
    size_t listing_len = 0;
    FILE *out = open_memstream(&listing, &listing_len);
    ios_backend_list(out);
    fclose(out);
    CHECK_STR_CONTAINS(listing, "MPIIO");
    CHECK_STR_CONTAINS(listing, "--mpiio.hintsFileName=FILE");
    CHECK_STR_CONTAINS(listing, "--posix.odirect");
    CHECK_STR_CONTAINS(listing, "DFS");
    free(listing);
    return check_finish();
}
