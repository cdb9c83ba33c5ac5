/* naive-b.c — another independent lesson 03 naive all-reduce (tests/sh/similarity.sh): one pass
 * over the peers per phase, the root's work and the leaves' in one function. */
#include "collective.h"

#include "util.h"

void naive_allreduce(coll_t *coll, float *buf, size_t count, redop_t op) {
    comm_t *c = coll->comm;
    int N = comm_world_size(c), rank = comm_rank(c);
    if (count == 0) return;
    const int root = 0;
    if (rank == root) {
        for (int src = 0; src < N; src++) {
            if (src == root) continue;
            float *tmp = coll_scratch(coll, count);
            comm_recv(c, tmp, count, DT_F32, src);
            reduce_add(coll->ops, buf, tmp, count);
        }
        if (op == REDOP_AVG && N > 1) ops_scale(coll->ops, buf, 1.0f / N, count);
        for (int dst = 0; dst < N; dst++)
            if (dst != root) comm_send(c, buf, count, DT_F32, dst);
    } else {
        comm_send(c, buf, count, DT_F32, root);
        comm_recv(c, buf, count, DT_F32, root);
    }
}
