/*
 * rng_internal.h: the hash behind rng.c's counter-based numbers, inline, split in two so that a
 * loop over many indices of one (seed, stream) hashes the pair once (dropout masks draw one number
 * per element: two of the three mixes were the same for every element).
 */
#ifndef AG_RNG_INTERNAL_H
#define AG_RNG_INTERNAL_H

#include <stdint.h>
/* internal to the library: not exported from the shared library (only the public headers are) */
#pragma GCC visibility push(hidden)

static inline uint64_t ag_i_rng_mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* The part of ag_rng_u64() that depends on seed and stream only. */
static inline uint64_t ag_i_rng_base(uint64_t seed, uint64_t stream) {
    return ag_i_rng_mix(ag_i_rng_mix(seed + 0x9e3779b97f4a7c15ULL) ^ (stream + 0x632be59bd9b4e019ULL));
}

/* ag_rng_uniform(seed, stream, index) given base = ag_i_rng_base(seed, stream). */
static inline float ag_i_rng_uniform_at(uint64_t base, uint64_t index) {
    /* 24 high bits: every value is exactly representable and strictly below 1. */
    return (float)(ag_i_rng_mix(base ^ index) >> 40) * (1.0f / 16777216.0f);
}

#pragma GCC visibility pop
#endif
