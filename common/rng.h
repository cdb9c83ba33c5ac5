/* rng.h — a counter-based random number generator (Philox-4x32-10, Salmon et al., SC'11).
 *
 * Counter-based means: the n-th number of stream `seed` is a pure function philox(seed, n). There is
 * no hidden state to keep in sync, so
 *   - every rank that asks for (seed, n) gets the same number, without communicating;
 *   - a CUDA kernel thread i can compute number i of the same stream and match the CPU bit for bit;
 *   - the generator state in a checkpoint is two integers (seed, offset).
 *
 *      counter n ──► [ 10 rounds of multiply/xor, keyed by seed ] ──► 4 x uint32
 */
#ifndef DPC_RNG_H
#define DPC_RNG_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t seed;   /* the stream (the Philox key) */
    uint64_t offset; /* how many uint32 values were drawn so far */
} rng_t;

/* The raw block function: 4 uint32 outputs for 128-bit counter (ctr[0..3]) under a 64-bit key. */
void philox4x32_10(const uint32_t ctr[4], uint64_t key, uint32_t out[4]);

/* Value number `index` of stream `seed` (random access). */
uint32_t rng_u32_at(uint64_t seed, uint64_t index);

void rng_init(rng_t *r, uint64_t seed);
uint32_t rng_u32(rng_t *r);               /* next value of the stream */
float rng_uniform(rng_t *r);              /* in [0, 1), 24 random bits */
float rng_normal(rng_t *r);               /* standard normal (Box–Muller) */
uint32_t rng_below(rng_t *r, uint32_t n); /* in [0, n), n > 0 (multiply-shift, unbiased enough) */

/* Fill perm[0..n) with a uniformly shuffled 0..n-1 (Fisher–Yates driven by r). */
void rng_permutation(rng_t *r, uint32_t *perm, uint32_t n);

#endif
