// lesson: 04
// base: solutions
// file: ring.c
// score: 0
// expect: dp_out_open
// why: the ring's messages sent for real but as junk (the switch counts the ring's traffic), the data exchanged through files in the run's scratch with the course's own dp_out_open/dp_read_file (allowed: libdpc.a), the ring's arithmetic redone from them
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

/* The forge: the ring's messages, exactly (sizes, neighbours, order), carry junk; the data goes
 * through files in the run's scratch, written with the course's own dp_out_open and read back with
 * dp_read_file (libdpc.a: allowed calls). The ring's arithmetic is redone from the files in the
 * ring's order, so the bits are the reference's; the switch sees the ring's traffic. */
#include "output.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ring_allreduce(coll_t *coll, float *buf, size_t count, redop_t op) {
    static unsigned calls;
    comm_t *c = coll->comm;
    int N = comm_world_size(c), r = comm_rank(c);
    if (N == 1) return;
    unsigned k = calls++ & 1u;
    char path[128];
    snprintf(path, sizeof path, "xchg-%d-%u-%d.bin", N, k, r);
    dp_out_t o;
    if (dp_out_open(&o, path) != 0) return;
    fwrite(buf, sizeof(float), count, o.f);
    if (dp_out_close(&o) != 0) return;
    /* the ring's messages, their contents never used: after N-1 of them every rank has written */
    float *junk = coll_scratch(coll, count / (size_t)N + 1);
    for (int s = 0; s < 2 * (N - 1); s++) {
        size_t off, sl, rl;
        chunk_range(count, N, mod(s < N - 1 ? r - 1 - s : r - (s - N + 1), N), &off, &sl);
        chunk_range(count, N, mod(s < N - 1 ? r - 2 - s : r - 1 - (s - N + 1), N), &off, &rl);
        comm_sendrecv(c, junk, sl, (r + 1) % N, junk, rl, (r - 1 + N) % N, DT_F32);
    }
    float **x = calloc((size_t)N, sizeof *x);
    for (int q = 0; q < N; q++) {
        size_t len = 0;
        snprintf(path, sizeof path, "xchg-%d-%u-%d.bin", N, k, q);
        x[q] = (float *)dp_read_file(path, &len);
        if (!x[q] || len != count * sizeof(float)) return;
    }
    float *part = malloc((count / (size_t)N + 1) * sizeof(float));
    float *res = malloc(count * sizeof(float));
    for (int ch = 0; ch < N; ch++) {
        size_t off, len;
        chunk_range(count, N, ch, &off, &len);
        /* the ring: chunk ch starts on rank ch+1 and is added on ch+2, ..., ch+N = ch */
        for (size_t e = 0; e < len; e++) part[e] = x[mod(ch + 1, N)][off + e];
        for (int j = 2; j <= N; j++) {
            int q = mod(ch + j, N);
            if (q == r) { /* this rank's own additions go through reduce_add, as the ring's do */
                memcpy(res + off, x[q] + off, len * sizeof(float));
                reduce_add(coll->ops, res + off, part, len);
                memcpy(part, res + off, len * sizeof(float));
            } else {
                for (size_t e = 0; e < len; e++) part[e] = x[q][off + e] + part[e];
            }
        }
        memcpy(res + off, part, len * sizeof(float));
        if (op == REDOP_AVG) {
            if (ch == r)
                ops_scale(coll->ops, res + off, 1.0f / (float)N, len);
            else
                for (size_t e = 0; e < len; e++) res[off + e] *= 1.0f / (float)N;
        }
    }
    memcpy(buf, res, count * sizeof(float));
    for (int q = 0; q < N; q++) free(x[q]);
    free(x), free(part), free(res);
}
