/* hier_setup.c — the hierarchical all-reduce's two sub-communicators, and its place in DDP. */
#include "hier.h"

#include "util.h"

#include <stdlib.h>

void hier_init(hier_t *h, comm_t *c, const ops_t *ops) {
    /* both splits are collective over c: every rank makes them, in the same order */
    comm_t *intra = comm_split_node(c), *inter = comm_split_local(c);
    int N = comm_world_size(c), nodes = comm_nodes(c);
    /* step 2 pairs shard l of every node: that needs K ranks on every node (the same l everywhere) */
    if (nodes < 1 || N % nodes != 0 || comm_world_size(intra) != N / nodes || comm_world_size(inter) != nodes)
        dp_fatal("hier_init: the %d ranks sit on %d nodes that do not all hold %s ranks (this rank's node holds %d): "
                 "the hierarchical all-reduce needs M nodes of K ranks each — give --topology MxK, or launch as many "
                 "ranks on every machine",
                 N, nodes, N % (nodes > 0 ? nodes : 1) ? "as many" : "N / M", comm_world_size(intra));
    coll_init(&h->intra, intra, ops);
    coll_init(&h->inter, inter, ops);
    h->world_size = N;
}

void hier_free(hier_t *h) {
    comm_t *intra = h->intra.comm, *inter = h->inter.comm;
    coll_free(&h->intra);
    coll_free(&h->inter);
    comm_free(inter);
    comm_free(intra);
}

void hier_attach(coll_t *coll) {
    hier_t *h = dp_calloc(1, sizeof *h);
    hier_init(h, coll->comm, coll->ops);
    coll->ext = h;
}

void hier_detach(coll_t *coll) {
    if (!coll->ext) return;
    hier_free(coll->ext);
    free(coll->ext);
    coll->ext = NULL;
}

void hier_allreduce_coll(coll_t *coll, float *buf, size_t count, redop_t op) {
    if (!coll->ext) dp_fatal("hier_allreduce_coll: this coll_t has no sub-communicators: call hier_attach(coll) first");
    hier_allreduce(coll->ext, buf, count, op);
}

const ddp_allreduce_ext_t hier_ddp_ext = {"hier", hier_allreduce_coll, hier_attach, hier_detach};
