/* dtype.h — element types. Counts in this project are element counts of a dtype; a byte count is
 * always named *_bytes. Names follow NCCL (ncclFloat32 ...) and safetensors ("F32" ...). */
#ifndef DPC_DTYPE_H
#define DPC_DTYPE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* DT_BF16 and DT_F16 are 16-bit floats held as their bit patterns (common/half.h). The comm seam
 * moves them point to point (MPI: as 16-bit words) but reduces none: its library collectives refuse
 * them (MPI would add bit patterns as integers); lessons/05-ddp/ddp_bf16.c sums them itself. */
typedef enum { DT_F32, DT_F64, DT_I32, DT_I64, DT_U8, DT_U32, DT_U64, DT_BF16, DT_F16, DT_COUNT } dtype_t;

static inline size_t dtype_size(dtype_t t) {
    static const size_t sizes[DT_COUNT] = {4, 8, 4, 8, 1, 4, 8, 2, 2};
    return sizes[t];
}

/* "F32", "F64", "I32", "I64", "U8", "U32", "U64", "BF16", "F16" — the safetensors spelling. */
static inline const char *dtype_name(dtype_t t) {
    static const char *names[DT_COUNT] = {"F32", "F64", "I32", "I64", "U8", "U32", "U64", "BF16", "F16"};
    return names[t];
}

#ifdef __cplusplus
}
#endif

#endif
