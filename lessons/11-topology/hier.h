/* hier.h — lesson 11: the hierarchical all-reduce of a two-level cluster (M nodes of K ranks).
 *
 * Inside a node the links are fast (NVLink), between nodes slow (InfiniBand). So, as NCCL does,
 * reduce inside the node first and send only a 1/K shard of the buffer across:
 *
 *   1. reduce-scatter inside the node (lesson 04's ring on h->intra): local rank l ends with the
 *      node's sum of shard l (chunk_range(count, K, l));
 *   2. all-reduce of that shard across the nodes, between the ranks of local index l (lesson 04's
 *      ring halves on h->inter): every one of them ends with the shard's sum over the world;
 *   3. all-gather inside the node (h->intra): every rank ends with every shard.
 *
 * For REDOP_AVG each rank scales only the piece of its shard it finished in step 2 (chunk m of M of
 * the shard, m its node's index), once, by 1/N with N = M·K the world size. */
#ifndef DPC_HIER_H
#define DPC_HIER_H

#include "collective.h"
#include "ddp.h"

typedef struct {
    /* intra: this rank's node, ranked in the order of the world (comm_rank(intra.comm) is the
     * local rank l, its size K); inter: the ranks of local index l, one per node, in node order
     * (comm_rank(inter.comm) is the node's index m, its size M). Both on the buffers' ops. */
    coll_t intra, inter;
    int world_size; /* N = M·K */
} hier_t;

/* Given: split c into the two sub-communicators (collective over c: every rank of c calls it).
 * Nodes are --topology's, or without it the real machines (one machine: one node, and the
 * hierarchical all-reduce is lesson 04's ring). Stops with one line when the nodes hold different
 * numbers of ranks: the shards of step 2 would not line up. */
void hier_init(hier_t *h, comm_t *c, const ops_t *ops);
void hier_free(hier_t *h);

/* Yours: buf (count floats) ends with the sum (REDOP_SUM) or mean (REDOP_AVG) over every rank of
 * the world, the same bits on every rank, as described above. */
void hier_allreduce(hier_t *h, float *buf, size_t count, redop_t op);

/* Given: hier_allreduce as an allreduce_fn, the hier_t in coll->ext (hier_attach). */
void hier_allreduce_coll(coll_t *coll, float *buf, size_t count, redop_t op);
void hier_attach(coll_t *coll);
void hier_detach(coll_t *coll);

/* "--allreduce hier" for lesson 05's DDP (lessons/11-topology/train_ddp.c). */
extern const ddp_allreduce_ext_t hier_ddp_ext;

#endif
