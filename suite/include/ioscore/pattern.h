/*
 * Data content of every written block and file, and its verification (benchmark spec §1.6).
 * The content depends on the per-run seed, the writer's rank and, except for the default
 * `timestamp` type, on the item (IOR file offset or mdtest file index). Readers regenerate
 * the writer's buffer and compare.
 *   timestamp       the reference base pattern; every transfer of a rank is identical
 *   offset          the base pattern with every 512th word stamped (uint32)(item*k)|rank<<32
 *   incompressible  every word pseudo-random from (seed, rank, item, word): no two transfers,
 *   random          mdtest-hard files or 4 KiB blocks of a run are equal (the reference's
 *                   incompressible only stamps a per-rank random buffer, and repeats itself
 *                   every 4 GiB of offset); the two types use different streams
 */
#ifndef IOSCORE_PATTERN_H
#define IOSCORE_PATTERN_H

#include <stddef.h>
#include <stdint.h>

enum ios_packet {
    IOS_PACKET_TIMESTAMP,
    IOS_PACKET_OFFSET,
    IOS_PACKET_INCOMPRESSIBLE,
    IOS_PACKET_RANDOM
};

/* The tools look only at the first letter (t/o/i/r); anything else is rejected by config. */
enum ios_packet ios_packet_from_string(const char *name);

/* True when the content changes with the item, so a buffer must be refilled per transfer. */
int ios_packet_varies_per_item(enum ios_packet type);

/* Fills buf[0..size) with the content written by `rank` for `item`. */
void ios_pattern_fill(void *buf, size_t size, int32_t seed, int rank, enum ios_packet type,
                      uint64_t item);

/*
 * True when buf[0..size) holds exactly what ios_pattern_fill would write. Computes the
 * expected words on the fly (one pass over the data, no second buffer), so verification
 * costs little more than the read itself.
 */
int ios_pattern_matches(const void *buf, size_t size, int32_t seed, int rank, enum ios_packet type,
                        uint64_t item);

#endif
