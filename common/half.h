/* half.h — the two 16-bit floating-point formats of mixed-precision training, as bit patterns.
 *
 *   bf16 (bfloat16): sign, 8 exponent bits, 7 mantissa bits — float32's range, 8 significant bits
 *                    (unit roundoff 2^-8). It is the top half of a float32.
 *   fp16 (IEEE binary16): sign, 5 exponent bits, 10 mantissa bits — 11 significant bits (unit
 *                    roundoff 2^-11) but a range of only 2^-24 (smallest subnormal) .. 65504.
 *
 * A value is held as its uint16_t bit pattern: C11 has no 16-bit float type, and the CPU code
 * computes in float32 anyway (it widens, computes, and rounds back). Rounding is IEEE's default,
 * round to nearest with ties to even, as torch's .to(torch.bfloat16) / .half() on a CPU or GPU:
 * a value past the largest finite one becomes ±inf in fp16 (bf16 has float32's range, so only
 * values already near FLT_MAX can round up to inf), a NaN stays a NaN (quiet, sign kept), and fp16
 * keeps its subnormals (no flush to zero). Widening back to float32 is always exact. */
#ifndef DPC_HALF_H
#define DPC_HALF_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

uint16_t float_to_bf16(float f);
float bf16_to_float(uint16_t h);
uint16_t float_to_fp16(float f);
float fp16_to_float(uint16_t h);

#ifdef __cplusplus
}
#endif

#endif
