/* half_bits.h — the conversions of half.h as inline functions that compile for the host (C11) and,
 * under nvcc, for the device too: the CPU (half.c, ops_round) and the GPU (ops_cuda.cu: ops_round's
 * kernel, the operands of a bf16/fp16 GEMM) round with one and the same code, so that the two agree
 * to the bit by construction (tests/unit/test_gpu.c checks that they do). Bit manipulation only: the
 * result must not depend on the FPU's rounding mode or on the compiler's choice of instructions.
 * Use half.h; this header is its implementation. */
#ifndef DPC_HALF_BITS_H
#define DPC_HALF_BITS_H

#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define HALF_FN static inline __host__ __device__
#else
#define HALF_FN static inline
#endif

HALF_FN uint32_t half_bits_of(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

HALF_FN float half_float_of(uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* Round the integer m right by `shift` bits (1..31), to nearest, ties to even. */
HALF_FN uint32_t half_shift_rne(uint32_t m, int shift) {
    uint32_t q = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
    return q + (rem > half || (rem == half && (q & 1)));
}

HALF_FN uint16_t half_float_to_bf16(float f) {
    uint32_t u = half_bits_of(f);
    /* a NaN whose payload sits only in the low 16 bits would truncate to inf: force the quiet bit */
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x0040u);
    /* Adding 0x7fff (+1 when the kept half is odd) carries into bit 16 exactly when the dropped
     * half is above one half (or equal to it with an odd kept half): round to nearest even. A carry
     * out of the mantissa bumps the exponent, which is the right answer too (up to inf). */
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

HALF_FN float half_bf16_to_float(uint16_t h) { return half_float_of((uint32_t)h << 16); }

HALF_FN uint16_t half_float_to_fp16(float f) {
    uint32_t u = half_bits_of(f);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    uint32_t x = u & 0x7fffffffu;
    if (x > 0x7f800000u) return (uint16_t)(sign | 0x7e00u | ((x >> 13) & 0x3ffu)); /* NaN, quiet */
    /* 65520 is halfway between 65504 (the largest finite, odd mantissa) and 65536 (the next step):
     * it and anything above round to inf (float32 inf included). */
    if (x >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);
    int e = (int)(x >> 23); /* float32's biased exponent */
    if (e >= 113)           /* |f| >= 2^-14: an fp16 normal; a carry may reach the next exponent */
        return (uint16_t)(sign | half_shift_rne(((uint32_t)(e - 112) << 23) | (x & 0x7fffffu), 13));
    /* Below 2^-14: an fp16 subnormal, a multiple of 2^-24. |f| = m * 2^(e - 150) with the implicit
     * bit, so |f| / 2^-24 = m / 2^(126 - e). Below 2^-25 (e < 102, and float32 subnormals) it is
     * under half a step: zero. Rounding 2^-14 - tiny up gives 0x400, the smallest normal: right. */
    if (e < 102) return sign;
    return (uint16_t)(sign | half_shift_rne((x & 0x7fffffu) | 0x800000u, 126 - e));
}

HALF_FN float half_fp16_to_float(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 31) return half_float_of(sign | 0x7f800000u | (m << 13)); /* inf, NaN (payload kept) */
    if (e == 0) {
        /* ±0 and subnormals m * 2^-24: exact in float32 (m has 10 bits) */
        float v = (float)m * 0x1p-24f;
        return sign ? -v : v;
    }
    return half_float_of(sign | ((e + 112) << 23) | (m << 13));
}

#undef HALF_FN

#endif
