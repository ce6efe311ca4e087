/*
 * The IO500 string hash (BENCHMARK-RULES §5.4) and the per-phase seed (§1.2).
 * Both rotate a 32-bit state left by 2 and add each byte as a *signed* char, so results
 * match the reference on x86 whatever the signedness of plain char is here.
 */
#ifndef IOSCORE_HASH_H
#define IOSCORE_HASH_H

#include <stdint.h>

/* Continues the hash state h over the bytes of s. */
uint32_t ios_hash_bytes(uint32_t h, const char *s);

/* kv(key, value): the primitive over the key bytes, then the value bytes, starting at 0. */
uint32_t ios_hash_kv(const char *key, const char *value);

/* kv(key, printf("%f", value)): how scores are hashed. */
uint32_t ios_hash_kv_score(const char *key, double value);

/* Seed for the data pattern of a phase group ("ior-easy", ...) and a run timestamp string. */
int32_t ios_phase_seed(const char *phase_key, const char *timestamp);

#endif
