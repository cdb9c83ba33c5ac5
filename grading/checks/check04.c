/* check04 — the grader's checks of lesson 04 (linked with the submission's lesson-04 code).
 *
 *   check04 chunks                       chunk_range: uneven chunks tile the buffer, first ones longer
 *   check04 chunks_large                 chunk_range past 2^31 and 2^32 elements (pure arithmetic: no
 *                                        memory), many N: 32-bit offsets or lengths overflow there
 *   mpirun -np N check04 ring            ring_allreduce: exact sweep; 2(N−1) messages and
 *                                        2(N−1)/N·|g| bytes per rank (± one element per message), all
 *                                        to the right neighbour and from the left one; a rank scales
 *                                        only its own chunk
 *   mpirun -np N check04 ring_small      the same with buffers of at most 4099 floats (N = 6..8)
 *   mpirun -np N check04 halves          reduce_scatter leaves the sum of chunk r on rank r;
 *                                        all_gather copies chunk r of rank r everywhere; each talks
 *                                        only to the ring's neighbours
 *   mpirun -np N check04 tree            tree_allreduce: exact sweep, traffic only with the parent
 *                                        and the children; only rank 0 scales
 *   mpirun -np N check04 tree_small      the same with buffers of at most 4099 floats (N = 6..8)
 *   mpirun -np N check04 ring_gpu        the ring sweep on GPU buffers (exit 77 = SKIPPED: no GPU) */
#include "allreduce_check.h"
#include "checklib.h"
#include "ring.h"
#include "util.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* chunk_range's answer as the judge reads it (checklib.h, "the tape"). */
static void tape_chunk(const char *who, size_t count, int N, int i, size_t *off, size_t *len) {
    char tag[128];
    snprintf(tag, sizeof tag, "%s: chunk_range(count=%zu, N=%d, i=%d) offset", who, count, N, i);
    ck_tape(tag, off, sizeof *off);
    snprintf(tag, sizeof tag, "%s: chunk_range(count=%zu, N=%d, i=%d) length", who, count, N, i);
    ck_tape(tag, len, sizeof *len);
}

/* Does chunk_range's chunk lie inside the buffer? (the loops below index with it) */
static int chunk_inside(const char *who, size_t count, int N, int i, size_t off, size_t len) {
    if (off <= count && len <= count - off) return 1;
    printf("FAIL: %s, N=%d, count=%zu: chunk_range(count=%zu, N=%d, i=%d) = offset %zu, length %zu lies outside the "
           "buffer\n",
           who, N, count, count, N, i, off, len);
    return 0;
}

static int chunks_check(void) {
    int bad = 0;
    size_t counts[] = {0, 1, 3, 10, 11, 1009, 1u << 20};
    for (size_t ci = 0; ci < sizeof counts / sizeof counts[0] && !bad; ci++)
        for (int N = 1; N <= 7 && !bad; N++) {
            size_t count = counts[ci], next = 0, base = count / (size_t)N, extra = count % (size_t)N;
            for (int i = 0; i < N && !bad; i++) {
                size_t off = 12345, len = 12345;
                chunk_range(count, N, i, &off, &len);
                tape_chunk("chunks", count, N, i, &off, &len);
                size_t want = base + ((size_t)i < extra);
                if (off != next || len != want) {
                    printf("FAIL: chunk_range(count=%zu, N=%d, i=%d) = offset %zu, length %zu; expected offset %zu, "
                           "length %zu",
                           count, N, i, off, len, next, want);
                    if (len == base && extra)
                        printf(" — the remainder (count %% N = %zu) must go one element each to the first chunks",
                               extra);
                    printf("\n");
                    bad = 1;
                }
                next += want;
            }
        }
    if (!bad) printf("chunk_range tiles every buffer, the first count %% N chunks one element longer\n");
    return bad;
}

/* Chunk i by another formula than the reference's: the first `extra` chunks are base + 1 long. */
static void chunk_oracle(size_t count, int N, int i, size_t *off, size_t *len) {
    size_t base = count / (size_t)N, extra = count % (size_t)N, u = (size_t)i;
    *len = u < extra ? base + 1 : base;
    *off = u < extra ? u * (base + 1) : extra * (base + 1) + (u - extra) * base;
}

/* chunk_range is pure arithmetic, so it can be asked about buffers far larger than this machine's
 * memory: a 2^32-element gradient (16 GiB of floats) is an ordinary size for a real model, and it is
 * where an int or unsigned offset, length or index silently wraps. Every chunk of small N, the
 * edges and the middle of large N; each must match the oracle and end where the next one starts. */
static int chunks_large_check(void) {
    const size_t counts[] = {((size_t)1 << 31) - 1,
                             (size_t)1 << 31,
                             ((size_t)1 << 31) + 1,
                             ((size_t)1 << 32) - 1,
                             (size_t)1 << 32,
                             ((size_t)1 << 32) + 1,
                             ((size_t)1 << 32) + 7,
                             3 * ((size_t)1 << 32) + 5,
                             ((size_t)1 << 40) + 12345,
                             ((size_t)1 << 62) + 3,
                             SIZE_MAX};
    const int Ns[] = {1, 2, 3, 4, 5, 6, 7, 8, 13, 64, 1000, 65537, INT_MAX};
    int bad = 0;
    for (size_t ci = 0; ci < sizeof counts / sizeof counts[0] && !bad; ci++)
        for (size_t ni = 0; ni < sizeof Ns / sizeof Ns[0] && !bad; ni++) {
            size_t count = counts[ci];
            int N = Ns[ni], extra = (int)(count % (size_t)N);
            int picks[] = {0, 1, extra - 1, extra, extra + 1, N / 2, N - 2, N - 1};
            for (int i = 0; i < N && !bad; i++) {
                if (N > 64) { /* only the chunks in picks[] */
                    int picked = 0;
                    for (size_t k = 0; k < sizeof picks / sizeof picks[0]; k++) picked |= picks[k] == i;
                    if (!picked) {
                        int next = N;
                        for (size_t k = 0; k < sizeof picks / sizeof picks[0]; k++)
                            if (picks[k] > i && picks[k] < next) next = picks[k];
                        i = next - 1;
                        continue;
                    }
                }
                size_t off = 12345, len = 12345, want_off, want_len;
                chunk_range(count, N, i, &off, &len);
                tape_chunk("chunks_large", count, N, i, &off, &len);
                chunk_oracle(count, N, i, &want_off, &want_len);
                if (off == want_off && len == want_len) continue;
                printf("FAIL: chunk_range(count=%zu, N=%d, i=%d) = offset %zu, length %zu; expected offset %zu, length "
                       "%zu\n",
                       count, N, i, off, len, want_off, want_len);
                printf("  hint: right for small buffers but not for %zu elements (2^%d or more): compute offsets and "
                       "lengths in size_t — an int or unsigned (or a product of two ints) wraps past 2^31 or 2^32, "
                       "and a real model's gradient can be that long\n",
                       count, count >= ((size_t)1 << 32) ? 32 : 31);
                bad = 1;
            }
        }
    if (!bad)
        printf("chunk_range is exact for 2^31 - 1 .. 2^64 - 1 elements, N = 1 .. 2^31 - 1 (every chunk of N <= 8, 13, "
               "64; edges and middle beyond)\n");
    return bad;
}

/* Ring: 2(N−1) messages, all to the right neighbour, and as many from the left one; bytes within
 * one element per message of 2(N−1)/N·|g|. (With N = 2 both neighbours are the same rank.) */
static void ring_traffic(int rank, int N, size_t count, traffic_t *want) {
    if (N == 1) return;
    uint64_t m = 2u * (uint64_t)(N - 1), b = (uint64_t)((2.0 * (N - 1) / N) * (double)count + 0.5) * 4;
    traffic_t *right = &want[(rank + 1) % N], *left = &want[(rank - 1 + N) % N];
    right->msgs_sent = m, right->bytes_sent = b, right->bytes_slack = m * 4;
    left->msgs_recv = m, left->bytes_recv = b, left->bytes_slack = m * 4;
}

/* The ring's AVG: each rank scales its own chunk (the oracle's length: base, +1 for the first count % N). */
static size_t ring_scaled(int rank, int N, size_t count) {
    return count / (size_t)N + ((size_t)rank < count % (size_t)N);
}

/* Binomial tree: one buffer each way with the parent r − lowbit(r) (unless rank 0) and with each
 * child r + d, d below the lowest set bit (below the next power of two for rank 0). */
static void tree_traffic(int rank, int N, size_t count, traffic_t *want) {
    int top = 1;
    while (top < N) top <<= 1;
    int low = rank == 0 ? top : (rank & -rank);
    uint64_t b = count * 4;
    if (rank != 0) want[rank - low] = (traffic_t){1, 1, b, b, 0};
    for (int d = 1; d < low; d <<= 1)
        if (rank + d < N) want[rank + d] = (traffic_t){1, 1, b, b, 0};
}

/* The tree's AVG: rank 0 scales the total once, before the broadcast. */
static size_t tree_scaled(int rank, int N, size_t count) {
    (void)N;
    return rank == 0 ? count : 0;
}

static const char ring_hint[] =
    "the ring talks only to its neighbours: every message goes to the right one, (r + 1) % N, "
    "and comes from the left one, (r − 1 + N) % N — N − 1 chunks each way in each phase, "
    "on whatever communicator";
static const char ring_scale_hint[] =
    "for REDOP_AVG the owner of a chunk after reduce_scatter must scale it: rank r scales chunk r (chunk_range(count, "
    "N, r)), all of it and nothing else, between reduce_scatter and all_gather";

static allreduce_spec_t ring_spec(size_t max_count) {
    return (allreduce_spec_t){.name = "ring_allreduce",
                              .fn = ring_allreduce,
                              .traffic = ring_traffic,
                              .traffic_hint = ring_hint,
                              .scaled = ring_scaled,
                              .scale_hint = ring_scale_hint,
                              .chunked = 1,
                              .max_count = max_count};
}

static allreduce_spec_t tree_spec(size_t max_count) {
    return (allreduce_spec_t){
        .name = "tree_allreduce",
        .fn = tree_allreduce,
        .traffic = tree_traffic,
        .traffic_hint = "a rank exchanges one whole buffer each way with its parent r − lowbit(r) and with each child "
                        "r + d (d below lowbit(r)) — with no one else, on whatever communicator",
        .scaled = tree_scaled,
        .scale_hint = "only rank 0 averages, once, between the reduce and the broadcast",
        .max_count = max_count};
}

/* Buffers for N = 6..8 ranks: those world sizes find the missing-child and odd-tree mistakes; large
 * buffers on so many ranks would only make the check slow on a small machine. */
#define SMALL_MAX_COUNT 4099

/* The halves alone: this rank's traffic with each peer (every communicator) must be the ring's N − 1
 * chunks to the right and from the left, nobody else. */
static int halves_traffic_ok(const char *what, int N, int r, size_t count, const comm_peer_counters_t *got) {
    int right = (r + 1) % N, left = (r - 1 + N) % N;
    for (int p = 0; p < N; p++) {
        uint64_t ws = p == right ? (uint64_t)(N - 1) : 0, wr = p == left ? (uint64_t)(N - 1) : 0;
        if (got[p].msgs_sent == ws && got[p].msgs_recv == wr) continue;
        printf("FAIL: %s, N=%d, count=%zu: rank %d sent %llu messages to rank %d and received %llu from it; expected "
               "%llu and %llu\n  hint: %s\n",
               what, N, count, r, (unsigned long long)got[p].msgs_sent, p, (unsigned long long)got[p].msgs_recv,
               (unsigned long long)ws, (unsigned long long)wr, ring_hint);
        return 0;
    }
    return 1;
}

/* The per-peer traffic since `before` (every communicator of this process), taped for the judge. */
static void peer_traffic(comm_t *c, const comm_peer_counters_t *before, comm_peer_counters_t *d, const char *what) {
    int N = comm_world_size(c);
    for (int p = 0; p < N; p++) d[p] = comm_peer_counters_diff(comm_process_peer_counters(c, p), before[p]);
    ck_tape(what, d, (size_t)N * sizeof *d);
}

static comm_t *start(coll_t *coll, ops_t **ops) {
    comm_opts_t o;
    comm_opts_default(&o);
    comm_t *c = comm_init(NULL, NULL, &o);
    *ops = ops_create(OPS_CPU, 1);
    coll_init(coll, c, *ops);
    return c;
}

static float value(int rank, size_t i) { return (float)((int)((rank * 5 + i * 3) % 32) - 16) * (1.0f / 64.0f); }

static int halves_check(void) {
    coll_t coll;
    ops_t *ops;
    comm_t *c = start(&coll, &ops);
    int N = comm_world_size(c), r = comm_rank(c), bad = 0;
    size_t counts[] = {1, (size_t)N + 1, 1009, 100000};
    comm_peer_counters_t *before_p = dp_calloc((size_t)N, sizeof *before_p), *d_p = dp_calloc((size_t)N, sizeof *d_p);
    for (size_t ci = 0; ci < 4 && !bad; ci++) {
        size_t count = counts[ci], off, len;
        float *buf = dp_malloc(count * 4);
        for (size_t i = 0; i < count; i++) buf[i] = value(r, i);
        for (int p = 0; p < N; p++) before_p[p] = comm_process_peer_counters(c, p);
        reduce_scatter(&coll, buf, count);
        char what[128];
        snprintf(what, sizeof what, "reduce_scatter, N=%d, count=%zu: traffic by peer", N, count);
        peer_traffic(c, before_p, d_p, what);
        snprintf(what, sizeof what, "reduce_scatter, N=%d, count=%zu: result", N, count);
        ck_tape(what, buf, count * 4);
        chunk_range(count, N, r, &off, &len);
        tape_chunk("halves", count, N, r, &off, &len);
        if (!chunk_inside("reduce_scatter", count, N, r, off, len)) off = len = 0, bad = 1;
        for (size_t i = off; i < off + len && !bad; i++) {
            double s = 0;
            for (int q = 0; q < N; q++) s += value(q, i);
            if (buf[i] != (float)s) {
                printf(
                    "FAIL: reduce_scatter, N=%d, count=%zu: rank %d's own chunk %d (elements %zu..%zu) should hold the "
                    "sum over all ranks; element %zu is %.7g, expected %.7g\n",
                    N, count, r, r, off, off + len - 1, i, (double)buf[i], s);
                bad = 1;
            }
        }
        if (!bad && !halves_traffic_ok("reduce_scatter", N, r, count, d_p)) bad = 1;
        /* all_gather alone: chunk q of rank q holds 1000 + q + i/64, the rest garbage */
        for (size_t i = 0; i < count; i++) buf[i] = -1.0f;
        for (size_t i = off; i < off + len; i++) buf[i] = 1000.0f + (float)r + (float)(i % 64) / 64.0f;
        for (int p = 0; p < N; p++) before_p[p] = comm_process_peer_counters(c, p);
        all_gather(&coll, buf, count);
        snprintf(what, sizeof what, "all_gather, N=%d, count=%zu: result", N, count);
        ck_tape(what, buf, count * 4);
        snprintf(what, sizeof what, "all_gather, N=%d, count=%zu: traffic by peer", N, count);
        peer_traffic(c, before_p, d_p, what);
        for (int q = 0; q < N && !bad; q++) {
            size_t qo, ql;
            chunk_range(count, N, q, &qo, &ql);
            tape_chunk("halves", count, N, q, &qo, &ql);
            if (!chunk_inside("all_gather", count, N, q, qo, ql)) {
                bad = 1;
                break;
            }
            for (size_t i = qo; i < qo + ql && !bad; i++)
                if (buf[i] != 1000.0f + (float)q + (float)(i % 64) / 64.0f) {
                    printf(
                        "FAIL: all_gather, N=%d, count=%zu: rank %d element %zu (chunk %d) is %.7g, expected rank %d's "
                        "value %.7g%s\n",
                        N, count, r, i, q, (double)buf[i], q, 1000.0f + (float)q + (float)(i % 64) / 64.0f,
                        buf[i] == 999.0f + (float)q + (float)(i % 64) / 64.0f
                            ? " — the received chunk was added to what was there: all_gather must COPY"
                            : "");
                    bad = 1;
                }
        }
        if (!bad && !halves_traffic_ok("all_gather", N, r, count, d_p)) bad = 1;
        free(buf);
        int any = bad;
        comm_lib_allreduce(c, &bad, &any, 1, DT_I32, REDOP_MAX);
        bad = any;
    }
    if (!bad && r == 0)
        printf("reduce_scatter leaves chunk r's sum on rank r; all_gather copies every chunk to every rank; each sends "
               "N−1 chunks to the right neighbour only\n");
    free(before_p);
    free(d_p);
    comm_finalize(c);
    ops_destroy(ops);
    return bad;
}

static int sweep(allreduce_spec_t spec) {
    coll_t coll;
    ops_t *ops;
    comm_t *c = start(&coll, &ops);
    int bad = allreduce_sweep(&coll, &spec);
    comm_finalize(c);
    ops_destroy(ops);
    return bad;
}

static int ring_check(void) { return sweep(ring_spec(0)); }
static int ring_small_check(void) { return sweep(ring_spec(SMALL_MAX_COUNT)); }
static int tree_check(void) { return sweep(tree_spec(0)); }
static int tree_small_check(void) { return sweep(tree_spec(SMALL_MAX_COUNT)); }

/* The same ring with the buffers in GPU memory: the reduction runs lesson 03's kernel, the transfers
 * go through the comm seam's device path. A ring that touches buffer elements from C fails here. */
static int ring_gpu_check(void) {
    if (!ops_cuda_available()) {
        printf("SKIP: no GPU on this machine: the ring is not run on device buffers\n");
        exit(SKIPPED);
    }
    comm_opts_t o;
    comm_opts_default(&o);
    comm_t *c = comm_init(NULL, NULL, &o);
    coll_t coll;
    ops_t *ops = ops_create(OPS_CUDA, 1);
    coll_init(&coll, c, ops);
    allreduce_spec_t spec = ring_spec(0);
    int bad = allreduce_sweep(&coll, &spec);
    comm_finalize(c);
    ops_destroy(ops);
    return bad;
}

int main(int argc, char **argv) {
    dp_set_progname("check04");
    const ck_entry_t checks[] = {{"chunks", chunks_check},
                                 {"chunks_large", chunks_large_check},
                                 {"ring", ring_check},
                                 {"ring_small", ring_small_check},
                                 {"halves", halves_check},
                                 {"tree", tree_check},
                                 {"tree_small", tree_small_check},
                                 {"ring_gpu", ring_gpu_check},
                                 {NULL, NULL}};
    return ck_main(argc, argv, checks);
}
