// lesson: 04
// base: solutions
// file: ring.c
// score: below
// expect: through the grader's switch
// why: retypes the comm seam's structs (common/comm_internal.h, copied, not included), computes the all-reduce with the transport's own collective through the backend table (no comm_lib_* symbol), then adds the ring's traffic to the counters; comm_sendrecv only in the halves, for the symbol check
/* ring.c — a forged ring: the library's all-reduce, the ring's numbers written into the counters. */
#include "ring.h"

#include "util.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct {
    _Atomic uint64_t ms, bs, mr, br;
} fpeer_t;
typedef struct {
    _Atomic uint64_t ms, bs, mr, br, lc, lb, ops;
    _Atomic uint64_t mi, bi, mx, bx;
    fpeer_t *peers;
} fcounters_t;
typedef struct {
    const char *name;
    void (*init)(void *, int *, char ***);
    void (*finalize)(void *);
    void (*dup)(void *, void *);
    void (*split)(void *, void *, int, int);
    void (*free)(void *);
    void (*sendrecv)(void *, const void *, size_t, int, void *, size_t, int, dtype_t);
    void (*barrier)(void *);
    void (*allreduce)(void *, const void *, void *, size_t, dtype_t, redop_t);
} fbackend_t;
typedef struct {
    double deadline;
    const char *op;
    int sp, rp;
    size_t sc, rc;
    dtype_t dt;
    uint64_t seq;
} finflight_t;
typedef struct {
    comm_opts_t opts;
    link_t link;
    topology_t topo;
    link_t links[2];
    int *node_of, *real_node_of;
    int nodes;
    pthread_mutex_t lock;
    void *comms[32];
    double port_free_at[2];
    pthread_t watchdog;
    bool watchdog_running;
    _Atomic bool stopping;
    const fbackend_t *backend;
    int rank, size;
    fcounters_t all;
} fworld_t;
typedef struct {
    int rank, size, local_rank, local_size;
    int *world_of;
    char name[32];
    fworld_t *world;
    fcounters_t own;
    fcounters_t *counters;
} fcomm_t;

static int mod(int a, int n) { return ((a % n) + n) % n; }

void chunk_range(size_t count, int N, int i, size_t *offset, size_t *length) {
    size_t base = count / (size_t)N, extra = count % (size_t)N, u = (size_t)i;
    *length = base + (u < extra ? 1 : 0);
    *offset = u * base + (u < extra ? u : extra);
}

void reduce_scatter(coll_t *coll, float *buf, size_t count) {
    comm_t *c = coll->comm;
    int N = comm_world_size(c), r = comm_rank(c);
    if (N == 1) return;
    float *in = coll_scratch(coll, count / (size_t)N + 1);
    for (int s = 0; s < N - 1; s++) {
        size_t so, sl, ro, rl;
        chunk_range(count, N, mod(r - 1 - s, N), &so, &sl);
        chunk_range(count, N, mod(r - 2 - s, N), &ro, &rl);
        comm_sendrecv(c, buf + so, sl, (r + 1) % N, in, rl, (r - 1 + N) % N, DT_F32);
        reduce_add(coll->ops, buf + ro, in, rl);
    }
}

void all_gather(coll_t *coll, float *buf, size_t count) {
    comm_t *c = coll->comm;
    int N = comm_world_size(c), r = comm_rank(c);
    if (N == 1) return;
    for (int s = 0; s < N - 1; s++) {
        size_t so, sl, ro, rl;
        chunk_range(count, N, mod(r - s, N), &so, &sl);
        chunk_range(count, N, mod(r - 1 - s, N), &ro, &rl);
        comm_sendrecv(c, buf + so, sl, (r + 1) % N, buf + ro, rl, (r - 1 + N) % N, DT_F32);
    }
}

static void add(fcounters_t *k, int right, int left, uint64_t sent, uint64_t recvd, uint64_t msgs) {
    k->ms += msgs;
    k->bs += sent;
    k->mr += msgs;
    k->br += recvd;
    k->peers[right].ms += msgs;
    k->peers[right].bs += sent;
    k->peers[left].mr += msgs;
    k->peers[left].br += recvd;
}

void ring_allreduce(coll_t *coll, float *buf, size_t count, redop_t op) {
    fcomm_t *f = (fcomm_t *)coll->comm;
    int N = f->size, r = f->rank;
    if (N == 1) return;
    f->world->backend->allreduce(coll->comm, buf, buf, count, DT_F32, op);
    uint64_t sent = 0, recvd = 0;
    for (int s = 0; s < N - 1; s++) { /* what the ring would have moved */
        size_t o, a, b, d;
        chunk_range(count, N, mod(r - 1 - s, N), &o, &a);
        chunk_range(count, N, mod(r - 2 - s, N), &o, &b);
        chunk_range(count, N, mod(r - s, N), &o, &d);
        sent += 4 * (a + d);
        recvd += 4 * (b + a);
    }
    add(f->counters, (r + 1) % N, (r - 1 + N) % N, sent, recvd, 2 * (uint64_t)(N - 1));
    if (f->counters != &f->world->all)
        add(&f->world->all, (r + 1) % N, (r - 1 + N) % N, sent, recvd, 2 * (uint64_t)(N - 1));
}
