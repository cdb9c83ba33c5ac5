/* collective.c — the coll_t workspace and the reduction's dispatch between host and GPU. */
#include "collective.h"

#include "util.h"

#include <stddef.h>

#ifdef DPC_HAVE_CUDA
#include "ops_cuda.h"
#endif

void coll_init(coll_t *coll, comm_t *comm, const ops_t *ops) {
    coll->comm = comm;
    coll->ops = ops;
    /* device buffers: the comm seam orders its transfers after the kernels queued on ops's stream */
    if (ops && ops_stream(ops)) comm_set_stream(comm, ops_stream(ops));
    coll->scratch = NULL;
    coll->scratch_count = 0;
    coll->ext = NULL;
}

void coll_free(coll_t *coll) {
    if (coll->scratch) ops_free(coll->ops, coll->scratch);
    coll->scratch = NULL;
    coll->scratch_count = 0;
}

/* The collectives' entry points take counts the student computed: a count past 2^40 floats is a
 * negative number or a subtraction below 0 converted to size_t, and a coll_t never set up has no
 * communicator. One line each, here, rather than an allocator abort or a crash in the transport. */
#define COLL_COUNT_MAX ((size_t)1 << 40)

static void check_count(const char *fn, size_t count) {
    if (count > COLL_COUNT_MAX)
        dp_fatal("%s(%zu floats) (%td as a signed number): a negative count converted to size_t; check the "
                 "subtraction or the int that computed it",
                 fn, count, (ptrdiff_t)count);
}

float *coll_scratch(coll_t *coll, size_t count) {
    if (!coll || !coll->comm) dp_fatal("coll_scratch on a coll_t that coll_init never set up");
    check_count("coll_scratch", count);
    if (count > coll->scratch_count) {
        if (coll->scratch) ops_free(coll->ops, coll->scratch);
        coll->scratch = ops_alloc(coll->ops, count);
        coll->scratch_count = count;
    }
    return coll->scratch;
}

void reduce_add(const ops_t *ops, float *acc, const float *in, size_t n) {
    check_count("reduce_add", n);
    if (n && (!acc || !in))
        dp_fatal("reduce_add of %zu floats with %s NULL: was the buffer allocated (coll_scratch)?", n,
                 !acc ? "acc" : "in");
#ifdef DPC_HAVE_CUDA
    /* by where the data is, not only by the context: a host scalar (lesson 08's Σg²) may be
     * all-reduced on a GPU context */
    if (ops && ops->backend == OPS_CUDA && ops_is_device_pointer(acc)) {
        reduce_add_cuda(acc, in, n, ops_cuda_stream(ops));
        return;
    }
#else
    (void)ops;
#endif
    reduce_add_cpu(acc, in, n);
}
