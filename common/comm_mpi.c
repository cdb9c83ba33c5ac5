/* comm_mpi.c — the MPI backend: real processes on one machine or many (mpirun, srun).
 *
 * Point-to-point uses nonblocking MPI and polls for completion, backing off from spinning to
 * yielding to sleeping, so that a rank waiting for a slow peer (or for the link emulator) leaves the
 * CPU to the ranks and threads that have work. Library collectives are the MPI library's own
 * (blocking) ones: they are the baseline the course's algorithms are measured against. */
#ifdef DPC_HAVE_MPI
#define _GNU_SOURCE
#include "comm_internal.h"

#include "ops.h"
#include "util.h"

#include <limits.h>
#include <stdbool.h>
#include <mpi.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    MPI_Comm comm;
} mpi_state_t;

/* ---- device buffers through host memory -------------------------------------------------------
 * This MPI is not assumed to be CUDA-aware: a buffer in GPU memory is copied to the host before it
 * is sent (and received into the host, then copied up). Ranks that share one GPU talk this way. */
typedef struct {
    void *host, *dev;
    size_t bytes;
} staged_t;

#ifdef DPC_HAVE_CUDA
#include <cuda_runtime.h>

static void stage_sync(const comm_t *c) {
    if (c->stream)
        cudaStreamSynchronize((cudaStream_t)c->stream);
    else
        cudaDeviceSynchronize(); /* no stream given: be safe */
}

/* The host side of p for `bytes` (p itself when it is host memory); with copy_in, its contents. */
static staged_t stage(const comm_t *c, const void *p, size_t bytes, int copy_in) {
    staged_t s = {(void *)p, NULL, bytes};
    if (!p || !bytes || !ops_is_device_pointer(p)) return s;
    s.dev = (void *)p;
    s.host = dp_malloc(bytes);
    if (copy_in) {
        stage_sync(c);
        if (cudaMemcpy(s.host, p, bytes, cudaMemcpyDeviceToHost) != cudaSuccess)
            dp_fatal("rank %d: copying a device buffer to the host failed", c->rank);
    }
    return s;
}

/* Finish a staged buffer: with copy_out, its host contents go back to the device, and are there
 * when this returns. cudaMemcpy alone does not promise that: from pageable memory it may return
 * once the bytes are in the driver's staging buffer, and a kernel on a non-blocking stream (the ops
 * context's) does not wait for the legacy stream's copy. On an H200 the ring's next kernel read the
 * old contents (tests/gpu/check.sh, bench_allreduce on device buffers). So: on the comm's stream,
 * or the whole device without one, then wait. */
static void unstage(const comm_t *c, staged_t *s, int copy_out) {
    if (!s->dev) return;
    cudaStream_t st = (cudaStream_t)c->stream;
    /* and not before the work queued on the buffer is done with it: a parameter server receives
     * each worker's gradient into one buffer while the kernel adding the last one may still read
     * it (on the comm's stream the copy waits its turn; without one, wait for the device) */
    if (copy_out && !st) stage_sync(c);
    if (copy_out && (cudaMemcpyAsync(s->dev, s->host, s->bytes, cudaMemcpyHostToDevice, st) != cudaSuccess ||
                     (st ? cudaStreamSynchronize(st) : cudaDeviceSynchronize()) != cudaSuccess))
        dp_fatal("rank %d: copying a received buffer to the device failed", c->rank);
    free(s->host);
    s->dev = NULL;
}
#else
static staged_t stage(const comm_t *c, const void *p, size_t bytes, int copy_in) {
    (void)c, (void)copy_in;
    return (staged_t){(void *)p, NULL, bytes};
}
static void unstage(const comm_t *c, staged_t *s, int copy_out) { (void)c, (void)s, (void)copy_out; }
#endif

static MPI_Comm mcomm(const comm_t *c) { return ((mpi_state_t *)c->be)->comm; }

static MPI_Datatype mpi_type(dtype_t dt) {
    switch (dt) {
    case DT_F32:
        return MPI_FLOAT;
    case DT_F64:
        return MPI_DOUBLE;
    case DT_I32:
        return MPI_INT32_T;
    case DT_I64:
        return MPI_INT64_T;
    case DT_U8:
        return MPI_UINT8_T;
    case DT_U32:
        return MPI_UINT32_T;
    case DT_U64:
        return MPI_UINT64_T;
    case DT_BF16: /* bit patterns: copied, never reduced (check_redop) */
    case DT_F16:
        return MPI_UINT16_T;
    default:
        dp_fatal("dtype %d has no MPI type", (int)dt);
    }
}

static MPI_Op mpi_op(redop_t op) {
    switch (op) {
    case REDOP_SUM:
    case REDOP_AVG:
        return MPI_SUM; /* MPI has no average: sum, then divide (below) */
    case REDOP_MAX:
        return MPI_MAX;
    case REDOP_MIN:
        return MPI_MIN;
    }
    return MPI_SUM;
}

static int mpi_count(const comm_t *c, size_t count) {
    if (count > (size_t)INT_MAX)
        dp_fatal("rank %d: a message of %zu elements is larger than MPI's int count allows; split it", c->rank, count);
    return (int)count;
}

static void check(const comm_t *c, int err, const char *what) {
    if (err == MPI_SUCCESS) return;
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(err, msg, &len);
    dp_fatal("rank %d: MPI %s failed: %s", c->rank, what, msg);
}

static void mpi_init(comm_t *c, int *argc, char ***argv) {
    int provided = 0;
    MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE)
        dp_fatal("this MPI library does not support MPI_THREAD_MULTIPLE (DDP's communication "
                 "thread needs it); use Open MPI 4 or newer");
    mpi_state_t *s = dp_calloc(1, sizeof *s);
    MPI_Comm_dup(MPI_COMM_WORLD, &s->comm);
    MPI_Comm_set_errhandler(s->comm, MPI_ERRORS_RETURN);
    c->be = s;
    MPI_Comm_rank(s->comm, &c->rank);
    MPI_Comm_size(s->comm, &c->size);
    MPI_Comm local;
    MPI_Comm_split_type(s->comm, MPI_COMM_TYPE_SHARED, c->rank, MPI_INFO_NULL, &local);
    MPI_Comm_rank(local, &c->local_rank);
    MPI_Comm_size(local, &c->local_size);
    /* Which machine every rank is on (the nodes of a job without --topology): a machine is named by
     * the lowest world rank on it, then numbered in the order of those. */
    int leader = c->rank, *leaders = dp_malloc((size_t)c->size * sizeof *leaders);
    MPI_Allreduce(MPI_IN_PLACE, &leader, 1, MPI_INT, MPI_MIN, local);
    MPI_Comm_free(&local);
    MPI_Allgather(&leader, 1, MPI_INT, leaders, 1, MPI_INT, s->comm);
    int *node = dp_calloc((size_t)c->size, sizeof *node);
    for (int r = 0; r < c->size; r++)
        for (int q = 0; q < leaders[r]; q++) node[r] += leaders[q] == q; /* machines named before r's */
    free(leaders);
    c->world->real_node_of = node;
}

static void mpi_free(comm_t *c) {
    mpi_state_t *s = c->be;
    MPI_Comm_free(&s->comm);
    free(s);
}

static void mpi_finalize(comm_t *c) {
    mpi_free(c);
    MPI_Finalize();
}

static void mpi_dup(comm_t *parent, comm_t *child) {
    mpi_state_t *s = dp_calloc(1, sizeof *s);
    check(parent, MPI_Comm_dup(mcomm(parent), &s->comm), "Comm_dup");
    MPI_Comm_set_errhandler(s->comm, MPI_ERRORS_RETURN);
    child->be = s;
}

static void mpi_split(comm_t *parent, comm_t *child, int color, int key) {
    mpi_state_t *s = dp_calloc(1, sizeof *s);
    check(parent, MPI_Comm_split(mcomm(parent), color, key, &s->comm), "Comm_split");
    MPI_Comm_set_errhandler(s->comm, MPI_ERRORS_RETURN);
    child->be = s;
    /* MPI orders by (key, parent rank) as comm_split does: a difference would send to wrong ranks */
    int rank = -1, size = -1;
    MPI_Comm_rank(s->comm, &rank);
    MPI_Comm_size(s->comm, &size);
    if (rank != child->rank || size != child->size)
        dp_fatal("rank %d: MPI_Comm_split made rank %d of %d, the seam computed rank %d of %d", parent->rank, rank,
                 size, child->rank, child->size);
}

/* Wait for requests: spin briefly (the peer is usually about to answer), then yield the core to
 * other ranks for a few milliseconds — a large message moves only while both sides keep calling
 * into MPI, so a waiting rank must stay responsive — and only a rank that has waited longer than
 * that (its peer is computing, or emulating a slow link) sleeps in short naps. The watchdog in
 * comm.c ends the job if this never returns. */
static void wait_all(const comm_t *c, int n, MPI_Request *reqs, int src, size_t rcount, dtype_t dt) {
    double start = 0;
    MPI_Status st[2];
    for (unsigned polls = 0;; polls++) {
        int done = 0, err = MPI_Testall(n, reqs, &done, st);
        if (err == MPI_ERR_IN_STATUS) {
            for (int i = 0; i < n; i++)
                if (st[i].MPI_ERROR == MPI_ERR_TRUNCATE)
                    dp_fatal("rank %d: a message from rank %d is larger than the %zu x %s posted to receive it: sender "
                             "and receiver disagree on the size, or on which message comes next",
                             c->rank, src, rcount, dtype_name(dt));
            for (int i = 0; i < n; i++) check(c, st[i].MPI_ERROR, "receive/send");
        }
        check(c, err, "Testall");
        if (done) return;
        if (polls < 64) continue;
        if (polls == 64) start = dp_now();
        if (c->wait == COMM_WAIT_YIELD && ((polls & 63) != 0 || dp_now() - start < 5e-3)) {
            sched_yield();
            continue;
        }
        struct timespec nap = {0, (c->wait == COMM_WAIT_NAP ? 10 : 50) * 1000};
        nanosleep(&nap, NULL);
    }
}

static void mpi_sendrecv(comm_t *c, const void *sbuf, size_t scount, int dst, void *rbuf, size_t rcount, int src,
                         dtype_t dt) {
    MPI_Request reqs[2];
    int n = 0;
    MPI_Datatype t = mpi_type(dt);
    staged_t s = stage(c, dst >= 0 ? sbuf : NULL, scount * dtype_size(dt), 1);
    staged_t r = stage(c, src >= 0 ? rbuf : NULL, rcount * dtype_size(dt), 0);
    if (src >= 0) check(c, MPI_Irecv(r.host, mpi_count(c, rcount), t, src, 0, mcomm(c), &reqs[n++]), "Irecv");
    if (dst >= 0) check(c, MPI_Isend(s.host, mpi_count(c, scount), t, dst, 0, mcomm(c), &reqs[n++]), "Isend");
    wait_all(c, n, reqs, src, rcount, dt);
    unstage(c, &s, 0);
    unstage(c, &r, 1);
}

static void mpi_barrier(comm_t *c) { check(c, MPI_Barrier(mcomm(c)), "Barrier"); }

static void mpi_allreduce(comm_t *c, const void *s, void *r, size_t count, dtype_t dt, redop_t op) {
    size_t bytes = count * dtype_size(dt);
    staged_t rs = stage(c, r, bytes, s == r);
    staged_t ss = s == r ? rs : stage(c, s, bytes, 1);
    const void *in = s == r ? MPI_IN_PLACE : ss.host;
    check(c, MPI_Allreduce(in, rs.host, mpi_count(c, count), mpi_type(dt), mpi_op(op), mcomm(c)), "Allreduce");
    if (op == REDOP_AVG) comm_divide(rs.host, count, dt, c->size);
    if (s != r) unstage(c, &ss, 0);
    unstage(c, &rs, 1);
}

static void mpi_broadcast(comm_t *c, void *buf, size_t count, dtype_t dt, int root) {
    staged_t b = stage(c, buf, count * dtype_size(dt), c->rank == root);
    check(c, MPI_Bcast(b.host, mpi_count(c, count), mpi_type(dt), root, mcomm(c)), "Bcast");
    unstage(c, &b, c->rank != root);
}

static void mpi_reduce_scatter(comm_t *c, const void *s, void *r, size_t recvcount, dtype_t dt, redop_t op) {
    size_t total = recvcount * (size_t)c->size;
    mpi_count(c, total);
    staged_t ss = stage(c, s, total * dtype_size(dt), 1), rs = stage(c, r, recvcount * dtype_size(dt), 0);
    check(c, MPI_Reduce_scatter_block(ss.host, rs.host, mpi_count(c, recvcount), mpi_type(dt), mpi_op(op), mcomm(c)),
          "Reduce_scatter_block");
    if (op == REDOP_AVG) comm_divide(rs.host, recvcount, dt, c->size);
    unstage(c, &ss, 0);
    unstage(c, &rs, 1);
}

static void mpi_all_gather(comm_t *c, const void *s, void *r, size_t sendcount, dtype_t dt) {
    int n = mpi_count(c, sendcount);
    size_t total = sendcount * (size_t)c->size;
    mpi_count(c, total);
    staged_t ss = stage(c, s, sendcount * dtype_size(dt), 1), rs = stage(c, r, total * dtype_size(dt), 0);
    check(c, MPI_Allgather(ss.host, n, mpi_type(dt), rs.host, n, mpi_type(dt), mcomm(c)), "Allgather");
    unstage(c, &ss, 0);
    unstage(c, &rs, 1);
}

static void mpi_gather(comm_t *c, const void *s, void *r, size_t sendcount, dtype_t dt, int root) {
    int n = mpi_count(c, sendcount);
    mpi_count(c, sendcount * (size_t)c->size);
    check(c, MPI_Gather(s, n, mpi_type(dt), r, n, mpi_type(dt), root, mcomm(c)), "Gather");
}

/* Our fatal error is one line, printed before this is called; Open MPI 4 follows MPI_Abort with an
 * 8-12 line banner that buries it. Its switch for that, orte_execute_quiet (mpirun -q), is read as
 * each message is about to be sent, so setting it here, in this process and only now, silences just
 * this banner: mpirun itself still reports a rank killed by a signal or a failed launch (mpirun -q
 * would hide those), and MPI errors of this process before now were shown as usual (the environment
 * variable OMPI_MCA_orte_execute_quiet would hide them for the whole run). It cannot be set through
 * MPI_T (not settable at run time), hence the weak reference: where it does not exist (MPICH, Open
 * MPI 5) the address is NULL and nothing changes. */
extern bool orte_execute_quiet __attribute__((weak));

/* Also called before comm_init (MPI not up yet: start it to abort; on a rank of a multi-rank launch
 * only) and after comm_finalize (nothing to do: the caller exits). */
static void mpi_abort(int status) {
    int up = 0, down = 0;
    MPI_Initialized(&up);
    MPI_Finalized(&down);
    if (down) return;
    if (!up) {
        alarm(60); /* never a hang: MPI_Init waits for every rank, and one may have exited */
        int provided = 0;
        if (MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) return;
    }
    if (&orte_execute_quiet) orte_execute_quiet = true;
    /* Ranks that fail at once (every rank finds a bad option) abort one after the other, lowest
     * first, and the first takes the rest down: 4 ranks aborting together made mpirun print libevent
     * "[warn] Epoll MOD" lines in about 1 run of 15 (0 in 90 staggered). */
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    struct timespec stagger = {0, (rank < 5 ? rank : 5) * 20 * 1000 * 1000L};
    nanosleep(&stagger, NULL);
    MPI_Abort(MPI_COMM_WORLD, status);
}

const comm_backend_t comm_backend_mpi = {
    "mpi",         mpi_init,      mpi_finalize,       mpi_dup,        mpi_split,  mpi_free,  mpi_sendrecv, mpi_barrier,
    mpi_allreduce, mpi_broadcast, mpi_reduce_scatter, mpi_all_gather, mpi_gather, mpi_abort,
};
#else
typedef int comm_mpi_not_built; /* ISO C forbids an empty translation unit */
#endif
