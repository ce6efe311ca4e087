/*
 * INI parsing (spec §4.1): the accepted syntax and every malformed-input case, each error
 * naming the file, the line and the section/key.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ioscore/config.h"

/* Parses text as "t.ini"; returns the parse result and leaves the message in err. */
static int parse(const char *text, struct ios_config *cfg, char *err, size_t len)
{
    ios_config_init(cfg, "t.ini");
    err[0] = '\0';
    return ios_config_parse(cfg, text, err, len);
}

static void expect_error(const char *text, const char *where, const char *what)
{
    struct ios_config cfg;
    char err[1024];
    int rc = parse(text, &cfg, err, sizeof err);
    CHECK(rc == -1);
    CHECK_STR_CONTAINS(err, where);
    CHECK_STR_CONTAINS(err, what);
    ios_config_free(&cfg);
}

static void test_valid_syntax(void)
{
    struct ios_config cfg;
    char err[1024];
    const char *text = "# comment\n"
                       "; another\n"
                       "\n"
                       "  [ GLOBAL ]   # trailing comment\n"
                       "DataDir = /data/x   ; comment\n"
                       "timestamp-datadir = false\r\n"
                       "drop-caches = 1\n"
                       "api =\n"
                       "[debug]\n"
                       "stonewall-time = 30\n"
                       "stonewall-time = 300\n"
                       "[ior-easy]\n"
                       "transferSize = 1M\n"
                       "blockSize = 10g\n"
                       "[mdtest-hard]\n"
                       "n = 123\n"
                       "[find]\n"
                       "external-mpi-args =\n";
    int rc = parse(text, &cfg, err, sizeof err);
    CHECK(rc == 0);
    if (rc != 0)
        fprintf(stderr, "unexpected: %s\n", err);
    CHECK(strcmp(ios_cfg_str(&cfg, "global", "datadir"), "/data/x") == 0);
    CHECK(strcmp(ios_cfg_str(&cfg, "global", "timestamp-datadir"), "FALSE") == 0);
    CHECK(strcmp(ios_cfg_str(&cfg, "global", "drop-caches"), "TRUE") == 0);
    CHECK(strcmp(ios_cfg_str(&cfg, "global", "api"), "POSIX") == 0); /* empty keeps default */
    CHECK(ios_cfg_int(&cfg, "debug", "stonewall-time", 0) == 300);   /* later one wins */
    CHECK(ios_cfg_size(&cfg, "ior-easy", "transferSize") == 1048576u);
    CHECK(ios_cfg_size(&cfg, "ior-easy", "blockSize") == 10737418240ull);
    CHECK(strcmp(ios_cfg_str(&cfg, "ior-easy", "transferSize"), "1M") == 0); /* as typed */
    CHECK(ios_cfg_int(&cfg, "mdtest-hard", "n", 0) == 123);
    CHECK(strcmp(ios_cfg_str(&cfg, "find", "external-mpi-args"), "") == 0);
    CHECK(ios_cfg_str(&cfg, "ior-easy", "API") == NULL);
    CHECK(ios_cfg_bool(&cfg, "ior-hard", "collective", 2) == 2);

    /* API and run resolution: phase, then group, then global */
    ios_config_free(&cfg);
    rc = parse("[global]\napi = POSIX\n[ior-easy]\nAPI = POSIX --posix.odirect\n"
               "[ior-easy-read]\nAPI = DUMMY\n[mdtest-easy]\nrun = FALSE\n",
               &cfg, err, sizeof err);
    CHECK(rc == 0);
    CHECK(strcmp(ios_cfg_api(&cfg, "ior-easy-write", "ior-easy"), "POSIX --posix.odirect") == 0);
    CHECK(strcmp(ios_cfg_api(&cfg, "ior-easy-read", "ior-easy"), "DUMMY") == 0);
    CHECK(strcmp(ios_cfg_api(&cfg, "find", NULL), "POSIX") == 0);
    CHECK(ios_cfg_run(&cfg, "mdtest-easy-stat", "mdtest-easy") == 0);
    CHECK(ios_cfg_run(&cfg, "mdtest-hard-stat", "mdtest-hard") == 1);
    ios_config_free(&cfg);
}

static void test_malformed(void)
{
    expect_error("[global]\n[nosuch]\n", "t.ini:2:", "unknown section [nosuch]");
    expect_error("[global]\nbogus = 1\n", "t.ini:2:", "unknown key 'bogus' in section [global]");
    expect_error("datadir = /x\n[global]\n", "t.ini:1:", "'datadir' appears before the first");
    expect_error("[global]\nthis is not ini\n", "t.ini:2:", "cannot parse line");
    expect_error("[global\n", "t.ini:1:", "cannot parse line");
    expect_error("[global]\ndatadir = a#b\n", "t.ini:2:", "cannot parse line");
    expect_error("[debug]\nstonewall-time = 3x\n",
                 "t.ini:2:", "[debug] stonewall-time: bad value '3x' (expected an integer)");
    expect_error("[debug]\nstonewall-time = -\n", "t.ini:2:", "stonewall-time: bad value");
    expect_error("[global]\nverbosity = -1\n", "t.ini:2:",
                 "[global] verbosity: bad value '-1' (expected a non-negative integer)");
    expect_error("[mdtest-easy]\nn = 1e6\n", "t.ini:2:", "[mdtest-easy] n: bad value '1e6'");
    expect_error("[global]\nscc = yes\n",
                 "t.ini:2:", "[global] scc: bad value 'yes' (expected TRUE or FALSE)");
    expect_error("[mdworkbench]\nwaitingTime = fast\n",
                 "t.ini:2:", "[mdworkbench] waitingTime: bad value 'fast' (expected a number)");
    expect_error("\n\n[ior-easy]\ntransferSize = 2x\n",
                 "t.ini:4:", "[ior-easy] transferSize: bad size '2x'");
    expect_error("[ior-easy]\nblockSize = 10mb\n", "t.ini:2:", "[ior-easy] blockSize: bad size");
    expect_error("[ior-easy]\nblockSize = m\n", "t.ini:2:", "[ior-easy] blockSize: bad size");
    expect_error("[ior-easy]\ntransferSize = 3m\nblockSize = 10m\n",
                 "t.ini:3:", "must be a multiple of transferSize");
    expect_error("[ior-easy]\ntransferSize = 12\nblockSize = 24\n",
                 "t.ini:3:", "transferSize a multiple of 8");
    expect_error("[global]\ndataPacketType = zebra\n",
                 "t.ini:2:", "[global] dataPacketType: bad value 'zebra'");
    expect_error("[debug]\nstonewall-time = 0\n",
                 "t.ini:2:", "[debug] stonewall-time: must be > 0");
    expect_error("[find]\npfind-queue-length = 5\n",
                 "t.ini:2:", "[find] pfind-queue-length: must be >= 10");
    expect_error("[ior-hard]\nsegmentCount = 0\n", "t.ini:2:", "[ior-hard] segmentCount");
    /* a default that breaks a rule set elsewhere: the message names the default */
    expect_error("[ior-easy]\ntransferSize = 3k\n", "t.ini (default)", "blockSize");
}

static void test_write_ini_roundtrip(void)
{
    struct ios_config cfg, again;
    char err[1024];
    CHECK(parse("[global]\ndatadir = /d\n[ior-easy]\ntransferSize = 4k\nblockSize = 8k\n", &cfg,
                err, sizeof err) == 0);
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    ios_config_write_ini(&cfg, mem);
    fclose(mem);
    CHECK_STR_CONTAINS(text, "[timestamp]\n\n[find-easy]\n");
    CHECK_STR_CONTAINS(text, "pause-dir = \n");
    /* config.ini parses back to the same hash, and its text hash agrees */
    CHECK(parse(text, &again, err, sizeof err) == 0);
    CHECK(ios_config_hash(&again) == ios_config_hash(&cfg));
    CHECK(ios_config_hash_ini_text(text) == ios_config_hash(&cfg));
    free(text);
    ios_config_free(&cfg);
    ios_config_free(&again);
}

int main(void)
{
    test_valid_syntax();
    test_malformed();
    test_write_ini_roundtrip();
    return check_finish();
}
