/* half_sweep.h — float32 bit patterns at every place where rounding to bf16 or fp16 can go wrong,
 * for the tests of ops_round (test_ops_round.c on the CPU, test_gpu.c on the device against it).
 *
 * For both signs and every float32 exponent (zero and subnormals, normals, inf and NaN), mantissas
 * whose dropped bits sit just below, at and just above one half, with the kept last bit even and
 * odd, for bf16 (16 dropped bits) and for fp16 (13, more in its subnormal range, whose tie points
 * the exponent sweep reaches), a carry through the whole mantissa, NaN payloads only in the low
 * bits, and the smallest and largest mantissas. */
#ifndef DPC_HALF_SWEEP_H
#define DPC_HALF_SWEEP_H

#include <stdint.h>
#include <string.h>

static const uint32_t half_sweep_mantissas[] = {
    0x000000, 0x000001, 0x000002, 0x007fff, 0x008000, 0x008001, 0x00ffff, 0x010000, 0x017fff, 0x018000,
    0x018001, 0x7f7fff, 0x7f8000, 0x7f8001, 0x7fffff, 0x400000, 0x400001, 0x000fff, 0x001000, 0x001001,
    0x002000, 0x002fff, 0x003000, 0x003001, 0x3ff000, 0x7ff000, 0x7fefff, 0x555555, 0x2aaaaa, 0x000040,
};

#define HALF_SWEEP_COUNT (2 * 256 * (sizeof half_sweep_mantissas / sizeof half_sweep_mantissas[0]))

/* Fill out[HALF_SWEEP_COUNT]. */
static inline void half_sweep(float *out) {
    size_t k = 0, nm = sizeof half_sweep_mantissas / sizeof half_sweep_mantissas[0];
    for (uint32_t sign = 0; sign < 2; sign++)
        for (uint32_t e = 0; e < 256; e++)
            for (size_t i = 0; i < nm; i++) {
                uint32_t u = sign << 31 | e << 23 | half_sweep_mantissas[i];
                memcpy(&out[k++], &u, sizeof u);
            }
}

#endif
