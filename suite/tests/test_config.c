/*
 * INI parsing (BENCHMARK-RULES §4.1): the accepted syntax and every malformed-input case, each
 * error naming the file, the line and the section/key.
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
    /* the typed fields the phases read hold the same values, defaults included */
    CHECK(strcmp(cfg.opt.global.datadir, "/data/x") == 0);
    CHECK(cfg.opt.global.timestamp_datadir == 0 && cfg.opt.global.timestamp_resultdir == 1);
    CHECK(cfg.opt.global.drop_caches == 1 && strcmp(cfg.opt.global.api, "POSIX") == 0);
    CHECK(cfg.opt.global.verbosity == 1 && cfg.opt.debug.stonewall_time == 300);
    CHECK(cfg.opt.debug.pause_dir == NULL);
    CHECK(cfg.opt.ior_easy.transfer_size == 1048576u);
    CHECK(cfg.opt.ior_easy.block_size == 10737418240ull);
    CHECK(cfg.opt.ior_easy.file_per_proc == 1 && cfg.opt.ior_easy.unique_dir == 0);
    CHECK(cfg.opt.ior_hard.segment_count == 10000000);
    CHECK(cfg.opt.mdtest_hard.n == 123 && cfg.opt.mdtest_easy.n == 1000000);
    CHECK(cfg.opt.mdtest_hard.files_per_dir == 0);
    CHECK(strcmp(cfg.opt.find.external_mpi_args, "") == 0 && !cfg.opt.find.external_script);
    CHECK(cfg.opt.find.queue_length == 10000 && cfg.opt.find_hard.queue_length == 10000);

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
    expect_error("[ior-easy]\nblockSize = 10mx\n", "t.ini:2:", "[ior-easy] blockSize: bad size");
    expect_error("[ior-easy]\ntransferSize = 512ki\n", "t.ini:2:", "transferSize: bad size");
    expect_error("[ior-rnd4K]\nblockSize = 1g\n", "t.ini:2:",
                 "[ior-rnd4K] blockSize: bad value '1g' (expected a non-negative integer)");
    expect_error("[ior-easy]\nposix.odirect = maybe\n", "t.ini:2:",
                 "[ior-easy] posix.odirect: bad value 'maybe' (expected TRUE or FALSE)");
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
    {
        static char long_line[5000 + 32];
        memset(long_line, 'x', sizeof long_line);
        memcpy(long_line, "[global]\ndatadir = ", 19);
        long_line[sizeof long_line - 1] = '\0';
        expect_error(long_line, "t.ini:2:", "line of 5022 bytes (at most 4095)");
    }
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

/* Sizes as IOR reads them: only the first letter of the unit counts. */
static void test_ior_size_suffixes(void)
{
    static const struct {
        const char *text;
        unsigned long long bytes;
    } sizes[] = {{"512kb", 512ull << 10}, {"512KiB", 512ull << 10}, {"512K", 512ull << 10},
                 {"4MiB", 4ull << 20},    {"4mb", 4ull << 20},      {"3g", 3ull << 30},
                 {"2t", 2ull << 40},      {"47008", 47008}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        struct ios_config cfg;
        char err[1024], text[256];
        snprintf(text, sizeof text, "[ior-easy]\ntransferSize = %s\nblockSize = %s\n",
                 sizes[i].text, sizes[i].text);
        CHECK(parse(text, &cfg, err, sizeof err) == 0);
        CHECK(ios_cfg_size(&cfg, "ior-easy", "transferSize") == sizes[i].bytes);
        ios_config_free(&cfg);
    }
}

/* Keys and sections of older releases: parsed, typed, recorded as those releases did. */
static void test_historical_keys_and_sections(void)
{
    struct ios_config cfg;
    char err[1024];
    /* isc20/sc20 keys; noRun = TRUE disables the phase like run = FALSE */
    CHECK(parse("[ior-easy]\nposix.odirect = True\nhintsFileName = /h\nnoRun = false\n"
                "[mdtest-hard-write]\nnoRun = TRUE\n[find]\nexternal-args = -x\n",
                &cfg, err, sizeof err) == 0);
    CHECK(strcmp(ios_cfg_str(&cfg, "ior-easy", "posix.odirect"), "TRUE") == 0);
    CHECK(strcmp(ios_cfg_str(&cfg, "ior-easy", "hintsFileName"), "/h") == 0);
    /* posix.odirect = TRUE means what it meant: --posix.odirect for the group's phases */
    CHECK(strcmp(ios_cfg_api(&cfg, "ior-easy-write", "ior-easy"), "POSIX --posix.odirect") == 0);
    CHECK(strcmp(ios_cfg_api(&cfg, "ior-hard-write", "ior-hard"), "POSIX") == 0);
    CHECK(ios_cfg_run(&cfg, "ior-easy-write", "ior-easy") == 1);
    CHECK(ios_cfg_run(&cfg, "mdtest-hard-write", "mdtest-hard") == 0);
    CHECK(ios_cfg_run(&cfg, "mdtest-hard-stat", "mdtest-hard") == 1);
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    ios_config_write_ini(&cfg, mem);
    fclose(mem);
    /* a historical key is recorded only when set, after the section's current keys */
    CHECK_STR_CONTAINS(text, "verbosity = \nposix.odirect = TRUE\nhintsFileName = /h\n"
                             "noRun = FALSE\n\n[ior-easy-write]\nAPI = \nrun = TRUE\n\n");
    CHECK_STR_CONTAINS(text, "external-args = -x\n");
    CHECK(strstr(text, "[ior-rnd]") == NULL && strstr(text, "[ior-rnd4K]") == NULL);
    CHECK(ios_config_hash_ini_text(text) == ios_config_hash(&cfg));
    free(text);
    char unrun[256];
    CHECK(ios_config_unrun_sections(&cfg, unrun, sizeof unrun) == 0);
    ios_config_free(&cfg);

    /*
     * The sc21..isc26 random-I/O family: named by one header, recorded whole with its defaults
     * (which cancel in the XOR, so the hash of defaults stays the spec's test vector).
     */
    CHECK(parse("[global]\n[ior-rnd4K]\n[mdworkbench]\nrun = FALSE\n", &cfg, err, sizeof err) == 0);
    text = NULL;
    mem = open_memstream(&text, &len);
    ios_config_write_ini(&cfg, mem);
    fclose(mem);
    CHECK_STR_CONTAINS(text,
                       "[ior-easy-write]\nAPI = \nrun = TRUE\n\n[ior-rnd4K]\nAPI = \n"
                       "blockSize = 1073741824\nrun = TRUE\nverbosity = \nrandomPrefill = 0\n\n"
                       "[ior-rnd4K-write]\n");
    CHECK_STR_CONTAINS(text, "[find]\n");
    CHECK_STR_CONTAINS(text, "[ior-rnd4K-read]\nAPI = \nrun = TRUE\n\n[ior-rnd1MB-read]\n");
    CHECK(strstr(text, "[ior-rnd]") == NULL); /* isc21's family is not named */
    CHECK(ios_config_hash_ini_text(text) == ios_config_hash(&cfg));
    free(text);
    CHECK(ios_config_unrun_sections(&cfg, unrun, sizeof unrun) == 2);
    CHECK(strcmp(unrun, "[ior-rnd4K], [mdworkbench]") == 0);
    ios_config_free(&cfg);

    CHECK(parse("[global]\n[ior-rnd4K]\n", &cfg, err, sizeof err) == 0);
    CHECK(ios_config_hash(&cfg) == 0x9736CCCBu);
    ios_config_free(&cfg);
    /* isc20/sc20 spelled that family's keys differently */
    CHECK(
        parse("[ior-rnd]\nsegmentCount = 1000\nnoRun = TRUE\n[ior-rnd-read]\nhintsFileName = /h\n",
              &cfg, err, sizeof err) == 0);
    CHECK(ios_cfg_int(&cfg, "ior-rnd", "segmentCount", 0) == 1000);
    ios_config_free(&cfg);
    /* isc21's ior-rnd family does not cancel: its run/blockSize/randomPrefill count */
    CHECK(parse("[global]\n[ior-rnd-read]\n", &cfg, err, sizeof err) == 0);
    CHECK(ios_config_hash(&cfg) != 0x9736CCCBu);
    ios_config_free(&cfg);
}

static void test_historical_odirect_precedence(void)
{
    struct ios_config cfg;
    char err[1024];
    CHECK(parse("[global]\napi = DUMMY\n[ior-easy]\nposix.odirect = TRUE\n"
                "[ior-easy-read]\nposix.odirect = FALSE\n"
                "[ior-hard-write]\nAPI = POSIX --posix.odirect\nposix.odirect = TRUE\n",
                &cfg, err, sizeof err) == 0);
    /* the phase's FALSE wins over the group's TRUE; the flag is never added twice; another
       backend gets the flag too (and refuses it, as IOR did) */
    CHECK(strcmp(ios_cfg_api(&cfg, "ior-easy-write", "ior-easy"), "DUMMY --posix.odirect") == 0);
    CHECK(strcmp(ios_cfg_api(&cfg, "ior-easy-read", "ior-easy"), "DUMMY") == 0);
    CHECK(strcmp(ios_cfg_api(&cfg, "ior-hard-write", "ior-hard"), "POSIX --posix.odirect") == 0);
    CHECK(strcmp(ios_cfg_api(&cfg, "ior-hard-read", "ior-hard"), "DUMMY") == 0);
    ios_config_free(&cfg);
}

static void test_unknown_names_get_hints(void)
{
    expect_error("[ior-easy]\ntransfersize2 = 1m\n", "t.ini:2:",
                 "unknown key 'transfersize2' in section [ior-easy]; did you mean 'transferSize'?");
    expect_error("[ior-eazy]\n",
                 "t.ini:1:", "unknown section [ior-eazy]; did you mean [ior-easy]?");
    expect_error("[mdtest-easy]\nprecreatePerSet = 3\n", "t.ini:2:",
                 "'precreatePerSet' is a key of [mdworkbench] (an extended-mode section, isc21 "
                 "and later)");
    expect_error("[ior-hard]\nrandomPrefill = 0\n",
                 "t.ini:2:", "'randomPrefill' is a key of [ior-rnd] (a section of releases isc21)");
    expect_error("[global]\nfrobnicate = 1\n",
                 "t.ini:2:", "unknown key 'frobnicate' in section [global]");
}

static void expect_text_refused(const char *text, size_t len, const char *what)
{
    char err[1024] = "";
    CHECK(ios_config_check_text("t.ini", text, len, err, sizeof err) == -1);
    CHECK_STR_CONTAINS(err, what);
}

static void test_text_checks(void)
{
    static const char fork[] = "\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X        ";
    expect_text_refused(fork, sizeof fork - 1, "macOS AppleDouble resource fork");
    expect_text_refused("[global]\ndata\0dir = x\n", 20, "a NUL byte at offset 13");
    expect_text_refused("[global]\ndatadir = /d\xff\n", 22, "t.ini:2: not a text file");
    expect_text_refused("[global]\ndatadir = /\xc3\n", 21, "invalid UTF-8 (byte 0xC3)");
    expect_text_refused("", 0, "the configuration is empty");
    expect_text_refused("\n  \n# only a comment\n", 21, "the configuration is empty");
    char err[1024] = "";
    const char *ok =
        "# caf\xe9 latin-1 in a comment\n[global]\ndatadir = /d/\xc3\xa9t\xc3\xa9 ; \xff\n";
    CHECK(ios_config_check_text("t.ini", ok, strlen(ok), err, sizeof err) == 0);
}

int main(void)
{
    test_valid_syntax();
    test_malformed();
    test_write_ini_roundtrip();
    test_ior_size_suffixes();
    test_historical_keys_and_sections();
    test_historical_odirect_precedence();
    test_unknown_names_get_hints();
    test_text_checks();
    return check_finish();
}
