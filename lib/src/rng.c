/*
 * rng.c: counter-based random numbers (a splitmix64-style hash of seed, stream and index).
 */
#include <math.h>
#include "attngraph/rng.h"
#include "rng_internal.h"

void ag_rng_init(ag_rng_t *rng, uint64_t seed) {
    rng->seed = seed;
    rng->stream = 0;
}

uint64_t ag_rng_next_stream(ag_rng_t *rng) { return rng->stream++; }

uint64_t ag_rng_u64(uint64_t seed, uint64_t stream, uint64_t index) {
    return ag_i_rng_mix(ag_i_rng_base(seed, stream) ^ index);
}

float ag_rng_uniform(uint64_t seed, uint64_t stream, uint64_t index) {
    return ag_i_rng_uniform_at(ag_i_rng_base(seed, stream), index);
}

float ag_rng_normal(uint64_t seed, uint64_t stream, uint64_t index) {
    uint64_t r = ag_rng_u64(seed, stream, index);
    double u1 = ((double)(r >> 11) + 1.0) * (1.0 / 9007199254740993.0); /* (0, 1] */
    double u2 = (double)(ag_rng_u64(seed, stream ^ 0x5bd1e995ULL, index) >> 11) * (1.0 / 9007199254740992.0);
    return (float)(sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2));
}
