/* Backend registry: option tables, refusals of unavailable backends, MPI-IO hints files. */
#include <errno.h>
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

#ifdef IOS_HAVE_LIBURING
/* io_uring: options and bounds, queued transfers land at their offsets, short reads surface. */
static void test_iouring(void)
{
    struct ios_backend be;
    CHECK(create("IOURING", &be) == 0 && be.ops == &ios_backend_iouring && !direct(&be));
    CHECK(be.ops->depth(&be) == 16 && (be.ops->caps & IOS_CAP_ASYNC));
    CHECK(create("IOURING --iouring.depth=8 --iouring.odirect", &be) == 0);
    CHECK(be.ops->depth(&be) == 8 && direct(&be) && be.alignment == 4096);
    CHECK(create("IOURING --iouring.depth=0", &be) != 0);
    CHECK_STR_CONTAINS(err, "1..4096");
    CHECK(create("IOURING --iouring.depth=4097", &be) != 0);
    CHECK(create("IOURING --iouring.depth", &be) != 0);
    CHECK_STR_CONTAINS(err, "needs a value");
    CHECK(create("IOURING --iouring.depth=4", &be) == 0);

    char path[256];
    scratch_file(path, sizeof path, "");
    int64_t h = -1;
    CHECK(be.ops->open(&be, path, IOS_OPEN_READ | IOS_OPEN_WRITE, &h) == 0);
    /* 8 blocks of 4 KiB queued in reverse order, 4 in flight at most */
    static char blocks[8][4096], back[4096];
    uint64_t tags[8];
    ssize_t res[8];
    int done = 0, queued = 0;
    for (int k = 0; k < 8; k++)
        memset(blocks[k], 'a' + k, sizeof blocks[k]);
    while (done < 8) {
        while (queued < 8 && queued - done < 4) {
            int k = 7 - queued;
            CHECK(be.ops->queue(&be, h, 1, blocks[k], 4096, (off_t)k * 4096, (uint64_t)k) == 0);
            queued++;
        }
        int got = be.ops->reap(&be, 1, tags, res, 8);
        CHECK(got >= 1);
        for (int c = 0; c < got; c++)
            CHECK(tags[c] < 8 && res[c] == 4096);
        done += got > 0 ? got : 8;
    }
    for (int k = 0; k < 8; k++) {
        CHECK(pread((int)h, back, sizeof back, (off_t)k * 4096) == 4096);
        CHECK(memcmp(back, blocks[k], sizeof back) == 0);
    }
    /* a read across the end returns what is there; one past the end returns 0 */
    CHECK(be.ops->pread(&be, h, back, 4096, 8 * 4096 - 1000) == 1000);
    CHECK(back[999] == 'h');
    CHECK(be.ops->queue(&be, h, 0, back, 4096, 9 * 4096, 42) == 0);
    CHECK(be.ops->reap(&be, 1, tags, res, 8) == 1 && tags[0] == 42 && res[0] == 0);
    CHECK(be.ops->close(&be, h) == 0);
    /* a read of a closed descriptor reports its error */
    CHECK(be.ops->open(&be, path, IOS_OPEN_READ, &h) == 0);
    CHECK(be.ops->queue(&be, h, 0, back, 4096, 0, 1) == 0);
    CHECK(be.ops->reap(&be, 1, tags, res, 8) == 1 && res[0] == 4096);
    CHECK(be.ops->pwrite(&be, h, back, 4096, 0) == -EBADF); /* opened for reading */
    CHECK(be.ops->close(&be, h) == 0);
    unlink(path);
}
#endif

int main(void)
{
    struct ios_backend be;
    char path[256], api[512];

    /* the built-in backends and their published options */
#ifdef IOS_HAVE_LIBURING
    test_iouring();
#else
    CHECK(create("IOURING", &be) != 0);
    CHECK_STR_CONTAINS(err, "liburing");
#endif
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
