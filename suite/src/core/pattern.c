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
 * Start of the random stream of one item. Distinct (seed, rank, item) give unrelated keys, so
 * two items' streams share no word except by a 2^-64-per-word chance: no transfer, file or
 * 4 KiB block of a run repeats another, and deduplicating storage gains nothing. The type
 * is mixed in so that incompressible and random data differ too.
 */
static uint64_t stream_key(int32_t seed, int rank, enum ios_packet type, uint64_t item)
{
    uint64_t k = mix64((uint64_t)(uint32_t)seed | (uint64_t)(uint32_t)rank << 32);
    k = mix64(k ^ (uint64_t)type);
    return mix64(k ^ item) ^ mix64(item + GOLDEN);
}

/*
 * Word i of a stream: wyrand's output function on a counter (one 64x64->128 multiply per
 * word, half the cost of the splitmix finaliser; no carried state, so verification can start
 * anywhere).
 */
static inline uint64_t stream_word(uint64_t key, size_t i)
{
    uint64_t s = key + (uint64_t)(i + 1) * 0xA0761D6478BD642Full;
    unsigned __int128 t = (unsigned __int128)s * (s ^ 0xE7037ED1A0B428DBull);
    return (uint64_t)(t >> 64) ^ (uint64_t)t;
}

static int is_random_type(enum ios_packet type)
{
    return type == IOS_PACKET_INCOMPRESSIBLE || type == IOS_PACKET_RANDOM;
}

void ios_pattern_fill(void *buf, size_t size, int32_t seed, int rank, enum ios_packet type,
                      uint64_t item)
{
    uint64_t *words = buf;
    size_t n_words = size / 8;
    uint64_t rank_hi = (uint64_t)(uint32_t)rank << 32;
    if (is_random_type(type)) {
        uint64_t key = stream_key(seed, rank, type, item);
        for (size_t i = 0; i < n_words; i++) {
            uint64_t w = stream_word(key, i);
            memcpy(&words[i], &w, 8);
        }
    } else {
        for (size_t i = 0; i < n_words; i++) {
            /* the seed is sign-extended on purpose: that is the reference behaviour */
            uint64_t w = rank_hi | (uint64_t)((int64_t)seed + (int64_t)i);
            memcpy(&words[i], &w, 8);
        }
        if (type == IOS_PACKET_OFFSET) {
            for (size_t i = 0; i < n_words; i += 512) {
                uint64_t k = i / 512 + 1;
                uint64_t w = (uint64_t)(uint32_t)(item * k) | rank_hi;
                memcpy(&words[i], &w, 8);
            }
        }
    }
    unsigned char *bytes = buf;
    for (size_t j = n_words * 8; j < size; j++)
        bytes[j] = (unsigned char)(char)j;
}

int ios_pattern_matches(const void *buf, size_t size, int32_t seed, int rank, enum ios_packet type,
                        uint64_t item)
{
    const unsigned char *bytes = buf;
    size_t n_words = size / 8;
    uint64_t rank_hi = (uint64_t)(uint32_t)rank << 32;
    uint64_t diff = 0; /* OR of all differences: no early exit, so the loop vectorizes */
    if (is_random_type(type)) {
        uint64_t key = stream_key(seed, rank, type, item);
        for (size_t i = 0; i < n_words; i++) {
            uint64_t got;
            memcpy(&got, bytes + i * 8, 8);
            diff |= got ^ stream_word(key, i);
        }
    } else {
        /* (uint64)((int64)seed + i) is base + i in two's complement */
        uint64_t base = (uint64_t)(int64_t)seed;
        for (size_t i = 0; i < n_words; i++) {
            uint64_t got;
            memcpy(&got, bytes + i * 8, 8);
            uint64_t want = rank_hi | (base + i);
            if (type == IOS_PACKET_OFFSET && i % 512 == 0)
                want = (uint64_t)(uint32_t)(item * (i / 512 + 1)) | rank_hi;
            diff |= got ^ want;
        }
    }
    for (size_t j = n_words * 8; j < size; j++)
        diff |= (uint64_t)(bytes[j] ^ (unsigned char)(char)j);
    return diff == 0;
}
