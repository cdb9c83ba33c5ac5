/* ring_pipelined.c — going further: the ring, with each chunk moved in pieces.
 *
 * The plain ring receives a whole chunk (megabytes: it falls out of the caches), then reads it
 * again to add it. Cut each chunk into pieces of RING_PIECE_FLOATS (256 KiB) and add every piece
 * right after it arrives, while it is still in the L2 cache: the same bytes on the wire, one trip
 * through main memory fewer. (On a GPU the same idea overlaps the copy of piece i+1 with the
 * reduction of piece i — that is how NCCL pipelines its ring.) */
#include "ring.h"

#include "util.h"

static int mod(int a, int n) { return ((a % n) + n) % n; }

/* The student's chunk_range, checked before this file indexes the buffer with it: a chunk past the
 * buffer's end stops here in one line, not as a read past it inside the transport. */
static void chunk(size_t count, int N, int i, size_t *offset, size_t *length) {
    chunk_range(count, N, i, offset, length);
    if (*offset > count || *length > count - *offset)
        dp_fatal("chunk_range(%zu, %d, %d) gave offset %zu, length %zu: past the buffer's %zu elements (grading/grade "
                 "04 says more)",
                 count, N, i, *offset, *length, count);
}

void ring_allreduce_pipelined(coll_t *coll, float *buf, size_t count, redop_t op) {
    comm_t *c = coll->comm;
    int N = comm_world_size(c), r = comm_rank(c);
    if (N > 1) {
        int right = (r + 1) % N, left = (r - 1 + N) % N;
        float *in = coll_scratch(coll, RING_PIECE_FLOATS);
        for (int s = 0; s < N - 1; s++) { /* reduce-scatter, piece by piece */
            size_t so, sl, ro, rl;
            chunk(count, N, mod(r - 1 - s, N), &so, &sl);
            chunk(count, N, mod(r - 2 - s, N), &ro, &rl);
            /* p == 0 always runs: empty chunks still exchange one (empty) message, as the plain
             * ring does, so that both neighbours agree on the number of messages */
            for (size_t p = 0; p == 0 || p < sl || p < rl; p += RING_PIECE_FLOATS) {
                size_t sn = p < sl ? (sl - p < RING_PIECE_FLOATS ? sl - p : RING_PIECE_FLOATS) : 0;
                size_t rn = p < rl ? (rl - p < RING_PIECE_FLOATS ? rl - p : RING_PIECE_FLOATS) : 0;
                comm_sendrecv(c, buf + so + p, sn, sn || p == 0 ? right : -1, in, rn, rn || p == 0 ? left : -1, DT_F32);
                reduce_add(coll->ops, buf + ro + p, in, rn);
            }
        }
    }
    if (op == REDOP_AVG) {
        size_t off, len;
        chunk(count, N, r, &off, &len);
        ops_scale(coll->ops, buf + off, 1.0f / (float)N, len);
    }
    all_gather(coll, buf, count); /* nothing to add: whole chunks move best */
}
