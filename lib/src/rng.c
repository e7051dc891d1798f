/*
 * rng.c: counter-based random numbers (a splitmix64-style hash of seed, stream and index).
 */
#include <math.h>
#include "attngraph/rng.h"

static uint64_t mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void ag_rng_init(ag_rng_t *rng, uint64_t seed) {
    rng->seed = seed;
    rng->stream = 0;
}

uint64_t ag_rng_next_stream(ag_rng_t *rng) { return rng->stream++; }

uint64_t ag_rng_u64(uint64_t seed, uint64_t stream, uint64_t index) {
    return mix(mix(mix(seed + 0x9e3779b97f4a7c15ULL) ^ (stream + 0x632be59bd9b4e019ULL)) ^ index);
}

float ag_rng_uniform(uint64_t seed, uint64_t stream, uint64_t index) {
    /* 24 high bits: every value is exactly representable and strictly below 1. */
    return (float)(ag_rng_u64(seed, stream, index) >> 40) * (1.0f / 16777216.0f);
}

float ag_rng_normal(uint64_t seed, uint64_t stream, uint64_t index) {
    uint64_t r = ag_rng_u64(seed, stream, index);
    double u1 = ((double)(r >> 11) + 1.0) * (1.0 / 9007199254740993.0); /* (0, 1] */
    double u2 = (double)(ag_rng_u64(seed, stream ^ 0x5bd1e995ULL, index) >> 11) * (1.0 / 9007199254740992.0);
    return (float)(sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2));
}
