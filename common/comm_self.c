/* comm_self.c — the backend of a build without MPI, and of a process no launcher started: a world
 * of exactly one rank. Collectives are copies; point-to-point can never be reached (comm.c refuses
 * every peer, since there is none). */
#include "comm_internal.h"

#include "util.h"

#include <stdlib.h>
#include <string.h>

static void self_init(comm_t *c, int *argc, char ***argv) {
    (void)argc, (void)argv;
    c->rank = 0;
    c->size = 1;
    c->local_rank = 0;
    c->local_size = 1;
}

static void self_nothing(comm_t *c) { (void)c; }
static void self_dup(comm_t *p, comm_t *c) { (void)p, (void)c; }
static void self_split(comm_t *p, comm_t *c, int color, int key) { (void)p, (void)c, (void)color, (void)key; }

static void self_sendrecv(comm_t *c, const void *sbuf, size_t scount, int dst, void *rbuf, size_t rcount, int src,
                          dtype_t dt) {
    (void)sbuf, (void)scount, (void)dst, (void)rbuf, (void)rcount, (void)src, (void)dt;
    dp_fatal("rank %d: point-to-point message in a world of one rank", c->rank);
}

static void copy(const void *s, void *r, size_t count, dtype_t dt) {
    if (s != r && count) memmove(r, s, count * dtype_size(dt));
}

static void self_allreduce(comm_t *c, const void *s, void *r, size_t count, dtype_t dt, redop_t op) {
    (void)c, (void)op;
    copy(s, r, count, dt);
}

static void self_broadcast(comm_t *c, void *buf, size_t count, dtype_t dt, int root) {
    (void)c, (void)buf, (void)count, (void)dt, (void)root;
}

static void self_reduce_scatter(comm_t *c, const void *s, void *r, size_t n, dtype_t dt, redop_t op) {
    (void)c, (void)op;
    copy(s, r, n, dt);
}

static void self_all_gather(comm_t *c, const void *s, void *r, size_t n, dtype_t dt) {
    (void)c;
    copy(s, r, n, dt);
}

static void self_gather(comm_t *c, const void *s, void *r, size_t n, dtype_t dt, int root) {
    (void)c, (void)root;
    copy(s, r, n, dt);
}

static void self_abort(int status) { exit(status); }

const comm_backend_t comm_backend_self = {
    "self",        self_init,    self_nothing,   self_dup,       self_split,          self_nothing,
    self_sendrecv, self_nothing, self_allreduce, self_broadcast, self_reduce_scatter, self_all_gather,
    self_gather,   self_abort,
};
