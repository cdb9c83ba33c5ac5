/* mt19937.h — PyTorch's CPU generator: torch.Generator().manual_seed(s) and torch.randperm.
 *
 * 32-bit Mersenne Twister, seeded from the LOW 32 BITS of s (so seed 2^32 + 1 behaves like seed 1),
 * identical to C++'s std::mt19937(uint32_t(s)); randperm is PyTorch's randperm_cpu for n below
 * 2^32 / 20: start from 0..n−1 and for i = 0..n−2 swap r[i] with r[i + draw % (n − i)] (a slightly
 * biased modulo, but that is what makes index lists equal to PyTorch's). The lesson-07 sampler and
 * the reference trainer use it so that their index lists are PyTorch's, element for element. */
#ifndef DPC_MT19937_H
#define DPC_MT19937_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint32_t state[624];
    int index;
} mt19937_t;

void mt19937_seed(mt19937_t *mt, uint64_t seed);
uint32_t mt19937_next(mt19937_t *mt);

/* out[0..n) = torch.randperm(n, generator=torch.Generator().manual_seed(seed)). */
void mt19937_randperm(uint32_t *out, size_t n, uint64_t seed);

#endif
