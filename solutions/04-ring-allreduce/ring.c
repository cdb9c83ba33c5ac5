/* ring.c — the ring all-reduce: reduce-scatter, then all-gather, N−1 steps each.
 *
 * Ranks form a ring; each step, every rank sends one chunk to its right neighbour and receives one
 * from its left, at the same time (comm_sendrecv: no deadlock, every link busy):
 *
 *            ┌──► 1 ──┐
 *            0        2          rank r sends to (r+1) % N, receives from (r−1+N) % N
 *            └─── 3 ◄─┘
 *
 * Reduce-scatter, N = 4: in step s rank r sends chunk (r−1−s) and adds the chunk (r−2−s) it
 * receives (indices mod N). Each chunk travels around the ring collecting one addend per hop:
 *
 *   step     rank 0 sends/adds   rank 1        rank 2        rank 3
 *    0         c3 / c2           c0 / c3       c1 / c0       c2 / c1
 *    1         c2 / c1           c3 / c2       c0 / c3       c1 / c0
 *    2         c1 / c0 ✓         c2 / c1 ✓     c3 / c2 ✓     c0 / c3 ✓     (✓: chunk r complete)
 *
 * After N−1 steps rank r holds the full sum of chunk r. All-gather then passes the finished chunks
 * around once more: in step s rank r sends chunk (r−s) and receives chunk (r−1−s), copying it.
 *
 * Every rank sends N−1 chunks in each phase: 2(N−1)/N·|g| bytes in all, whatever N — the
 * minimum any all-reduce can achieve, and no rank does more than another. */
#include "ring.h"

static int mod(int a, int n) { return ((a % n) + n) % n; }

void chunk_range(size_t count, int N, int i, size_t *offset, size_t *length) {
    // TODO(04 chunk_range): chunks of count/N elements, the first count % N of them one longer.
    // BEGIN SOLUTION
    size_t base = count / (size_t)N, extra = count % (size_t)N, u = (size_t)i;
    *length = base + (u < extra ? 1 : 0);
    *offset = u * base + (u < extra ? u : extra);
    // END SOLUTION
    // SKELETON: (void)count, (void)N, (void)i;
    // SKELETON: *offset = 0;
    // SKELETON: *length = 0;
}

void reduce_scatter(coll_t *coll, float *buf, size_t count) {
    comm_t *c = coll->comm;
    int N = comm_world_size(c), r = comm_rank(c);
    if (N == 1) return;
    int right = (r + 1) % N, left = (r - 1 + N) % N;
    // TODO(04 reduce_scatter): N−1 steps; in step s send chunk (r−1−s) right, receive chunk (r−2−s)
    //   from the left into coll_scratch and reduce_add it into that chunk.
    // BEGIN SOLUTION
    size_t base = count / (size_t)N;
    float *in = coll_scratch(coll, base + 1);
    for (int s = 0; s < N - 1; s++) {
        size_t so, sl, ro, rl;
        chunk_range(count, N, mod(r - 1 - s, N), &so, &sl);
        chunk_range(count, N, mod(r - 2 - s, N), &ro, &rl);
        comm_sendrecv(c, buf + so, sl, right, in, rl, left, DT_F32);
        reduce_add(coll->ops, buf + ro, in, rl);
    }
    // END SOLUTION
    // SKELETON: (void)buf, (void)count, (void)right, (void)left, (void)mod;
}

void all_gather(coll_t *coll, float *buf, size_t count) {
    comm_t *c = coll->comm;
    int N = comm_world_size(c), r = comm_rank(c);
    if (N == 1) return;
    int right = (r + 1) % N, left = (r - 1 + N) % N;
    // TODO(04 all_gather): N−1 steps; in step s send chunk (r−s) right and receive chunk (r−1−s)
    //   from the left straight into place (a copy: the chunks are final).
    // BEGIN SOLUTION
    for (int s = 0; s < N - 1; s++) {
        size_t so, sl, ro, rl;
        chunk_range(count, N, mod(r - s, N), &so, &sl);
        chunk_range(count, N, mod(r - 1 - s, N), &ro, &rl);
        comm_sendrecv(c, buf + so, sl, right, buf + ro, rl, left, DT_F32);
    }
    // END SOLUTION
    // SKELETON: (void)buf, (void)count, (void)right, (void)left;
}

void ring_allreduce(coll_t *coll, float *buf, size_t count, redop_t op) {
    // TODO(04 ring_allreduce): reduce_scatter; for REDOP_AVG scale your own chunk by 1/N (each rank
    //   scales 1/N of the buffer, not all of it); all_gather.
    // BEGIN SOLUTION
    int N = comm_world_size(coll->comm), r = comm_rank(coll->comm);
    reduce_scatter(coll, buf, count);
    if (op == REDOP_AVG) {
        size_t off, len;
        chunk_range(count, N, r, &off, &len);
        ops_scale(coll->ops, buf + off, 1.0f / (float)N, len);
    }
    all_gather(coll, buf, count);
    // END SOLUTION
    // SKELETON: (void)coll, (void)buf, (void)count, (void)op;
}
