/* Data pattern generation; see include/ioscore/pattern.h. */
#include "ioscore/pattern.h"

#include <ctype.h>
#include <string.h>

enum ios_packet ios_packet_from_string(const char *name)
{
    switch (tolower((unsigned char)(name ? name[0] : 't'))) {
    case 'o':
        return IOS_PACKET_OFFSET;
    case 'i':
        return IOS_PACKET_INCOMPRESSIBLE;
    case 'r':
        return IOS_PACKET_RANDOM;
    default:
        return IOS_PACKET_TIMESTAMP;
    }
}

int ios_packet_varies_per_item(enum ios_packet type)
{
    return type != IOS_PACKET_TIMESTAMP;
}

#define GOLDEN 0x9E3779B97F4A7C15ull

/* The splitmix64 finaliser: a bijection on 64-bit words with full avalanche. */
static inline uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/*
 * Key of one random stream. Distinct (seed, rank, type, item) give unrelated keys: no
 * collisions between rank r's item i+1 and rank r+1's item i, and incompressible and random
 * data differ.
 */
static uint64_t stream_key(int32_t seed, int rank, enum ios_packet type, uint64_t item)
{
    uint64_t k = mix64((uint64_t)(uint32_t)seed | (uint64_t)(uint32_t)rank << 32);
    k = mix64(k ^ (uint64_t)type);
    return mix64(k ^ item) ^ mix64(item + GOLDEN);
}

/*
 * Word i of a stream: wyrand's output function on a counter (one 64x64->128 multiply per
 * word; no carried state, so verification can start anywhere).
 */
static inline uint64_t stream_word(uint64_t key, size_t i)
{
    uint64_t s = key + (uint64_t)(i + 1) * 0xA0761D6478BD642Full;
    unsigned __int128 t = (unsigned __int128)s * (s ^ 0xE7037ED1A0B428DBull);
    return (uint64_t)(t >> 64) ^ (uint64_t)t;
}

/* Base word i of a rank's buffer: the same for every item (the per-item part is the stamp). */
static inline uint64_t base_word(int32_t seed, int rank, enum ios_packet type, uint64_t key,
                                 size_t i)
{
    if (type == IOS_PACKET_INCOMPRESSIBLE || type == IOS_PACKET_RANDOM)
        return stream_word(key, i);
    /* the seed is sign-extended on purpose: that is the reference behaviour */
    return (uint64_t)(uint32_t)rank << 32 | (uint64_t)((int64_t)seed + (int64_t)i);
}

/*
 * Stamp k (= 1, 2, ...) of an item, written over word (k-1)*512 (one per 4 KiB).
 * offset: the reference's (uint32)(item*k) | rank<<32. incompressible: 64 well-mixed bits of
 * (item key, k), so 4 KiB blocks of different items never match, even 4 GiB apart (where the
 * reference's 32-bit stamps repeat).
 */
static inline uint64_t stamp_word(int rank, enum ios_packet type, uint64_t item_key, uint64_t item,
                                  uint64_t k)
{
    if (type == IOS_PACKET_OFFSET)
        return (uint64_t)(uint32_t)(item * k) | (uint64_t)(uint32_t)rank << 32;
    return mix64(item_key + k * GOLDEN);
}

static int stamped(enum ios_packet type)
{
    return type == IOS_PACKET_OFFSET || type == IOS_PACKET_INCOMPRESSIBLE;
}

/* The key of the base stream: per item for random (refilled per item), else per rank. */
static uint64_t base_key(int32_t seed, int rank, enum ios_packet type, uint64_t item)
{
    return stream_key(seed, rank, type, type == IOS_PACKET_RANDOM ? item : 0);
}

void ios_pattern_update(void *buf, size_t size, int32_t seed, int rank, enum ios_packet type,
                        uint64_t item)
{
    if (type == IOS_PACKET_RANDOM) {
        ios_pattern_fill(buf, size, seed, rank, type, item);
        return;
    }
    if (!stamped(type))
        return;
    uint64_t *words = buf;
    uint64_t item_key = stream_key(seed, rank, type, item);
    for (size_t i = 0; i < size / 8; i += 512) {
        uint64_t w = stamp_word(rank, type, item_key, item, i / 512 + 1);
        memcpy(&words[i], &w, 8);
    }
}

void ios_pattern_fill(void *buf, size_t size, int32_t seed, int rank, enum ios_packet type,
                      uint64_t item)
{
    uint64_t *words = buf;
    size_t n_words = size / 8;
    uint64_t key = base_key(seed, rank, type, item);
    for (size_t i = 0; i < n_words; i++) {
        uint64_t w = base_word(seed, rank, type, key, i);
        memcpy(&words[i], &w, 8);
    }
    unsigned char *bytes = buf;
    for (size_t j = n_words * 8; j < size; j++)
        bytes[j] = (unsigned char)(char)j;
    if (type != IOS_PACKET_RANDOM)
        ios_pattern_update(buf, size, seed, rank, type, item);
}

/*
 * OR of the differences of words [from, to) from the counting base words (timestamp, offset):
 * the type is decided once, outside the loop, and four independent accumulators let the CPU
 * overlap the words, so checking a buffer costs a fraction of reading it.
 */
static uint64_t counting_diff(const unsigned char *bytes, size_t from, size_t to, int32_t seed,
                              int rank)
{
    const uint64_t hi = (uint64_t)(uint32_t)rank << 32;
    const int64_t base = seed; /* sign-extended, as base_word does */
    uint64_t d0 = 0, d1 = 0, d2 = 0, d3 = 0, w[4];
    size_t i = from;
    for (; i + 4 <= to; i += 4) {
        memcpy(w, bytes + i * 8, sizeof w);
        d0 |= w[0] ^ (hi | (uint64_t)(base + (int64_t)i));
        d1 |= w[1] ^ (hi | (uint64_t)(base + (int64_t)i + 1));
        d2 |= w[2] ^ (hi | (uint64_t)(base + (int64_t)i + 2));
        d3 |= w[3] ^ (hi | (uint64_t)(base + (int64_t)i + 3));
    }
    for (; i < to; i++) {
        memcpy(w, bytes + i * 8, 8);
        d0 |= w[0] ^ (hi | (uint64_t)(base + (int64_t)i));
    }
    return d0 | d1 | d2 | d3;
}

int ios_pattern_matches(const void *buf, size_t size, int32_t seed, int rank, enum ios_packet type,
                        uint64_t item)
{
    const unsigned char *bytes = buf;
    size_t n_words = size / 8;
    uint64_t key = base_key(seed, rank, type, item);
    uint64_t item_key = stream_key(seed, rank, type, item);
    int stamps = stamped(type);
    uint64_t diff = 0; /* OR of all differences: no early exit, branch-free inner loop */
    int counting = type == IOS_PACKET_TIMESTAMP || type == IOS_PACKET_OFFSET;
    if (counting && !stamps) { /* timestamp: one counting run over the whole buffer */
        diff = counting_diff(bytes, 0, n_words, seed, rank);
        n_words = 0; /* no 4 KiB blocks left to check one by one */
    }
    for (size_t block = 0; block < n_words; block += 512) {
        size_t end = n_words - block > 512 ? block + 512 : n_words, i = block;
        uint64_t got;
        if (stamps) {
            memcpy(&got, bytes + i * 8, 8);
            diff |= got ^ stamp_word(rank, type, item_key, item, block / 512 + 1);
            i++;
        }
        if (counting) {
            diff |= counting_diff(bytes, i, end, seed, rank);
            continue;
        }
        for (; i < end; i++) {
            memcpy(&got, bytes + i * 8, 8);
            diff |= got ^ base_word(seed, rank, type, key, i);
        }
    }
    for (size_t j = size / 8 * 8; j < size; j++)
        diff |= (uint64_t)(bytes[j] ^ (unsigned char)(char)j);
    return diff == 0;
}
