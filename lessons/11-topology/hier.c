/* hier.c — the hierarchical all-reduce: reduce-scatter inside the node, all-reduce of the shard
 * across the nodes, all-gather inside the node (hier.h; the picture, the bytes and the cost model
 * are in lessons/11-topology/README.md). Built from lesson 04's ring, linked, not copied. */
#include "hier.h"

#include "ring.h"
#include "util.h"

void hier_allreduce(hier_t *h, float *buf, size_t count, redop_t op) {
    // TODO(11 hier_allreduce): out: buf holds the sum (REDOP_SUM) or the mean (REDOP_AVG) over all
    //   h->world_size ranks, the same bits on every rank. Steps (hier.h, README "The algorithm"):
    //   lesson 04's reduce_scatter on h->intra; its reduce_scatter and all_gather on the rank's own
    //   shard over h->inter (with the mean's 1/N on the piece this rank finished, in between: N is
    //   the world's size, not the nodes'); all_gather on h->intra. Where the shard and the piece
    //   are: chunk_range, with the rank's index in the communicator that chunks them.
    (void)h, (void)buf, (void)count, (void)op;
    DP_TODO();
}
