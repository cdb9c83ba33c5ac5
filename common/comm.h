/* comm.h — the communication seam. Every byte that moves between ranks goes through here.
 *
 * Algorithm code (the lessons) sees ranks, a world size and typed messages; it never names the
 * transport. Backends: MPI (real processes, one machine or many); NCCL (--comm nccl, env DP_COMM:
 * device buffers through NCCL, host buffers through MPI; built only with MPI, CUDA and NCCL); the
 * grader's switch (env DPC_SWITCH: every message through grading/switch, which counts it outside
 * the rank; host buffers only; comm_switch.c); and, when MPI is not built, a world of size 1 — so
 * call sites need no #ifdef.
 *
 *   lesson code ──► comm_send / comm_recv / comm_sendrecv      (the students' algorithms)
 *               └─► comm_lib_allreduce / ...                   (library baselines, grader only)
 *                          │
 *          counters · sequence numbers · watchdog · α-β link emulator
 *                          │
 *                   backend: MPI | NCCL (over MPI) | switch | size-1
 *
 * Promises:
 *   - Counts are element counts of a dtype. Bytes are only ever reported, in the counters.
 *   - Every call is counted (messages and bytes sent and received per rank and per peer, library
 *     calls), per communicator and over all communicators of the process, so a grader can tell
 *     which algorithm ran, not only what it computed.
 *   - Nothing hangs: every operation that waits on another rank is watched. If it has not finished
 *     after the timeout, the job ends with one line naming this rank, the peer, the operation and its
 *     sequence number.
 *   - comm_send returns when the buffer may be reused. Like MPI_Send it may wait for the receiver:
 *     two ranks that both send a large message before receiving deadlock (and time out).
 *
 * Thread use: one comm_t per thread. A second thread (DDP's communication thread) works on its own
 * comm_dup(); the counters of a dup may be shared with its parent. */
#ifndef DPC_COMM_H
#define DPC_COMM_H

#include "dtype.h"
#include "link.h"
#include "topology.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum { REDOP_SUM, REDOP_AVG, REDOP_MAX, REDOP_MIN } redop_t;

typedef struct {
    uint64_t msgs_sent, bytes_sent; /* point-to-point, this rank */
    uint64_t msgs_recv, bytes_recv;
    uint64_t lib_calls, lib_bytes; /* library collectives: calls, and input bytes */
    uint64_t ops;                  /* operations started (the sequence numbers handed out) */
    /* The point-to-point messages and bytes sent above, split by the link they took: to a rank of
     * the same node (intra) or of another (inter). Nodes are --topology's, or without it the real
     * machines (a job on one machine sends everything intra). */
    uint64_t msgs_intra, bytes_intra, msgs_inter, bytes_inter;
} comm_counters_t;

/* Point-to-point traffic of this rank with one peer: tells WHICH ranks an algorithm talks to (a ring
 * only to its neighbours, a tree only to its parent and children), not only how much. */
typedef struct {
    uint64_t msgs_sent, bytes_sent; /* to the peer */
    uint64_t msgs_recv, bytes_recv; /* from the peer */
} comm_peer_counters_t;

typedef struct {
    const char *backend;    /* "mpi" (default) or "nccl" (device buffers through NCCL) */
    double timeout_s;       /* watchdog limit for one operation */
    const char *link;       /* link preset name, "off" or "custom" */
    double link_latency_us; /* α override in µs, >= 0 (-1: from the preset) */
    double link_gbps;       /* β override in Gbit/s, > 0 (-1: from the preset) */
    double link_slowdown;   /* time-dilation factor applied to presets */
    /* An emulated two-level cluster (topology.h, link.h): "flat" (the default: one --link for every
     * pair) or "MxK"; then where ranks sit ("block" or "spread"), the presets inside a node and
     * between nodes, and whether a node's K ranks share one network card ("node") or have one each
     * ("rank"). */
    const char *topology, *placement, *intra, *inter, *nic;
} comm_opts_t;

#define COMM_DEFAULT_TIMEOUT_S 300.0
/* Below this, healthy jobs die: a rank's first wait covers its peers' start-up, any wait can span a
 * moment the OS gave its core to another rank, and the watchdog looks only every 50 ms. A healthy
 * 10-step tiny DDP job on 2-8 ranks of a 2-core machine was ended in 14 of 45 runs at 0.01 s, 2 of
 * 45 at 0.05 s, none at 0.1 s: 1 s leaves room for bigger models and busier machines. */
#define COMM_MIN_TIMEOUT_S 1.0
#define COMM_MAX_TIMEOUT_S 1e7

/* Defaults (DP_TIMEOUT_S read here too). Call it first: from then on a fatal error or a bad option
 * on one rank of a multi-rank launch ends the whole job quietly, even before comm_init. */
void comm_opts_default(comm_opts_t *o);

/* Options every program accepts (--timeout-s, --link, ...): a CLI_END-terminated table bound to o,
 * to cli_join with the program's own table. From the heap: the caller frees it after cli_parse. */
struct cli_opt;
struct cli_opt *comm_cli_opts(comm_opts_t *o);

typedef struct comm comm_t;

/* Start the world (MPI_Init when built with MPI). opts may be NULL (defaults). */
comm_t *comm_init(int *argc, char ***argv, const comm_opts_t *opts);
void comm_finalize(comm_t *c);

/* A new communicator over the same ranks, with its own message space (for a second thread).
 * share_counters: count its traffic in the parent's counters (true) or its own (false). */
comm_t *comm_dup(comm_t *c, const char *name, bool share_counters);
void comm_free(comm_t *c);

/* Collective over c: a new communicator of the ranks of c that gave the same color (0 or more),
 * ranked by (key, rank in c), with its own message space and counters (per peer in its own ranks).
 * Like MPI_Comm_split. The ranks exchange their colors and keys with one library all-gather on c,
 * counted there as such. */
comm_t *comm_split(comm_t *c, int color, int key, const char *name);
/* The two sub-communicators of a hierarchical all-reduce. comm_split_node: the ranks of c on this
 * rank's node (--topology's, or the real machine), in the order of c. comm_split_local: the ranks
 * of c with this rank's local index within its node (the i-th rank of c on each node), one per
 * node, in the order of the nodes. */
comm_t *comm_split_node(comm_t *c);
comm_t *comm_split_local(comm_t *c);
/* How a wait on this communicator spends its time. COMM_WAIT_YIELD (the default) spins briefly,
 * then yields the core for a few milliseconds before napping: the fastest for a rank that has
 * nothing else to do. COMM_WAIT_NAP spins briefly, then sleeps in short naps: for a communication
 * thread that shares its core with a computing thread (DDP), which then keeps the core. */
typedef enum { COMM_WAIT_YIELD, COMM_WAIT_NAP } comm_wait_t;
void comm_set_wait(comm_t *c, comm_wait_t how);

/* Whether this communicator's messages pay the link emulator's cost (default: yes). Bookkeeping
 * traffic (logging the loss, gathering stats and traces) is exempt, so that it does not distort
 * what the emulator is there to show. */
void comm_set_emulated(comm_t *c, bool emulated);

/* Told of every message this rank sends on a communicator of c's world that pays the emulator
 * (comm_send, and comm_sendrecv's send; not the library collectives, not bookkeeping): the peer's
 * world rank, the bytes, the class of link it took and when the call ran (dp_now() seconds, from
 * before the link's cost to the end of the call). The trainers' --trace records them under
 * --topology, so that a trace shows which link each message used. fn NULL: none. */
typedef void (*comm_message_fn)(void *ctx, int world_peer, size_t bytes, link_class_t cls, double t0, double t1);
void comm_set_message_hook(comm_t *c, comm_message_fn fn, void *ctx);
/* Whether --topology emulates a cluster of nodes (false: flat, one --link for every pair). */
bool comm_has_topology(const comm_t *c);

/* The CUDA stream (a cudaStream_t) that device-buffer operations on c are ordered with: the stream
 * of the kernels that produce and consume the buffers. Set by coll_init for GPU contexts. */
void comm_set_stream(comm_t *c, void *cuda_stream);

int comm_rank(const comm_t *c);
int comm_world_size(const comm_t *c);
int comm_local_rank(const comm_t *c); /* rank among the ranks on this machine */
int comm_local_size(const comm_t *c);
const char *comm_backend_name(const comm_t *c);
/* The flat --link; under --topology the inter-node link (the slower one). */
const link_t *comm_link(const comm_t *c);
/* Where ranks sit: the world rank of rank r of c; the node of rank r of c and the number of nodes
 * (--topology's, or the real machines); the class of the link between this rank and `peer`, and
 * the link that class emulates (under a flat topology both classes emulate --link). */
int comm_world_rank(const comm_t *c, int r);
int comm_node_of(const comm_t *c, int r);
int comm_nodes(const comm_t *c);
link_class_t comm_peer_class(const comm_t *c, int peer);
const link_t *comm_class_link(const comm_t *c, link_class_t cls);
double comm_timeout_s(const comm_t *c);

/* ---- point-to-point: what the students' algorithms are written with ------------------------- */
void comm_send(comm_t *c, const void *buf, size_t count, dtype_t dt, int peer);
void comm_recv(comm_t *c, void *buf, size_t count, dtype_t dt, int peer);
/* Send to dst and receive from src at the same time (no deadlock whatever the sizes). Either side
 * may be skipped with a peer of -1. */
void comm_sendrecv(comm_t *c, const void *sendbuf, size_t sendcount, int dst, void *recvbuf, size_t recvcount, int src,
                   dtype_t dt);
void comm_barrier(comm_t *c);

/* ---- library collectives: baselines and the grader's oracle, never inside a lesson's algorithm -- */
/* sendbuf == recvbuf means in place. */
void comm_lib_allreduce(comm_t *c, const void *sendbuf, void *recvbuf, size_t count, dtype_t dt, redop_t op);
void comm_lib_broadcast(comm_t *c, void *buf, size_t count, dtype_t dt, int root);
/* recvcount elements per rank; sendbuf holds world_size * recvcount. */
void comm_lib_reduce_scatter(comm_t *c, const void *sendbuf, void *recvbuf, size_t recvcount, dtype_t dt, redop_t op);
/* sendcount elements per rank; recvbuf holds world_size * sendcount. */
void comm_lib_all_gather(comm_t *c, const void *sendbuf, void *recvbuf, size_t sendcount, dtype_t dt);
/* Gather sendcount elements from every rank to root's recvbuf (world_size * sendcount). */
void comm_lib_gather(comm_t *c, const void *sendbuf, void *recvbuf, size_t sendcount, dtype_t dt, int root);

/* ---- accounting ------------------------------------------------------------------------------ */
comm_counters_t comm_counters(const comm_t *c);
void comm_reset_counters(comm_t *c);
comm_counters_t comm_counters_diff(comm_counters_t after, comm_counters_t before);
/* c's point-to-point traffic with `peer` (0 <= peer < world size), in the same counters as
 * comm_counters(c): shared with the dups that share them. */
comm_peer_counters_t comm_peer_counters(const comm_t *c, int peer);
comm_peer_counters_t comm_peer_counters_diff(comm_peer_counters_t after, comm_peer_counters_t before);
/* Everything this process has moved on ANY communicator of its world (never reset): dups and splits
 * with counters of their own, bookkeeping ones included. What a grader reads to see all the traffic
 * a piece of code caused, wherever it sent it. Peers here are WORLD ranks (0 <= peer < the world's
 * size), whatever communicator c is. */
comm_counters_t comm_process_counters(const comm_t *c);
comm_peer_counters_t comm_process_peer_counters(const comm_t *c, int peer);

/* What this process moved over its whole life: every communicator of every world it joined, the
 * finalized ones too (a check program's functions end their world before the program ends), never
 * reset. The grader's judge holds it against the switch's log of the run (grading/README.md,
 * "Security model"): the judge's own process, linked with the reference, did what the run claims. */
#define COMM_LIFETIME_PEERS 64
typedef struct {
    int rank, size;                          /* in the last world joined; size 0: this process never joined one */
    uint64_t lib_calls;                      /* library collectives (comm_lib_*) */
    uint64_t lib_bytes_sent, lib_bytes_recv; /* their bytes into and out of this rank (comm_lib_moved) */
    comm_peer_counters_t peers[COMM_LIFETIME_PEERS]; /* point-to-point, by peer rank (ranks beyond: not kept) */
} comm_lifetime_t;
void comm_lifetime_counters(comm_lifetime_t *out);
/* The bytes a library collective moves out of (*sent) and into (*recv) `rank` of `size` through the
 * grader's switch (comm_switch.c's algorithms, whatever backend this process uses): what the
 * switch's log says of the call. count: the call's count argument (recvcount for reduce_scatter,
 * sendcount for all_gather and gather), in elements of elem bytes; root: broadcast's and gather's. */
void comm_lib_moved(const char *op, size_t count, size_t elem, int rank, int size, int root, uint64_t *sent,
                    uint64_t *recv);

/* Seconds the CALLING THREAD has spent inside seam operations so far (sends, receives, collectives,
 * barriers, on any communicator; the link emulator's wait included): the time it was blocked on
 * other ranks and the wire. A thread that waits on a communication thread instead (DDP) adds that
 * wait itself (trainer_add_wait). */
double comm_thread_wait_s(void);

/* Modelled cost of one message under the link emulator (0 when off): over comm_link(c). */
double comm_link_cost_s(const comm_t *c, size_t bytes);

#endif
