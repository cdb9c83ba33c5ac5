/* mt19937.c — see mt19937.h. The constants are MT19937's (Matsumoto & Nishimura, 1998). */
#include "mt19937.h"

#include "util.h"

void mt19937_seed(mt19937_t *mt, uint64_t seed) {
    mt->state[0] = (uint32_t)seed; /* the low 32 bits only, as PyTorch */
    for (int j = 1; j < 624; j++)
        mt->state[j] = 1812433253u * (mt->state[j - 1] ^ (mt->state[j - 1] >> 30)) + (uint32_t)j;
    mt->index = 624;
}

static void twist(mt19937_t *mt) {
    for (int i = 0; i < 624; i++) {
        uint32_t y = (mt->state[i] & 0x80000000u) | (mt->state[(i + 1) % 624] & 0x7fffffffu);
        mt->state[i] = mt->state[(i + 397) % 624] ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u);
    }
    mt->index = 0;
}

uint32_t mt19937_next(mt19937_t *mt) {
    if (mt->index >= 624) twist(mt);
    uint32_t y = mt->state[mt->index++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
}

void mt19937_randperm(uint32_t *out, size_t n, uint64_t seed) {
    if (n >= UINT32_MAX / 20) dp_fatal("randperm of %zu elements: only PyTorch's small-n algorithm is implemented", n);
    mt19937_t mt;
    mt19937_seed(&mt, seed);
    for (size_t i = 0; i < n; i++) out[i] = (uint32_t)i;
    for (size_t i = 0; i + 1 < n; i++) {
        size_t z = mt19937_next(&mt) % (uint32_t)(n - i);
        uint32_t t = out[i];
        out[i] = out[i + z];
        out[i + z] = t;
    }
}
