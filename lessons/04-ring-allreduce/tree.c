/* tree.c — the binomial-tree all-reduce: few steps, for small messages.
 *
 * Up: in round d = 1, 2, 4, …, every rank whose bit d is set sends its partial sum to rank − d and
 * drops out; the others receive from rank + d (if it exists) and add. After ⌈log2 N⌉ rounds rank 0
 * holds the total. Down: the same tree backwards, rank 0 first.
 *
 *   N = 6        up (d=1)        up (d=2)      up (d=4)          down: the arrows reversed
 *             1 → 0, 3 → 2,     2 → 0,        4 → 0
 *             5 → 4             (6 absent)
 *
 *                 0
 *               / | \           rank r's parent is r − lowbit(r); its children are r + d for
 *              1  2  4          every d below its lowest set bit (and below the next power of 2)
 *                 |  |
 *                 3  5
 *
 * Each rank sends and receives whole buffers: 2⌈log2 N⌉ steps on the critical path instead of the
 * ring's 2(N−1), but rank 0 moves 2⌈log2 N⌉·|g| bytes instead of 2(N−1)/N·|g|. Latency wins small
 * messages for the tree; bandwidth wins large ones for the ring. */
#include "ring.h"

#include "util.h"

void tree_allreduce(coll_t *coll, float *buf, size_t count, redop_t op) {
    comm_t *c = coll->comm;
    int N = comm_world_size(c), r = comm_rank(c);
    if (count == 0) return;
    int top = 1; /* the smallest power of two >= N */
    while (top < N) top <<= 1;
    // TODO(04 tree_allreduce): the contract of ring_allreduce, on the tree drawn above (README,
    //   "The binomial tree"): whole buffers, exchanged only with your parent and your children; the
    //   total exists at rank 0 alone, which is the only rank to divide for REDOP_AVG. Given:
    //   comm_send, comm_recv, coll_scratch, reduce_add, ops_scale; top (computed above).
    (void)buf, (void)op, (void)r;
    DP_TODO();
}
