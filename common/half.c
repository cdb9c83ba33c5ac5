/* half.c — see half.h; the conversions themselves are in half_bits.h, shared with the GPU. */
#include "half.h"

#include "half_bits.h"

uint16_t float_to_bf16(float f) { return half_float_to_bf16(f); }
float bf16_to_float(uint16_t h) { return half_bf16_to_float(h); }
uint16_t float_to_fp16(float f) { return half_float_to_fp16(f); }
float fp16_to_float(uint16_t h) { return half_fp16_to_float(h); }
