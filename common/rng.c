/* rng.c — Philox-4x32-10. The constants are the ones published with Random123. */
#include "rng.h"

#include <math.h>

#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u /* golden ratio */
#define PHILOX_W1 0xBB67AE85u /* sqrt(3) - 1 */

void philox4x32_10(const uint32_t ctr[4], uint64_t key, uint32_t out[4]) {
    uint32_t c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3];
    uint32_t k0 = (uint32_t)key, k1 = (uint32_t)(key >> 32);
    for (int round = 0; round < 10; round++) {
        uint64_t p0 = (uint64_t)PHILOX_M0 * c0;
        uint64_t p1 = (uint64_t)PHILOX_M1 * c2;
        uint32_t hi0 = (uint32_t)(p0 >> 32), lo0 = (uint32_t)p0;
        uint32_t hi1 = (uint32_t)(p1 >> 32), lo1 = (uint32_t)p1;
        c0 = hi1 ^ c1 ^ k0;
        c1 = lo1;
        c2 = hi0 ^ c3 ^ k1;
        c3 = lo0;
        k0 += PHILOX_W0;
        k1 += PHILOX_W1;
    }
    out[0] = c0;
    out[1] = c1;
    out[2] = c2;
    out[3] = c3;
}

uint32_t rng_u32_at(uint64_t seed, uint64_t index) {
    uint64_t block = index / 4;
    uint32_t ctr[4] = {(uint32_t)block, (uint32_t)(block >> 32), 0, 0};
    uint32_t out[4];
    philox4x32_10(ctr, seed, out);
    return out[index % 4];
}

void rng_init(rng_t *r, uint64_t seed) {
    r->seed = seed;
    r->offset = 0;
}

uint32_t rng_u32(rng_t *r) { return rng_u32_at(r->seed, r->offset++); }

float rng_uniform(rng_t *r) { return (float)(rng_u32(r) >> 8) * (1.0f / 16777216.0f); }

float rng_normal(rng_t *r) {
    float u1 = 1.0f - rng_uniform(r); /* (0, 1]: log() stays finite */
    float u2 = rng_uniform(r);
    return sqrtf(-2.0f * logf(u1)) * cosf(6.28318530717958647692f * u2);
}

uint32_t rng_below(rng_t *r, uint32_t n) { return (uint32_t)(((uint64_t)rng_u32(r) * n) >> 32); }

void rng_permutation(rng_t *r, uint32_t *perm, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) perm[i] = i;
    for (uint32_t i = n; i > 1; i--) {
        uint32_t j = rng_below(r, i);
        uint32_t t = perm[i - 1];
        perm[i - 1] = perm[j];
        perm[j] = t;
    }
}
