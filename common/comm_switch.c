/* comm_switch.c — the switch backend: every message goes through the grader's switch process
 * (grading/switch.c) over a unix socket, so that the traffic a verdict rests on is counted outside
 * the process that runs student code. Chosen by comm_init for a launched rank (mpirun) when the
 * environment names the switch's socket in DPC_SWITCH. The wire is common/switch_wire.h.
 *
 * No MPI: Open MPI's mpirun runs processes that never call MPI_Init, and ends the job when one exits
 * non-zero (after its own banner, which MPI_Abort's quiet path would have hidden). Rank and size are
 * the launcher's variables; the job key, which tells the switch which ranks belong together, is
 * PMIX_NAMESPACE (or OMPI_MCA_ess_base_jobid).
 *
 * One connection per process, shared by every communicator and thread: a frame is written whole
 * under a lock; frames read are matched by (source, context, class) in arrival order, and one not
 * yet wanted waits in a queue. One thread reads at a time; a frame it reads for its own receive goes
 * straight into that buffer. Writes block: the switch always reads (it buffers up to 2 GiB per job),
 * so sendrecv cannot deadlock whatever the sizes. A context id is 0 for the world and, for a dup or
 * a split, derived from its parent's id and how many the parent made before (and a split's color):
 * every rank dups and splits a comm in the same order, so the ids agree without a message.
 *
 * Frames name WORLD ranks, whatever communicator they are sent on: the switch counts messages per
 * pair of processes, and that is the evidence. A rank of a split communicator is translated to its
 * world rank (c->world_of) on the way out, and a source back on the way in.
 *
 * Library collectives and barrier send class LIB (never counted as the students' point-to-point
 * traffic), each library call announced by one CTL_LIBCALL: allreduce reduces on rank 0 in rank
 * order and sends the result back, reduce_scatter reduces each chunk on its owner in rank order, the
 * others are direct sends. Device buffers are refused in one line: this backend carries host memory
 * (the course's CPU runs, which are what is graded); GPU runs use MPI or NCCL without DPC_SWITCH.
 *
 * A point-to-point send above 4 KiB waits until the receiver has taken the message (SW_FLAG_SYNC,
 * switch_wire.h), as MPI's does: a program that deadlocks under MPI deadlocks here, and is caught.
 *
 * Never a hang: every wait is inside an operation the watchdog (comm.c) watches; a peer that
 * disconnects without comm_finalize makes the switch send CTL_GONE, and a rank waiting on that peer
 * ends at once with a line naming it; a switch that goes away ends every rank with a line. */
#define _GNU_SOURCE
#include "comm_internal.h"

#include "cli.h"
#include "ops.h"
#include "switch_wire.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

typedef struct frame {
    struct frame *next;
    uint32_t src, ctx, cls, flags;
    size_t bytes;
    char *data;
} frame_t;

/* One per process. */
static struct {
    int fd;
    int rank, size;
    pthread_mutex_t send_lock, lock; /* lock guards everything below */
    pthread_cond_t cond;             /* a frame was queued, or the reader finished */
    bool reading;                    /* a thread is reading from fd */
    frame_t *head, *tail;            /* frames read but not yet received */
    bool *gone;                      /* [size]: disconnected without comm_finalize (CTL_GONE) */
    bool lost;                       /* the switch closed the connection */
} sw = {.fd = -1};

typedef struct {
    uint32_t ctx;
    uint32_t ndups;
} sw_comm_t;

static uint32_t ctx_of(const comm_t *c) { return ((const sw_comm_t *)c->be)->ctx; }

/* What c is waiting in, for the lines below. */
static void inflight_desc(comm_t *c, char *out, size_t n) {
    pthread_mutex_lock(&c->inflight_lock);
    comm_inflight_t f = c->inflight;
    pthread_mutex_unlock(&c->inflight_lock);
    if (f.op)
        snprintf(out, n, "%s (op #%llu on comm '%s')", f.op, (unsigned long long)f.seq, c->name);
    else
        snprintf(out, n, "an operation on comm '%s'", c->name);
}

static DP_NORETURN void switch_lost(comm_t *c, const char *why) {
    char op[160];
    inflight_desc(c, op, sizeof op);
    dp_fatal("rank %d: the message switch (DPC_SWITCH) %s during %s: it was stopped, or refused this rank (its "
             "log says why)",
             c->rank, why, op);
}

static void refuse_device(const comm_t *c, const void *p) {
    if (p && ops_is_device_pointer(p))
        dp_fatal("rank %d: the switch transport (DPC_SWITCH) carries host buffers only, and this one is in GPU "
                 "memory; run GPU jobs without DPC_SWITCH (MPI, or --comm nccl)",
                 c->rank);
}

static bool write_all(const struct iovec *iov_in, int n) {
    struct iovec iov[2];
    memcpy(iov, iov_in, (size_t)n * sizeof *iov);
    int i = 0;
    while (i < n) {
        struct msghdr m = {.msg_iov = iov + i, .msg_iovlen = (size_t)(n - i)};
        ssize_t put = sendmsg(sw.fd, &m, MSG_NOSIGNAL);
        if (put < 0 && errno == EINTR) continue;
        if (put <= 0) return false;
        size_t left = (size_t)put;
        while (i < n && left >= iov[i].iov_len) left -= iov[i++].iov_len;
        if (i < n) {
            iov[i].iov_base = (char *)iov[i].iov_base + left;
            iov[i].iov_len -= left;
        }
    }
    return true;
}

/* dst: a rank of c. */
static void send_frame(comm_t *c, int dst, uint32_t cls, const void *buf, size_t bytes, uint32_t flags) {
    sw_frame_t h = {(uint32_t)c->world_of[dst], ctx_of(c), cls, flags, bytes};
    struct iovec iov[2] = {{&h, sizeof h}, {(void *)buf, bytes}};
    pthread_mutex_lock(&sw.send_lock);
    bool ok = write_all(iov, bytes ? 2 : 1);
    pthread_mutex_unlock(&sw.send_lock);
    if (!ok) switch_lost(c, "closed the connection");
}

/* Tell src that its SYNC frame on c was taken: its send may return. */
static void ack(comm_t *c, int src) { send_frame(c, src, SW_CTL_ACK, NULL, 0, 0); }

static bool read_all(void *buf, size_t n) {
    char *p = buf;
    while (n > 0) {
        ssize_t got = read(sw.fd, p, n);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return false;
        p += got;
        n -= (size_t)got;
    }
    return true;
}

static DP_NORETURN void too_long(comm_t *c, int src, size_t got, size_t want) {
    dp_fatal("rank %d: a message from rank %d is larger (%zu bytes) than the %zu bytes posted to receive it: "
             "sender and receiver disagree on the size, or on which message comes next",
             c->rank, src, got, want);
}

static frame_t *take(uint32_t src, uint32_t ctx, uint32_t cls) {
    for (frame_t **p = &sw.head, *prev = NULL; *p; prev = *p, p = &(*p)->next) {
        frame_t *f = *p;
        if (f->src != src || f->ctx != ctx || f->cls != cls) continue;
        *p = f->next;
        if (sw.tail == f) sw.tail = prev;
        return f;
    }
    return NULL;
}

/* Receive the next frame of class cls from src on c into buf (at most `bytes` bytes, as MPI allows
 * a shorter message). Returns the payload bytes received. */
static size_t recv_frame(comm_t *c, int src, uint32_t cls, void *buf, size_t bytes) {
    uint32_t ctx = ctx_of(c), wsrc = (uint32_t)c->world_of[src];
    double gone_at = 0; /* when src is known gone: when to say so */
    pthread_mutex_lock(&sw.lock);
    for (;;) {
        frame_t *f = take(wsrc, ctx, cls);
        if (f) {
            pthread_mutex_unlock(&sw.lock);
            if (f->bytes > bytes) too_long(c, src, f->bytes, bytes);
            if (f->bytes) memcpy(buf, f->data, f->bytes);
            size_t n = f->bytes;
            if (f->flags & SW_FLAG_SYNC) ack(c, src);
            free(f->data);
            free(f);
            return n;
        }
        /* A rank that died non-zero makes mpirun end this one too, and one that failed says so and
         * aborts (CTL_ABORT): for a moment, staggered by rank (the lowest says it first, its abort
         * ends the others), keep reading and let that happen, so that what the user reads is the
         * first failure rather than a line from every rank. */
        if (sw.gone[wsrc] && gone_at == 0)
            gone_at = dp_now() + fmin(0.5, comm_timeout_s(c) / 10) * (1 + (c->rank < 4 ? c->rank : 4));
        if (sw.gone[wsrc] && dp_now() >= gone_at) {
            pthread_mutex_unlock(&sw.lock);
            char op[160];
            inflight_desc(c, op, sizeof op);
            dp_fatal("rank %d: rank %d ended without comm_finalize (it crashed, exited early or failed) while this "
                     "rank waited for it in %s",
                     sw.rank, (int)wsrc, op);
        }
        if (sw.lost) {
            pthread_mutex_unlock(&sw.lock);
            switch_lost(c, "closed the connection");
        }
        if (sw.reading) { /* another thread reads: wait for what it queues */
            struct timespec until;
            clock_gettime(CLOCK_REALTIME, &until);
            until.tv_nsec += 10 * 1000 * 1000;
            if (until.tv_nsec >= 1000000000L) until.tv_sec++, until.tv_nsec -= 1000000000L;
            pthread_cond_timedwait(&sw.cond, &sw.lock, &until);
            continue;
        }
        /* read one frame, outside the lock (only the reader touches fd's read side) */
        sw.reading = true;
        pthread_mutex_unlock(&sw.lock);
        struct pollfd p = {sw.fd, POLLIN, 0};
        int r = poll(&p, 1, 10);
        frame_t *got = NULL;
        bool lost = false, mine = false, mine_sync = false;
        size_t mine_bytes = 0;
        if (r > 0) {
            sw_frame_t h;
            if (!read_all(&h, sizeof h)) {
                lost = true;
            } else if (h.cls == SW_CTL_ABORT) {
                _exit(h.ctx >= 1 && h.ctx <= 255 ? (int)h.ctx : 1); /* the aborting rank said why */
            } else if (h.cls == SW_CTL_GONE) {
                pthread_mutex_lock(&sw.lock);
                if (h.peer < (uint32_t)sw.size) sw.gone[h.peer] = true;
                pthread_mutex_unlock(&sw.lock);
            } else if (h.peer == wsrc && h.ctx == ctx && h.cls == cls) {
                /* ours, and nothing of ours waits in the queue (we looked, and only the reader adds) */
                if (h.bytes > bytes) too_long(c, src, h.bytes, bytes);
                lost = !read_all(buf, h.bytes);
                mine = !lost;
                mine_bytes = h.bytes;
                mine_sync = h.flags & SW_FLAG_SYNC;
            } else if (h.peer >= (uint32_t)sw.size) {
                dp_fatal("rank %d: the switch sent a frame from rank %u of a world of %d", c->rank, h.peer, sw.size);
            } else {
                got = dp_calloc(1, sizeof *got);
                *got = (frame_t){NULL, h.peer, h.ctx, h.cls, h.flags, h.bytes, h.bytes ? dp_malloc(h.bytes) : NULL};
                lost = !read_all(got->data, h.bytes);
            }
        }
        pthread_mutex_lock(&sw.lock);
        sw.reading = false;
        if (lost) sw.lost = true;
        if (got && !lost) {
            if (sw.tail)
                sw.tail->next = got;
            else
                sw.head = got;
            sw.tail = got;
        } else if (got) {
            free(got->data);
            free(got);
        }
        pthread_cond_broadcast(&sw.cond);
        if (mine) {
            pthread_mutex_unlock(&sw.lock);
            if (mine_sync) ack(c, src);
            return mine_bytes;
        }
    }
}

void comm_switch_linger(double seconds) {
    double until = dp_now() + seconds;
    while (dp_now() < until) {
        pthread_mutex_lock(&sw.lock);
        bool mine = !sw.reading && !sw.lost && sw.fd >= 0;
        if (mine) sw.reading = true;
        pthread_mutex_unlock(&sw.lock);
        if (!mine) { /* another thread reads, and ends the process on CTL_ABORT itself */
            dp_sleep_until(until);
            return;
        }
        struct pollfd p = {sw.fd, POLLIN, 0};
        bool lost = false;
        if (poll(&p, 1, 10) > 0) {
            sw_frame_t h;
            if (!read_all(&h, sizeof h)) {
                lost = true;
            } else if (h.cls == SW_CTL_ABORT) {
                _exit(h.ctx >= 1 && h.ctx <= 255 ? (int)h.ctx : 1);
            } else if (h.bytes) { /* this rank is about to end: what it would have received is dropped */
                char sink[1 << 16];
                for (size_t left = h.bytes; left > 0 && !lost;) {
                    size_t n = left < sizeof sink ? left : sizeof sink;
                    lost = !read_all(sink, n);
                    left -= n;
                }
            }
        }
        pthread_mutex_lock(&sw.lock);
        sw.reading = false;
        if (lost) sw.lost = true;
        pthread_cond_broadcast(&sw.cond);
        pthread_mutex_unlock(&sw.lock);
        if (lost) {
            dp_sleep_until(until);
            return;
        }
    }
}

static void sw_connect(comm_t *c, const char *path) {
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof a.sun_path)
        dp_fatal("rank %d: DPC_SWITCH=%s is longer than a socket path may be", c->rank, path);
    memcpy(a.sun_path, path, strlen(path) + 1);
    sw.fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (sw.fd < 0 || connect(sw.fd, (struct sockaddr *)&a, sizeof a) != 0) {
        const char *why = strerror(errno);
        /* every rank fails alike: rank 0 says it, and mpirun ends the others while they wait (a
         * second or more on a busy machine); one that is still there says it too */
        if (c->rank != 0) dp_sleep_until(dp_now() + fmin(5.0, comm_timeout_s(c) / 2));
        dp_fatal("rank %d: cannot reach the message switch at DPC_SWITCH=%s: %s", c->rank, path, why);
    }
    int sz = 4 << 20; /* fewer wake-ups for the ring's 4 MiB messages */
    setsockopt(sw.fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof sz);
    setsockopt(sw.fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof sz);
}

static int env_int(const char *const *vars, size_t n, int fallback) {
    for (size_t i = 0; i < n; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v) return atoi(v);
    }
    return fallback;
}

static void switch_init(comm_t *c, int *argc, char ***argv) {
    (void)argc, (void)argv;
    const char *lrv[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID"};
    const char *lsv[] = {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"};
    c->rank = cli_launcher_rank();
    c->size = cli_launcher_size();
    if (c->size < 1 || c->size > SW_MAX_SIZE || c->rank < 0 || c->rank >= c->size)
        dp_fatal("the launcher gives rank %d of a world of %d: the switch transport (DPC_SWITCH) needs a rank and a "
                 "world size of 1..%d (launch with mpirun)",
                 c->rank, c->size, SW_MAX_SIZE);
    c->local_rank = env_int(lrv, 2, c->rank);
    c->local_size = env_int(lsv, 2, c->size);
    const char *key = getenv("PMIX_NAMESPACE");
    if (!key || !*key) key = getenv("OMPI_MCA_ess_base_jobid");
    if (!key || !*key || strlen(key) > SW_KEY_MAX)
        dp_fatal("rank %d: the switch transport (DPC_SWITCH) needs the launcher's job id (PMIX_NAMESPACE, at most %d "
                 "bytes): launch with Open MPI's mpirun",
                 c->rank, SW_KEY_MAX);
    sw.rank = c->rank;
    sw.size = c->size;
    sw.gone = dp_calloc((size_t)c->size, sizeof *sw.gone);
    pthread_mutex_init(&sw.send_lock, NULL);
    pthread_mutex_init(&sw.lock, NULL);
    pthread_cond_init(&sw.cond, NULL);
    sw_connect(c, getenv("DPC_SWITCH"));
    sw_hello_t h = {SW_MAGIC, SW_VERSION, (uint32_t)c->size, (uint32_t)c->rank, {0}};
    memcpy(h.key, key, strlen(key));
    struct iovec iov = {&h, sizeof h};
    if (!write_all(&iov, 1))
        dp_fatal("rank %d: the message switch (DPC_SWITCH) closed the connection at the hello", c->rank);
    c->be = dp_calloc(1, sizeof(sw_comm_t));
}

static void switch_free(comm_t *c) {
    free(c->be);
    c->be = NULL;
}

static void switch_finalize(comm_t *c) {
    send_frame(c, c->rank, SW_CTL_BYE, NULL, 0, 0);
    switch_free(c);
    shutdown(sw.fd, SHUT_WR);
    close(sw.fd);
    sw.fd = -1;
    while (sw.head) {
        frame_t *f = sw.head;
        sw.head = f->next;
        free(f->data);
        free(f);
    }
    sw.tail = NULL;
    free(sw.gone);
    sw.gone = NULL;
    pthread_cond_destroy(&sw.cond);
    pthread_mutex_destroy(&sw.lock);
    pthread_mutex_destroy(&sw.send_lock);
}

/* FNV-1a over (parent's id, its dup or split number, the split's color + 1 or 0 for a dup):
 * deterministic on every rank, and 0 (the world) never. */
static void derive(comm_t *parent, comm_t *child, uint32_t color_plus_1) {
    sw_comm_t *p = parent->be, *s = dp_calloc(1, sizeof *s);
    uint32_t h = 2166136261u, in[3] = {p->ctx, ++p->ndups, color_plus_1};
    const unsigned char *b = (const unsigned char *)in;
    for (size_t i = 0; i < (color_plus_1 ? sizeof in : 2 * sizeof *in); i++) h = (h ^ b[i]) * 16777619u;
    s->ctx = h ? h : 1;
    child->be = s;
}

static void switch_dup(comm_t *parent, comm_t *child) { derive(parent, child, 0); }

/* The split's ranks and their world ranks are in child already (comm_split): it needs only a
 * message space of its own. */
static void switch_split(comm_t *parent, comm_t *child, int color, int key) {
    (void)key;
    derive(parent, child, (uint32_t)color + 1);
}

static void switch_sendrecv(comm_t *c, const void *sbuf, size_t scount, int dst, void *rbuf, size_t rcount, int src,
                            dtype_t dt) {
    if (dst >= 0) refuse_device(c, sbuf);
    if (src >= 0) refuse_device(c, rbuf);
    size_t sbytes = scount * dtype_size(dt);
    bool sync = dst >= 0 && sbytes > SW_EAGER_MAX;
    if (dst >= 0) send_frame(c, dst, SW_P2P, sbuf, sbytes, sync ? SW_FLAG_SYNC : 0);
    if (src >= 0) recv_frame(c, src, SW_P2P, rbuf, rcount * dtype_size(dt));
    if (sync) recv_frame(c, dst, SW_CTL_ACK, NULL, 0); /* the receiver has taken it */
}

/* ---- library collectives: class LIB, each call announced once ---------------------------------- */

static void lib_send(comm_t *c, int dst, const void *buf, size_t bytes) { send_frame(c, dst, SW_LIB, buf, bytes, 0); }
static void lib_recv(comm_t *c, int src, void *buf, size_t bytes) {
    size_t got = recv_frame(c, src, SW_LIB, buf, bytes);
    if (got != bytes)
        dp_fatal("rank %d: a library collective got %zu bytes from rank %d, expected %zu: the ranks called "
                 "different collectives, or with different counts",
                 c->rank, got, src, bytes);
}

static void announce(comm_t *c, const void *a, const void *b) {
    refuse_device(c, a);
    refuse_device(c, b);
    send_frame(c, c->rank, SW_CTL_LIBCALL, NULL, 0, 0);
}

static void switch_barrier(comm_t *c) {
    if (c->rank == 0) {
        for (int r = 1; r < c->size; r++) lib_recv(c, r, NULL, 0);
        for (int r = 1; r < c->size; r++) lib_send(c, r, NULL, 0);
    } else {
        lib_send(c, 0, NULL, 0);
        lib_recv(c, 0, NULL, 0);
    }
}

static void switch_allreduce(comm_t *c, const void *s, void *r, size_t count, dtype_t dt, redop_t op) {
    announce(c, s, r);
    size_t bytes = count * dtype_size(dt);
    if (c->rank != 0) {
        lib_send(c, 0, s, bytes);
        lib_recv(c, 0, r, bytes);
        return;
    }
    if (s != r && bytes) memmove(r, s, bytes);
    void *tmp = dp_malloc(bytes ? bytes : 1);
    for (int src = 1; src < c->size; src++) { /* rank order: the same bits on every run */
        lib_recv(c, src, tmp, bytes);
        comm_reduce_into(r, tmp, count, dt, op);
    }
    free(tmp);
    if (op == REDOP_AVG) comm_divide(r, count, dt, c->size);
    for (int dst = 1; dst < c->size; dst++) lib_send(c, dst, r, bytes);
}

static void switch_broadcast(comm_t *c, void *buf, size_t count, dtype_t dt, int root) {
    announce(c, buf, NULL);
    size_t bytes = count * dtype_size(dt);
    if (c->rank == root) {
        for (int dst = 0; dst < c->size; dst++)
            if (dst != root) lib_send(c, dst, buf, bytes);
    } else {
        lib_recv(c, root, buf, bytes);
    }
}

static void switch_reduce_scatter(comm_t *c, const void *s, void *r, size_t recvcount, dtype_t dt, redop_t op) {
    announce(c, s, r);
    size_t bytes = recvcount * dtype_size(dt);
    const char *in = s;
    for (int dst = 0; dst < c->size; dst++)
        if (dst != c->rank) lib_send(c, dst, in + (size_t)dst * bytes, bytes);
    const char *mine = in + (size_t)c->rank * bytes;
    void *tmp = dp_malloc(bytes ? bytes : 1);
    for (int src = 0; src < c->size; src++) { /* rank order, starting from rank 0's chunk */
        const void *part = mine;
        if (src != c->rank) {
            lib_recv(c, src, tmp, bytes);
            part = tmp;
        }
        if (src == 0) {
            if (bytes && part != r) memmove(r, part, bytes);
        } else {
            comm_reduce_into(r, part, recvcount, dt, op);
        }
    }
    free(tmp);
    if (op == REDOP_AVG) comm_divide(r, recvcount, dt, c->size);
}

static void switch_all_gather(comm_t *c, const void *s, void *r, size_t sendcount, dtype_t dt) {
    announce(c, s, r);
    size_t bytes = sendcount * dtype_size(dt);
    char *out = r;
    for (int dst = 0; dst < c->size; dst++)
        if (dst != c->rank) lib_send(c, dst, s, bytes);
    if (bytes && out + (size_t)c->rank * bytes != s) memmove(out + (size_t)c->rank * bytes, s, bytes);
    for (int src = 0; src < c->size; src++)
        if (src != c->rank) lib_recv(c, src, out + (size_t)src * bytes, bytes);
}

static void switch_gather(comm_t *c, const void *s, void *r, size_t sendcount, dtype_t dt, int root) {
    announce(c, s, c->rank == root ? r : NULL);
    size_t bytes = sendcount * dtype_size(dt);
    if (c->rank != root) {
        lib_send(c, root, s, bytes);
        return;
    }
    char *out = r;
    if (bytes && out + (size_t)root * bytes != s) memmove(out + (size_t)root * bytes, s, bytes);
    for (int src = 0; src < c->size; src++)
        if (src != root) lib_recv(c, src, out + (size_t)src * bytes, bytes);
}

void comm_lib_moved(const char *op, size_t count, size_t elem, int rank, int size, int root, uint64_t *sent,
                    uint64_t *recv) {
    uint64_t b = (uint64_t)count * elem, others = size > 1 ? (uint64_t)size - 1 : 0;
    *sent = *recv = 0;
    if (!strcmp(op, "allreduce")) { /* to rank 0 and back */
        *sent = *recv = rank == 0 ? b * others : b;
    } else if (!strcmp(op, "broadcast")) {
        if (rank == root)
            *sent = b * others;
        else
            *recv = b;
    } else if (!strcmp(op, "reduce_scatter") || !strcmp(op, "all_gather")) { /* a chunk to and from each other rank */
        *sent = *recv = b * others;
    } else if (!strcmp(op, "gather")) {
        if (rank == root)
            *recv = b * others;
        else
            *sent = b;
    }
}

/* Every other rank of the job exits with this status as soon as it next waits on the switch
 * (CTL_ABORT), and mpirun ends those that do not once this one exits non-zero. The frame is sent
 * only if no other thread of this process is inside a write: a frame cut in two would be refused. */
static void switch_abort(int status) {
    if (sw.fd >= 0 && pthread_mutex_trylock(&sw.send_lock) == 0) {
        sw_frame_t h = {0, (uint32_t)(status >= 1 && status <= 255 ? status : 1), SW_CTL_ABORT, 0, 0};
        struct iovec iov = {&h, sizeof h};
        write_all(&iov, 1);
    }
    if (sw.fd >= 0) shutdown(sw.fd, SHUT_RDWR);
    _exit(status);
}

const comm_backend_t comm_backend_switch = {
    "switch",        switch_init,    switch_finalize,  switch_dup,       switch_split,          switch_free,
    switch_sendrecv, switch_barrier, switch_allreduce, switch_broadcast, switch_reduce_scatter, switch_all_gather,
    switch_gather,   switch_abort,
};
