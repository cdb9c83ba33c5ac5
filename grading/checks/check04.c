/* check04 — the grader's checks of lesson 04 (linked with the submission's lesson-04 code).
 *
 *   check04 chunks                       chunk_range: uneven chunks tile the buffer, first ones longer
 *   mpirun -np N check04 ring            ring_allreduce: exact sweep; 2(N−1) messages and
 *                                        2(N−1)/N·|g| bytes per rank (± one element per message)
 *   mpirun -np N check04 halves          reduce_scatter leaves the sum of chunk r on rank r;
 *                                        all_gather copies chunk r of rank r everywhere
 *   mpirun -np N check04 tree            tree_allreduce: exact sweep, binomial-tree traffic
 *   mpirun -np N check04 ring_gpu        the ring sweep on GPU buffers (exit 77 = SKIPPED: no GPU) */
#include "allreduce_check.h"
#include "checklib.h"
#include "ring.h"
#include "util.h"

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
                        printf(" — the remainder (count %% N = %zu) must go one element each to the first chunks", extra);
                    printf("\n");
                    bad = 1;
                }
                next += want;
            }
        }
    if (!bad) printf("chunk_range tiles every buffer, the first count %% N chunks one element longer\n");
    return bad;
}

/* Ring: 2(N−1) messages each way; bytes within one element per message of 2(N−1)/N·|g|. */
static traffic_t ring_traffic(int rank, int N, size_t count) {
    (void)rank;
    uint64_t m = 2u * (uint64_t)(N - 1), b = (uint64_t)((2.0 * (N - 1) / N) * (double)count + 0.5) * 4;
    return (traffic_t){m, m, b, b, m * 4, 1};
}

/* Binomial tree: a parent (unless rank 0) and children r + d for d below the lowest set bit. */
static traffic_t tree_traffic(int rank, int N, size_t count) {
    int top = 1;
    while (top < N) top <<= 1;
    int low = rank == 0 ? top : (rank & -rank);
    uint64_t m = rank != 0;
    for (int d = 1; d < low; d <<= 1)
        if (rank + d < N) m++;
    return (traffic_t){m, m, m * count * 4, m * count * 4, 0, 1};
}

static comm_t *start(coll_t *k) {
    comm_opts_t o;
    comm_opts_default(&o);
    comm_t *c = comm_init(NULL, NULL, &o);
    coll_init(k, c, ops_create(OPS_CPU, 1));
    return c;
}

static float value(int rank, size_t i) { return (float)((int)((rank * 5 + i * 3) % 32) - 16) * (1.0f / 64.0f); }

static int halves_check(void) {
    coll_t k;
    comm_t *c = start(&k);
    int N = comm_world_size(c), r = comm_rank(c), bad = 0;
    size_t counts[] = {1, (size_t)N + 1, 1009, 100000};
    for (size_t ci = 0; ci < 4 && !bad; ci++) {
        size_t count = counts[ci], off, len;
        float *buf = dp_malloc(count * 4);
        for (size_t i = 0; i < count; i++) buf[i] = value(r, i);
        reduce_scatter(&k, buf, count);
        char what[128];
        snprintf(what, sizeof what, "reduce_scatter, N=%d, count=%zu: result", N, count);
        ck_tape(what, buf, count * 4);
        chunk_range(count, N, r, &off, &len);
        tape_chunk("halves", count, N, r, &off, &len);
        if (!chunk_inside("reduce_scatter", count, N, r, off, len)) off = len = 0, bad = 1;
        for (size_t i = off; i < off + len && !bad; i++) {
            double s = 0;
            for (int q = 0; q < N; q++) s += value(q, i);
            if (buf[i] != (float)s) {
                printf("FAIL: reduce_scatter, N=%d, count=%zu: rank %d's own chunk %d (elements %zu..%zu) should hold the "
                       "sum over all ranks; element %zu is %.7g, expected %.7g\n",
                       N, count, r, r, off, off + len - 1, i, (double)buf[i], s);
                bad = 1;
            }
        }
        /* all_gather alone: chunk q of rank q holds 1000 + q + i/64, the rest garbage */
        for (size_t i = 0; i < count; i++) buf[i] = -1.0f;
        for (size_t i = off; i < off + len; i++) buf[i] = 1000.0f + (float)r + (float)(i % 64) / 64.0f;
        comm_counters_t before = comm_counters(c);
        all_gather(&k, buf, count);
        comm_counters_t d = comm_counters_diff(comm_counters(c), before);
        snprintf(what, sizeof what, "all_gather, N=%d, count=%zu: result", N, count);
        ck_tape(what, buf, count * 4);
        snprintf(what, sizeof what, "all_gather, N=%d, count=%zu: traffic", N, count);
        ck_tape(what, &d, sizeof d);
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
                    printf("FAIL: all_gather, N=%d, count=%zu: rank %d element %zu (chunk %d) is %.7g, expected rank %d's "
                           "value %.7g%s\n",
                           N, count, r, i, q, (double)buf[i], q, 1000.0f + (float)q + (float)(i % 64) / 64.0f,
                           buf[i] == 999.0f + (float)q + (float)(i % 64) / 64.0f
                               ? " — the received chunk was added to what was there: all_gather must COPY"
                               : "");
                    bad = 1;
                }
        }
        if (!bad && N > 1 && (d.msgs_sent != (uint64_t)(N - 1) || d.msgs_recv != (uint64_t)(N - 1))) {
            printf("FAIL: all_gather, N=%d: rank %d sent %llu and received %llu messages; the ring needs N−1 = %d each\n", N,
                   r, (unsigned long long)d.msgs_sent, (unsigned long long)d.msgs_recv, N - 1);
            bad = 1;
        }
        free(buf);
        int any = bad;
        comm_lib_allreduce(c, &bad, &any, 1, DT_I32, REDOP_MAX);
        bad = any;
    }
    if (!bad && r == 0) printf("reduce_scatter leaves chunk r's sum on rank r; all_gather copies every chunk to every rank\n");
    comm_finalize(c);
    return bad;
}

static int ring_check(void) {
    coll_t k;
    comm_t *c = start(&k);
    int bad = allreduce_sweep(&k, ring_allreduce, "ring_allreduce", ring_traffic);
    comm_finalize(c);
    return bad;
}

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
    coll_t k;
    coll_init(&k, c, ops_create(OPS_CUDA, 1));
    int bad = allreduce_sweep(&k, ring_allreduce, "ring_allreduce", ring_traffic);
    comm_finalize(c);
    return bad;
}

static int tree_check(void) {
    coll_t k;
    comm_t *c = start(&k);
    int bad = allreduce_sweep(&k, tree_allreduce, "tree_allreduce", tree_traffic);
    comm_finalize(c);
    return bad;
}

int main(int argc, char **argv) {
    dp_set_progname("check04");
    const ck_entry_t checks[] = {{"chunks", chunks_check}, {"ring", ring_check}, {"halves", halves_check},
                                 {"tree", tree_check}, {"ring_gpu", ring_gpu_check},
                                 {NULL, NULL}};
    return ck_main(argc, argv, checks);
}
