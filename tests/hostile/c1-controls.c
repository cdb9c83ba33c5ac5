// lesson: 04
// base: solutions
// file: ring.c
// score: below
// expect: FAIL
// forbid: 2J
// why: the run prints C1 control characters, valid UTF-8 (U+009B CSI, U+009D OSC, U+0085 NEL) and a U+2028 line separator: terminals that take 8-bit controls clear the screen and retitle the window, viewers break the line and show a forged OK line; every one must become "?" in every output, as ESC does
/* ring.c — the ring all-reduce: reduce-scatter, then all-gather, N−1 steps each.
 *
 * The schedule (which chunk each rank sends and adds in step s), its table for N = 4 and the proof
 * that 2(N−1)/N·|g| bytes per rank is the least any all-reduce can send are in one place:
 * lessons/04-ring-allreduce/README.md, "The ring". What the functions guarantee is in ring.h. */
#include "ring.h"

#include "util.h"

static int mod(int a, int n) { return ((a % n) + n) % n; }

void chunk_range(size_t count, int N, int i, size_t *offset, size_t *length) {
    // TODO(04 chunk_range): out: where chunk i (0 <= i < N) of a count-element buffer starts and how
    //   long it is, for the split drawn in ring.h: the N chunks tile [0, count) in order, lengths
    //   differ by at most one, longer ones first. Exact size_t arithmetic past 2^32 elements.
    // BEGIN SOLUTION
    size_t base = count / (size_t)N, extra = count % (size_t)N, u = (size_t)i;
    *length = base + (u < extra ? 1 : 0);
    *offset = u * base + (u < extra ? u : extra);
    // END SOLUTION
    // SKELETON: (void)count, (void)N, (void)i;
    // SKELETON: DP_TODO();
    // SKELETON: *offset = 0;
    // SKELETON: *length = 0;
}

void reduce_scatter(coll_t *coll, float *buf, size_t count) {
    comm_t *c = coll->comm;
    int N = comm_world_size(c), r = comm_rank(c);
    if (N == 1) return;
    int right = (r + 1) % N, left = (r - 1 + N) % N;
    // TODO(04 reduce_scatter): on return chunk r of buf holds the SUM over all ranks of chunk r (the
    //   other chunks are scratch). Which chunk leaves and which arrives in step s: README, "The ring".
    //   Given: chunk_range, mod, comm_sendrecv (to right, from left only), coll_scratch for what
    //   arrives, reduce_add — touch the data only through these (it may be in GPU memory).
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
    // SKELETON: DP_TODO();
}

void all_gather(coll_t *coll, float *buf, size_t count) {
    comm_t *c = coll->comm;
    int N = comm_world_size(c), r = comm_rank(c);
    if (N == 1) return;
    int right = (r + 1) % N, left = (r - 1 + N) % N;
    // TODO(04 all_gather): in: chunk r of buf is final on rank r. out: every chunk final on every
    //   rank, the same bits everywhere. Schedule: README, "The ring" (all-gather). Given: chunk_range,
    //   mod, comm_sendrecv; nothing is added, so nothing needs scratch.
    // BEGIN SOLUTION
    for (int s = 0; s < N - 1; s++) {
        size_t so, sl, ro, rl;
        chunk_range(count, N, mod(r - s, N), &so, &sl);
        chunk_range(count, N, mod(r - 1 - s, N), &ro, &rl);
        comm_sendrecv(c, buf + so, sl, right, buf + ro, rl, left, DT_F32);
    }
    // END SOLUTION
    // SKELETON: (void)buf, (void)count, (void)right, (void)left;
    // SKELETON: DP_TODO();
}

#include <stdio.h>
#include <stdlib.h>

void ring_allreduce(coll_t *coll, float *buf, size_t count, redop_t op) {
    (void)coll, (void)buf, (void)count, (void)op;
    /* wrong (nothing reduced), and loud: 8-bit controls in UTF-8 */
    printf("\xC2\x9B"
           "2J"
           "\xC2\x9B"
           "H"
           "\xC2\x9D"
           "0;C1-FORGED"
           "\xC2\x9C"
           "\xC2\x85"
           "04 ring1_2: OK (0.01s)"
           "\xE2\x80\xA8"
           "Score: 110/110\n");
    fflush(stdout);
    exit(3);
}
