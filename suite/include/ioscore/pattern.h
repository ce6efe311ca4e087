/*
 * Data content of every written block and file, and its verification (BENCHMARK-RULES §1.6).
 * The content depends on the per-run seed, the writer's rank and, except for the default
 * `timestamp` type, on the item (IOR file offset or mdtest file index). Readers regenerate
 * the writer's buffer and compare.
 *   timestamp       the reference base pattern; every transfer of a rank is identical
 *   offset          the base pattern with one word per 4 KiB stamped (uint32)(item*k)|rank<<32
 *   incompressible  a per-rank pseudo-random buffer with one word per 4 KiB stamped with 64
 *                   mixed bits of (seed, rank, item, k): every transfer, mdtest-hard file and
 *                   4 KiB block of a run differs (the reference's 32-bit stamps repeat every
 *                   4 GiB of offset), at the reference's cost (a stamp pass per transfer)
 *   random          every word pseudo-random from (seed, rank, item): nothing repeats at any
 *                   granularity; a full refill per transfer, as in the reference
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

/* True when the content changes with the item, so a buffer must be updated per transfer. */
int ios_packet_varies_per_item(enum ios_packet type);

/* Fills buf[0..size) with the content written by `rank` for `item`. */
void ios_pattern_fill(void *buf, size_t size, int32_t seed, int rank, enum ios_packet type,
                      uint64_t item);

/*
 * Turns a buffer that ios_pattern_fill filled (for any item) into the content of `item`:
 * rewrites the stamps only (offset, incompressible) or refills it (random). Cheap enough to
 * run before every transfer.
 */
void ios_pattern_update(void *buf, size_t size, int32_t seed, int rank, enum ios_packet type,
                        uint64_t item);

/*
 * True when buf[0..size) holds exactly what ios_pattern_fill would write. Computes the
 * expected words on the fly (one pass over the data, no second buffer), so verification
 * costs little more than the read itself.
 */
int ios_pattern_matches(const void *buf, size_t size, int32_t seed, int rank, enum ios_packet type,
                        uint64_t item);

#endif
