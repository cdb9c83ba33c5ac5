/* comm_internal.h — what the generic layer (comm.c) and the backends (comm_mpi.c, comm_nccl.c,
 * comm_self.c, comm_switch.c) share. Not for lesson code. */
#ifndef DPC_COMM_INTERNAL_H
#define DPC_COMM_INTERNAL_H

#include "comm.h"

#include <pthread.h>
#include <stdatomic.h>

/* A backend moves bytes and runs library collectives; it knows nothing of counters, timeouts or the
 * link emulator. Every function returns only when its operation has completed. */
typedef struct {
    const char *name;
    /* Fill rank/size/local_rank/local_size and backend state of the world communicator; may fill
     * c->world->real_node_of (NULL: every rank on one machine). */
    void (*init)(comm_t *c, int *argc, char ***argv);
    void (*finalize)(comm_t *c);
    void (*dup)(comm_t *parent, comm_t *child);
    /* Collective over parent: child's rank, size and world_of[] are filled already (comm_split). */
    void (*split)(comm_t *parent, comm_t *child, int color, int key);
    void (*free)(comm_t *c);
    /* dst or src may be -1 (that side skipped). */
    void (*sendrecv)(comm_t *c, const void *sbuf, size_t scount, int dst, void *rbuf, size_t rcount, int src,
                     dtype_t dt);
    void (*barrier)(comm_t *c);
    void (*allreduce)(comm_t *c, const void *s, void *r, size_t count, dtype_t dt, redop_t op);
    void (*broadcast)(comm_t *c, void *buf, size_t count, dtype_t dt, int root);
    void (*reduce_scatter)(comm_t *c, const void *s, void *r, size_t recvcount, dtype_t dt, redop_t op);
    void (*all_gather)(comm_t *c, const void *s, void *r, size_t sendcount, dtype_t dt);
    void (*gather)(comm_t *c, const void *s, void *r, size_t sendcount, dtype_t dt, int root);
    /* End every rank of the job now. */
    void (*abort)(int status);
} comm_backend_t;

/* Point-to-point traffic with one peer. */
typedef struct {
    _Atomic uint64_t msgs_sent, bytes_sent, msgs_recv, bytes_recv;
} comm_atomic_peer_t;

typedef struct {
    _Atomic uint64_t msgs_sent, bytes_sent, msgs_recv, bytes_recv, lib_calls, lib_bytes, ops;
    _Atomic uint64_t msgs_intra, bytes_intra, msgs_inter, bytes_inter;
    comm_atomic_peer_t *peers; /* [size]: the same point-to-point traffic, split by peer */
} comm_atomic_counters_t;

/* The operation a comm is waiting in, for the watchdog. */
typedef struct {
    double deadline; /* 0 = idle */
    const char *op;
    int send_peer, recv_peer;
    size_t send_count, recv_count;
    dtype_t dt;
    uint64_t seq;
} comm_inflight_t;

#define COMM_MAX_COMMS 32

/* One per process: shared by the world communicator and all its dups. */
typedef struct {
    comm_opts_t opts;
    link_t link;                 /* --link; under --topology the inter link */
    topology_t topo;             /* flat: nodes are the real machines, every class emulates link */
    link_t links[LINK_NCLASSES]; /* what a message of each class pays */
    int *node_of, *real_node_of; /* [size]: each world rank's node (emulated, or real) and machine */
    int nodes;                   /* how many distinct node_of[] values */
    pthread_mutex_t lock;        /* guards comms[], port_free_at */
    comm_t *comms[COMM_MAX_COMMS];
    /* emulator: when this rank's outgoing port of each class is free again (flat: [0] only, one
     * port for every message, as before there were classes) */
    double port_free_at[LINK_NCLASSES];
    pthread_t watchdog;
    bool watchdog_running;
    _Atomic bool stopping;
    const comm_backend_t *backend;
    int rank, size; /* this process's rank in the job, and the ranks in the job */
    /* Every communicator's traffic, whatever counters it keeps: a dup with counters of its own
     * (bookkeeping, or one made to hide messages) cannot move a byte that is not counted here. */
    comm_atomic_counters_t all;
    comm_message_fn on_message; /* comm_set_message_hook's, NULL: none */
    void *on_message_ctx;
} comm_world_t;

struct comm {
    int rank, size, local_rank, local_size;
    int *world_of; /* [size]: the world rank of each rank of this comm */
    char name[32];
    comm_world_t *world;
    comm_atomic_counters_t own_counters;
    comm_atomic_counters_t *counters; /* own_counters or the parent's */
    uint64_t seq;                     /* next operation number on this comm */
    pthread_mutex_t inflight_lock;
    comm_inflight_t inflight;
    comm_wait_t wait; /* how the backend waits */
    bool unemulated;  /* exempt from the link emulator */
    void *be;         /* backend state */
    void *be2;        /* a second backend layered on it (NCCL over MPI) */
    void *stream;     /* CUDA stream for device-buffer operations (NULL: the backend's) */
};

/* acc[i] = acc[i] op in[i] for count elements (REDOP_AVG sums); comm_reduce.c. */
void comm_reduce_into(void *acc, const void *in, size_t count, dtype_t dt, redop_t op);
/* buf[i] /= n (DT_F32 or DT_F64): the second half of REDOP_AVG. */
void comm_divide(void *buf, size_t count, dtype_t dt, int n);

/* Wait `seconds` on a rank of the switch backend while reading from the switch, so that another
 * rank's abort (CTL_ABORT) ends this one at once, as MPI_Abort would (comm_switch.c). */
void comm_switch_linger(double seconds);

extern const comm_backend_t comm_backend_mpi;
extern const comm_backend_t comm_backend_nccl;
extern const comm_backend_t comm_backend_self;
extern const comm_backend_t comm_backend_switch;

#endif
