/* naive.c — all-reduce as "reduce to a root, then broadcast".
 *
 *        phase 1: reduce                    phase 2: broadcast
 *   rank 1 ──g1──►┐                      ┌──sum──► rank 1
 *   rank 2 ──g2──►├──► rank 0: sum       ├──sum──► rank 2
 *   rank 3 ──g3──►┘    (+ its own g0)    └──sum──► rank 3
 *
 * Rank 0 receives N−1 buffers and sends N−1: its traffic is 2(N−1)·|g|, growing with N, while the
 * other ranks send and receive |g| once. Simple and correct — and the reason lesson 04 exists.
 *
 * Rules: in place; count may be 0 (then nothing is sent); REDOP_AVG divides the sum by N (multiply
 * by 1/N with ops_scale); receive into coll_scratch(coll, count) and add with reduce_add. Use only
 * comm_send / comm_recv (coll->comm). */
#include "collective.h"

#include "util.h"

void naive_allreduce(coll_t *coll, float *buf, size_t count, redop_t op) {
    comm_t *c = coll->comm;
    int N = comm_world_size(c), rank = comm_rank(c);
    if (count == 0) return;
    // TODO(03 naive_allreduce): on return every rank's buf holds the sum (REDOP_SUM) or the mean
    //   (REDOP_AVG) of all the ranks' buffers, the same bits everywhere, by the two phases drawn
    //   above: everything meets at rank 0, which alone adds (others in rank order 1, 2, …, N−1)
    //   and alone divides, and the result goes back. Helpers and rules: see above.
    // BEGIN SOLUTION
    if (rank == 0) {
        float *in = coll_scratch(coll, count);
        for (int r = 1; r < N; r++) {
            comm_recv(c, in, count, DT_F32, r);
            reduce_add(coll->ops, buf, in, count);
        }
        if (op == REDOP_AVG) ops_scale(coll->ops, buf, 1.0f / (float)N, count);
        for (int r = 1; r < N; r++) comm_send(c, buf, count, DT_F32, r);
    } else {
        comm_send(c, buf, count, DT_F32, 0);
        comm_recv(c, buf, count, DT_F32, 0);
    }
    // END SOLUTION
    // SKELETON: (void)N, (void)rank, (void)buf, (void)op;
    // SKELETON: DP_TODO();
}
