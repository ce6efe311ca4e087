/* IO500-compatible hashes; see include/ioscore/hash.h. */
#include "ioscore/hash.h"

#include <stdio.h>

static uint32_t rotl2(uint32_t h)
{
    return (h << 2) | (h >> 30);
}

uint32_t ios_hash_bytes(uint32_t h, const char *s)
{
    for (; *s; s++)
        h = rotl2(h) + (uint32_t)(int32_t)(signed char)*s; /* signed char, as on x86 */
    return h;
}

uint32_t ios_hash_kv(const char *key, const char *value)
{
    return ios_hash_bytes(ios_hash_bytes(0, key), value);
}

uint32_t ios_hash_kv_score(const char *key, double value)
{
    char text[64];
    snprintf(text, sizeof text, "%f", value);
    return ios_hash_kv(key, text);
}

int32_t ios_phase_seed(const char *phase_key, const char *timestamp)
{
    uint32_t h = ios_hash_bytes(ios_hash_bytes(0, phase_key), timestamp);
    int32_t seed = (int32_t)h;
    /* The reference treats 0 and -1 as "no seed given", so they are replaced. */
    if (seed == 0 || seed == -1)
        seed = 4711;
    return seed;
}
