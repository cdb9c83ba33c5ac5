/* collective.h — what the all-reduce lessons (03, 04) share.
 *
 * All-reduce: every rank starts with its own buffer of `count` floats and ends with the element-wise
 * sum (REDOP_SUM) or mean (REDOP_AVG) over all ranks, IN PLACE:
 *
 *   before   rank 0: [a0 a1 a2]   rank 1: [b0 b1 b2]   rank 2: [c0 c1 c2]
 *   after    every rank: [a0+b0+c0  a1+b1+c1  a2+b2+c2]
 *
 * The algorithms are written with the comm seam's point-to-point calls and a reduction primitive
 * (reduce_add), never with a library collective. A coll_t carries what they need: the
 * communicator, where the buffers live (ops: host or GPU), and a reusable scratch buffer for
 * incoming data (allocating one per call would cost more than the messages). */
#ifndef DPC_COLLECTIVE_H
#define DPC_COLLECTIVE_H

#include "comm.h"
#include "ops.h"

#include <stddef.h>

typedef struct {
    comm_t *comm;
    const ops_t *ops;
    float *scratch;
    size_t scratch_count;
    /* What an all-reduce built on more than this communicator keeps with it (lesson 11's hier_t:
     * the node's and the nodes' sub-communicators), so that it still fits allreduce_fn; NULL for
     * the flat algorithms. coll_init sets it to NULL and coll_free leaves it alone. */
    void *ext;
} coll_t;

typedef void (*allreduce_fn)(coll_t *coll, float *buf, size_t count, redop_t op);

void coll_init(coll_t *coll, comm_t *comm, const ops_t *ops);
void coll_free(coll_t *coll);
/* A scratch buffer of at least `count` floats, in the buffers' memory (kept between calls). */
float *coll_scratch(coll_t *coll, size_t count);

/* acc[i] += in[i] for i < n: the reduction every all-reduce is built from. Runs the C loop on the
 * host and the CUDA kernel when the buffers live on the GPU. */
void reduce_add(const ops_t *ops, float *acc, const float *in, size_t n);
void reduce_add_cpu(float *acc, const float *in, size_t n);
#ifdef DPC_HAVE_CUDA
void reduce_add_cuda(float *acc, const float *in, size_t n, void *stream);
#endif

/* Lesson 03: reduce everything to rank 0, then rank 0 sends the result to every rank. */
void naive_allreduce(coll_t *coll, float *buf, size_t count, redop_t op);

#endif
