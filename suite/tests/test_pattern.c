/* Data pattern of BENCHMARK-RULES §1.6. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ioscore/pattern.h"

static uint64_t word(const unsigned char *buf, size_t i)
{
    uint64_t w;
    memcpy(&w, buf + i * 8, 8);
    return w;
}

int main(void)
{
    unsigned char buf[47008], other[47008];
    /* mdtest-hard file: 487 words and 5 tail bytes 0x38..0x3C */
    ios_pattern_fill(buf, 3901, 1000, 3, IOS_PACKET_TIMESTAMP, 0);
    CHECK(word(buf, 0) == (((uint64_t)3 << 32) | 1000u));
    CHECK(word(buf, 486) == (((uint64_t)3 << 32) | 1486u));
    CHECK(buf[3896] == 0x38 && buf[3900] == 0x3C);

    /* a negative seed sign-extends and hides the rank */
    ios_pattern_fill(buf, 16, -5, 7, IOS_PACKET_TIMESTAMP, 0);
    CHECK(word(buf, 0) == (uint64_t)(int64_t)-5);
    CHECK(word(buf, 1) == (uint64_t)(int64_t)-4);

    /* timestamp: identical for every item; differs per rank */
    ios_pattern_fill(buf, sizeof buf, 42, 1, IOS_PACKET_TIMESTAMP, 0);
    ios_pattern_fill(other, sizeof other, 42, 1, IOS_PACKET_TIMESTAMP, 47008);
    CHECK(memcmp(buf, other, sizeof buf) == 0);
    ios_pattern_fill(other, sizeof other, 42, 2, IOS_PACKET_TIMESTAMP, 0);
    CHECK(memcmp(buf, other, sizeof buf) != 0);
    CHECK(!ios_packet_varies_per_item(IOS_PACKET_TIMESTAMP));

    /* offset: every 512th word carries item*k */
    ios_pattern_fill(buf, sizeof buf, 42, 1, IOS_PACKET_OFFSET, 94016);
    CHECK(word(buf, 0) == (((uint64_t)1 << 32) | 94016u));
    CHECK(word(buf, 512) == (((uint64_t)1 << 32) | (94016u * 2)));
    CHECK(word(buf, 1) == (((uint64_t)1 << 32) | 43u));
    ios_pattern_fill(other, sizeof other, 42, 1, IOS_PACKET_OFFSET, 0);
    CHECK(memcmp(buf, other, sizeof buf) != 0);
    CHECK(ios_packet_varies_per_item(IOS_PACKET_OFFSET));

    /* random: reproducible from (seed, rank, item) */
    ios_pattern_fill(buf, 4096, 9, 0, IOS_PACKET_RANDOM, 5);
    ios_pattern_fill(other, 4096, 9, 0, IOS_PACKET_RANDOM, 5);
    CHECK(memcmp(buf, other, 4096) == 0);
    ios_pattern_fill(other, 4096, 9, 0, IOS_PACKET_RANDOM, 6);
    CHECK(memcmp(buf, other, 4096) != 0);

    /* the checker accepts exactly the filled content and rejects any single flipped byte */
    const enum ios_packet types[] = {IOS_PACKET_TIMESTAMP, IOS_PACKET_OFFSET,
                                     IOS_PACKET_INCOMPRESSIBLE, IOS_PACKET_RANDOM};
    const int32_t seeds[] = {745735990, -1572543422};
    const size_t positions[] = {0, 7, 8, 19, 27, 35, 3895, 3896, 3900}; /* every lane, the tail */
    for (int t = 0; t < 4; t++) {
        for (int s = 0; s < 2; s++) {
            ios_pattern_fill(buf, 47008, seeds[s], 5, types[t], 94016);
            CHECK(ios_pattern_matches(buf, 47008, seeds[s], 5, types[t], 94016));
            ios_pattern_fill(buf, 3901, seeds[s], 5, types[t], 7);
            CHECK(ios_pattern_matches(buf, 3901, seeds[s], 5, types[t], 7));
            for (size_t k = 0; k < sizeof positions / sizeof positions[0]; k++) {
                buf[positions[k]] ^= 0x01;
                CHECK(!ios_pattern_matches(buf, 3901, seeds[s], 5, types[t], 7));
                buf[positions[k]] ^= 0x01;
            }
        }
    }
    /* another writer rank, another item (offset type) or another type is a mismatch */
    ios_pattern_fill(buf, 47008, 42, 1, IOS_PACKET_OFFSET, 0);
    CHECK(!ios_pattern_matches(buf, 47008, 42, 2, IOS_PACKET_OFFSET, 0));
    CHECK(!ios_pattern_matches(buf, 47008, 42, 1, IOS_PACKET_OFFSET, 47008));
    CHECK(!ios_pattern_matches(buf, 47008, 42, 1, IOS_PACKET_TIMESTAMP, 0));

    /*
     * incompressible and random: every item, rank and type its own content; no 4 KiB block of
     * one item reappears in another (what a deduplicating store would exploit). Rank 1's item
     * 0 vs rank 0's item 1 is the collision a "seed + rank + item" seed would have.
     */
    const enum ios_packet unique_types[] = {IOS_PACKET_INCOMPRESSIBLE, IOS_PACKET_RANDOM};
    for (int t = 0; t < 2; t++) {
        CHECK(ios_packet_varies_per_item(unique_types[t]));
        ios_pattern_fill(buf, 47008, 42, 1, unique_types[t], 0);
        ios_pattern_fill(other, 47008, 42, 0, unique_types[t], 1);
        CHECK(memcmp(buf, other, 47008) != 0);
        ios_pattern_fill(other, 47008, 42, 1, unique_types[t], (uint64_t)1 << 32);
        CHECK(memcmp(buf, other, 47008) != 0); /* the reference repeats every 4 GiB */
        ios_pattern_fill(other, 47008, 42, 1, unique_types[t], 47008);
        int shared_blocks = 0;
        for (size_t a = 0; a + 4096 <= 47008; a += 4096)
            for (size_t b = 0; b + 4096 <= 47008; b += 4096)
                shared_blocks += memcmp(buf + a, other + b, 4096) == 0;
        CHECK(shared_blocks == 0);
        ios_pattern_fill(other, 47008, 42, 1, unique_types[1 - t], 0);
        CHECK(memcmp(buf, other, 47008) != 0);
        CHECK(!ios_pattern_matches(buf, 47008, 42, 1, unique_types[t], 47008));
        CHECK(!ios_pattern_matches(buf, 47008, 42, 0, unique_types[t], 0));
    }
    /* the per-transfer update turns any item's buffer into exactly the fill of another item */
    for (int t = 0; t < 4; t++) {
        ios_pattern_fill(buf, 47008, -7, 2, types[t], 94016);
        ios_pattern_update(buf, 47008, -7, 2, types[t], (uint64_t)5 << 33);
        ios_pattern_fill(other, 47008, -7, 2, types[t], (uint64_t)5 << 33);
        CHECK(memcmp(buf, other, 47008) == 0);
        CHECK(ios_pattern_matches(buf, 47008, -7, 2, types[t], (uint64_t)5 << 33));
    }
    /* incompressible really is: no byte value dominates a 47008-byte record */
    ios_pattern_fill(buf, 47008, 42, 3, IOS_PACKET_INCOMPRESSIBLE, 94016);
    int histogram[256] = {0}, most = 0;
    for (size_t i = 0; i < 47008; i++)
        histogram[buf[i]]++;
    for (int v = 0; v < 256; v++)
        most = histogram[v] > most ? histogram[v] : most;
    CHECK(most < 47008 / 256 * 2);

    CHECK(ios_packet_from_string("Offset") == IOS_PACKET_OFFSET);
    CHECK(ios_packet_from_string("incompressible") == IOS_PACKET_INCOMPRESSIBLE);
    CHECK(ios_packet_from_string("timestamp") == IOS_PACKET_TIMESTAMP);
    return check_finish();
}
