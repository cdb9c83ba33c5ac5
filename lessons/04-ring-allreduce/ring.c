/* ring.c — the ring all-reduce: reduce-scatter, then all-gather, N−1 steps each.
 *
 * The schedule (which chunk each rank sends and adds in step s), its table for N = 4 and the proof
 * that 2(N−1)/N·|g| bytes per rank is the least any all-reduce can send are in one place:
 * lessons/04-ring-allreduce/README.md, "The ring". What the functions guarantee is in ring.h. */
#include "ring.h"

static int mod(int a, int n) { return ((a % n) + n) % n; }

void chunk_range(size_t count, int N, int i, size_t *offset, size_t *length) {
    // TODO(04 chunk_range): chunks of count/N elements, the first count % N of them one longer.
    (void)count, (void)N, (void)i;
    *offset = 0;
    *length = 0;
}

void reduce_scatter(coll_t *coll, float *buf, size_t count) {
    comm_t *c = coll->comm;
    int N = comm_world_size(c), r = comm_rank(c);
    if (N == 1) return;
    int right = (r + 1) % N, left = (r - 1 + N) % N;
    // TODO(04 reduce_scatter): N−1 steps; in step s send chunk (r−1−s) right, receive chunk (r−2−s)
    //   from the left into coll_scratch and reduce_add it into that chunk.
    (void)buf, (void)count, (void)right, (void)left, (void)mod;
}

void all_gather(coll_t *coll, float *buf, size_t count) {
    comm_t *c = coll->comm;
    int N = comm_world_size(c), r = comm_rank(c);
    if (N == 1) return;
    int right = (r + 1) % N, left = (r - 1 + N) % N;
    // TODO(04 all_gather): N−1 steps; in step s send chunk (r−s) right and receive chunk (r−1−s)
    //   from the left straight into place (a copy: the chunks are final).
    (void)buf, (void)count, (void)right, (void)left;
}

void ring_allreduce(coll_t *coll, float *buf, size_t count, redop_t op) {
    // TODO(04 ring_allreduce): reduce_scatter; for REDOP_AVG scale your own chunk by 1/N (each rank
    //   scales 1/N of the buffer, not all of it); all_gather.
    (void)coll, (void)buf, (void)count, (void)op;
}
