/*
 * attngraph/rng.h: seeded, counter-based random numbers.
 *
 * Every random draw (weight initialisation, dropout, shuffling) is a pure function of
 * (seed, stream, index), so a dropout mask does not depend on which thread drew it: results are
 * identical for any number of threads and from run to run with the same seed.
 */
#ifndef ATTNGRAPH_RNG_H
#define ATTNGRAPH_RNG_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ag_rng_t {
    uint64_t seed;
    uint64_t stream; /* advanced once per use (one layer's dropout in one step, one shuffle) */
} ag_rng_t;

/** \function ag_rng_init
 * A generator for a seed, at stream 0.
 * Time complexity: O(1). */
void ag_rng_init(ag_rng_t *rng, uint64_t seed);

/** \function ag_rng_next_stream
 * Returns a fresh stream id for one use and advances the generator.
 * Time complexity: O(1). */
uint64_t ag_rng_next_stream(ag_rng_t *rng);

/** \function ag_rng_u64
 * The index-th 64-bit draw of a stream (a stateless hash of seed, stream, index).
 * Time complexity: O(1). */
uint64_t ag_rng_u64(uint64_t seed, uint64_t stream, uint64_t index);

/** \function ag_rng_uniform
 * The index-th draw of a stream as a float in [0, 1).
 * Time complexity: O(1). */
float ag_rng_uniform(uint64_t seed, uint64_t stream, uint64_t index);

/** \function ag_rng_normal
 * The index-th draw of a stream from N(0, 1) (Box-Muller on two hashed uniforms).
 * Time complexity: O(1). */
float ag_rng_normal(uint64_t seed, uint64_t stream, uint64_t index);

#ifdef __cplusplus
}
#endif
#endif
