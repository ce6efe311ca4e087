/* The ior subcommand's option parser (IOR's syntax and defaults) and its -z permutation. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ioscore/acceptance.h"
#include "ioscore/ior_summary.h"

static int parse(struct ios_ior_params *p, const char *line)
{
    char copy[1024], *argv[64];
    int argc = 0;
    snprintf(copy, sizeof copy, "%s", line);
    for (char *w = strtok(copy, " "); w && argc < 64; w = strtok(NULL, " "))
        argv[argc++] = w;
    /* rank 1: errors are not printed */
    return ios_ior_parse(p, argc, argv, 1);
}

static void test_defaults_are_iors(void)
{
    struct ios_ior_params p;
    CHECK(parse(&p, "ior") == 0);
    CHECK(strcmp(p.api, "POSIX") == 0);
    CHECK(p.block == 1048576 && p.xfer == 262144 && p.segments == 1);
    CHECK(p.reps == 1 && p.task_offset == 1 && p.deadline == 0);
    CHECK(p.write == 1 && p.read == 1); /* neither -w nor -r: both */
    CHECK(strcmp(p.test_file, "testFile") == 0);
    CHECK(p.packet == IOS_PACKET_TIMESTAMP && !p.seed_given);
}

static void test_bundles_values_and_suffixes(void)
{
    struct ios_ior_params p;
    CHECK(parse(&p, "ior -vv -wk -b4m -t 1M -s 3 -O stoneWallingWearOut=1 -D 45 -z -G -7 "
                    "--posix.odirect --dataPacketType=o") == 0);
    CHECK(p.verbose == 2 && p.write == 1 && p.read == 0 && p.keep == 1);
    CHECK(p.block == 4u << 20 && p.xfer == 1u << 20 && p.segments == 3);
    CHECK(p.wearout == 1 && p.deadline == 45 && p.random == 1);
    CHECK(p.seed_given && p.seed == -7 && p.odirect == 1 && p.packet == IOS_PACKET_OFFSET);
    CHECK(parse(&p, "ior -r -R") == 0 && p.read && p.check_read && !p.write);
    CHECK(parse(&p, "ior -a mpiio -c -H -O lustrestripecount=1") == 0);
    CHECK(strcmp(p.api, "MPIIO") == 0 && p.collective && p.show_hints);
    CHECK(p.n_hints == 1 && strcmp(p.hints[0].value, "1") == 0);
    CHECK(parse(&p, "ior -O summaryformat=csv,summaryFile=s.txt -O lustreStripeSize=1m,"
                    "saveRankPerformanceDetailsCSV=r.csv,lustreStripeSize=2m") == 0);
    CHECK(p.summary_format == IOS_IOR_CSV && strcmp(p.summary_file, "s.txt") == 0);
    CHECK(strcmp(p.rank_csv, "r.csv") == 0);
    CHECK(p.n_hints == 1 && strcmp(p.hints[0].value, "2097152") == 0); /* the last one */
    CHECK(parse(&p, "ior") == 0 && p.n_hints == 0 && p.random_seed == -1);
}

/* The IOR options the table gained: each sets its field, none by default. */
static void test_added_options(void)
{
    struct ios_ior_params p;
    CHECK(parse(&p, "ior") == 0);
    CHECK(!p.fsync_per_write && !p.multi_file && !p.unique_dir && p.max_minutes == 0);
    CHECK(parse(&p, "ior -FuYm -T3") == 0);
    CHECK(p.fpp && p.unique_dir && p.fsync_per_write && p.multi_file && p.max_minutes == 3);
    CHECK(parse(&p, "ior -T -1") == 2);
    CHECK(parse(&p, "ior -Y -a MPIIO") == 2);
    CHECK(parse(&p, "ior -ZZ -X -3 -N 4") == 0);
    CHECK(p.reorder_random == 2 && p.reorder_random_seed == -3 && p.num_tasks == 4);
    CHECK(parse(&p, "ior -w -k -D 5 -O stoneWallingWearOut=1,stoneWallingStatusFile=/x/s,"
                    "minTimeDuration=3") == 0);
    CHECK(strcmp(p.stonewall_status_file, "/x/s") == 0 && p.min_time == 3);
    CHECK(parse(&p, "ior -w -D 5 -O stoneWallingWearOut=1,stoneWallingStatusFile=s") == 2);
    CHECK(parse(&p, "ior -w -k -O stoneWallingStatusFile=s") == 2);
    /* IOR's current spelling of -H; the rank-detail options the table's parser takes */
    CHECK(parse(&p, "ior --mpiio.showHints --rank-detail-threshold 8 --rank-detail-full") == 0);
    CHECK(p.show_hints && p.rank_detail.threshold == 8 && p.rank_detail.full);
    CHECK(parse(&p, "ior --rank-detail-threshold x") == 2);
}

static void test_refusals(void)
{
    struct ios_ior_params p;
    CHECK(parse(&p, "ior -P") == 2);
    CHECK(parse(&p, "ior -S") == 2);
    CHECK(parse(&p, "ior -a HDF5") == 2);
    CHECK(parse(&p, "ior -b 3m -t 2m") == 2);
    CHECK(parse(&p, "ior -t") == 2);
    CHECK(parse(&p, "ior -O blockSize=1") == 2);
    CHECK(parse(&p, "ior -O summaryFormat=XML") == 2);
    CHECK(parse(&p, "ior -O gpfsHintAccess=1") == 2);
    CHECK(parse(&p, "ior -O lustreStripeCount=-2") == 2);
    CHECK(parse(&p, "ior -i 0") == 2);
    CHECK(parse(&p, "ior testFile") == 2);
    CHECK(parse(&p, "ior -B -a MPIIO") == 2);
    /* IOR's -z consistency rules */
    CHECK(parse(&p, "ior -z -C") == 2);
    CHECK(parse(&p, "ior -z -C -F") == 0);
    CHECK(parse(&p, "ior -z -R") == 2);
    CHECK(parse(&p, "ior -z -R --random-offset-seed=3") == 0 && p.random_seed == 3);
    CHECK(parse(&p, "ior -z -c -a MPIIO") == 2);
    CHECK(parse(&p, "ior --random-offset-seed -1") == 2);
}

/* IOR's -z order: a shuffle of one segment's transfers; a shared file's transfers each go to
 * exactly one rank. */
static void test_random_offsets_are_iors(void)
{
    uint64_t n = 0, *o = ios_ior_random_offsets(64 * 4096, 4096, 4, 1, 2, 7, &n);
    unsigned char seen[64] = {0};
    uint64_t in_place = 0;
    CHECK(n == 64);
    for (uint64_t i = 0; i < n; i++) {
        CHECK(o[i] % 4096 == 0 && o[i] / 4096 < 64);
        seen[o[i] / 4096 % 64]++;
        in_place += o[i] == i * 4096;
    }
    for (int i = 0; i < 64; i++)
        CHECK(seen[i] == 1);
    CHECK(in_place < 16);
    free(o);
    unsigned char owner[4 * 16] = {0};
    for (int r = 0; r < 4; r++) {
        o = ios_ior_random_offsets(16 * 8, 8, 4, 0, r, 99, &n);
        for (uint64_t i = 0; i < n; i++)
            CHECK(o[i] < 4 * 16 * 8 && owner[o[i] / 8]++ == 0);
        free(o);
    }
    for (int i = 0; i < 4 * 16; i++)
        CHECK(owner[i] == 1);
}

int main(void)
{
    test_defaults_are_iors();
    test_bundles_values_and_suffixes();
    test_refusals();
    test_added_options();
    test_random_offsets_are_iors();
    return check_finish();
}
