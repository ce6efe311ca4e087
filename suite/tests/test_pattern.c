/* Data pattern of spec §1.6. */
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
    const size_t positions[] = {0, 7, 8, 3895, 3896, 3900};
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

    CHECK(ios_packet_from_string("Offset") == IOS_PACKET_OFFSET);
    CHECK(ios_packet_from_string("incompressible") == IOS_PACKET_INCOMPRESSIBLE);
    CHECK(ios_packet_from_string("timestamp") == IOS_PACKET_TIMESTAMP);
    return check_finish();
}
