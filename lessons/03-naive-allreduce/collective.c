/* collective.c — the coll_t workspace and the reduction's dispatch between host and GPU. */
#include "collective.h"

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
}

void coll_free(coll_t *coll) {
    if (coll->scratch) ops_free(coll->ops, coll->scratch);
    coll->scratch = NULL;
    coll->scratch_count = 0;
}

float *coll_scratch(coll_t *coll, size_t count) {
    if (count > coll->scratch_count) {
        if (coll->scratch) ops_free(coll->ops, coll->scratch);
        coll->scratch = ops_alloc(coll->ops, count);
        coll->scratch_count = count;
    }
    return coll->scratch;
}

void reduce_add(const ops_t *ops, float *acc, const float *in, size_t n) {
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
