/* comm_reduce.c — the element-wise reductions a backend that reduces on the host needs: the switch
 * backend's library collectives (comm_switch.c) combine buffers with them, and the MPI and switch
 * backends' REDOP_AVG divides with comm_divide (MPI has no average: it sums, then divides). */
#include "comm_internal.h"

#include "util.h"

#include <stdint.h>

#define REDUCE(T)                                                                                                      \
    do {                                                                                                               \
        T *a = acc;                                                                                                    \
        const T *b = in;                                                                                               \
        if (op == REDOP_SUM || op == REDOP_AVG)                                                                        \
            for (size_t i = 0; i < count; i++) a[i] += b[i];                                                           \
        else if (op == REDOP_MAX)                                                                                      \
            for (size_t i = 0; i < count; i++) a[i] = b[i] > a[i] ? b[i] : a[i];                                       \
        else                                                                                                           \
            for (size_t i = 0; i < count; i++) a[i] = b[i] < a[i] ? b[i] : a[i];                                       \
    } while (0)

void comm_reduce_into(void *acc, const void *in, size_t count, dtype_t dt, redop_t op) {
    switch (dt) {
    case DT_F32:
        REDUCE(float);
        break;
    case DT_F64:
        REDUCE(double);
        break;
    case DT_I32:
        REDUCE(int32_t);
        break;
    case DT_I64:
        REDUCE(int64_t);
        break;
    case DT_U8:
        REDUCE(uint8_t);
        break;
    case DT_U32:
        REDUCE(uint32_t);
        break;
    case DT_U64:
        REDUCE(uint64_t);
        break;
    default: /* comm.c's check_redop refuses the 16-bit floats before any backend sees them */
        dp_fatal("the comm seam does not reduce %s", dtype_name(dt));
    }
}

void comm_divide(void *buf, size_t count, dtype_t dt, int n) {
    if (dt == DT_F32) {
        float *x = buf;
        for (size_t i = 0; i < count; i++) x[i] /= (float)n;
    } else {
        double *x = buf;
        for (size_t i = 0; i < count; i++) x[i] /= (double)n;
    }
}
