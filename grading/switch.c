/* switch — the per-grade message switch: every byte a graded rank sends to another passes through
 * this process, which counts it. What a verdict on "which algorithm ran" rests on is counted here,
 * outside every process that runs student code.
 *
 *   switch --socket PATH --log FILE
 *
 * Listens on an AF_UNIX stream socket at PATH (mode 0666: the ranks run under another uid, in a
 * sandbox that sees PATH on a read-only bind mount), until SIGTERM or SIGINT; then writes what is
 * left and exits 0. Bad arguments, or a socket it cannot create: one line, exit 2.
 *
 * Protocol (common/switch_wire.h; the rank side is common/comm_switch.c): a rank connects and sends
 * a hello (magic, version, job key, world size, rank); then frames {peer, context, class, bytes} +
 * payload. The switch forwards a frame to rank `peer` of the same job with peer replaced by the
 * source rank. Classes: P2P (the seam's send/recv/sendrecv), LIB (the library collectives' and
 * barrier's traffic), CTL_LIBCALL (no payload, one per library-collective call), CTL_BYE (no
 * payload: comm_finalize), CTL_ABORT (no payload, the exit status in the context field: the rank
 * ends the job; every other rank of it gets CTL_ABORT and exits with that status, without a line of
 * its own, as under MPI_Abort), CTL_ACK (no payload: the receiver took a P2P frame flagged SYNC, one
 * larger than 4 KiB, whose sender waits for it as MPI's rendezvous does). A rank that disconnects
 * without BYE or CTL_ABORT died: every other rank of its job gets CTL_GONE naming it, so that a rank
 * waiting on it ends with a line instead of a timeout. The job key is what the launcher gives every
 * rank of one launch (PMIX_NAMESPACE); jobs are numbered K = 0, 1, ... in the order of their first
 * hellos.
 *
 * Log (FILE, appended; one record per line, numbers in decimal):
 *   job K key KEY size N complete|incomplete
 *   peer K R P msgs_sent A bytes_sent B msgs_recv C bytes_recv D   (P2P only; every P != R)
 *   lib K R calls A bytes_sent B bytes_recv C                      (LIB traffic; CTL_LIBCALL count)
 *   error K TEXT                                                   (K = -1 before a hello)
 * A job's job/peer/lib lines are written, flushed and fsync'ed when all its ranks have disconnected
 * ("complete"); at SIGTERM, jobs not ended are written "incomplete". Error lines are written when
 * they happen. Bytes are payload bytes, as the seam's counters count them (comm.h). msgs_sent and
 * bytes_sent count a frame when the switch has received all of it; msgs_recv and bytes_recv when it
 * has written all of it to the destination rank: in a job that ends normally the P2P lines equal
 * what comm_process_peer_counters() reports on each rank. Barriers send LIB frames but are not
 * library calls (the seam does not count them either).
 *
 * Validation: a bad hello, a second hello for a rank, rank >= size, a size that disagrees with the
 * job's, an unknown class, a destination out of range or the sender itself, a control frame with a
 * payload, a connection closed inside a frame: an error line, and that connection is closed (the
 * rank ends with a line; the others of its job get CTL_GONE). The switch never waits on one rank:
 * non-blocking sockets, one poll() loop, a queue per destination rank (kept while that rank has not
 * connected yet: a rank may send before its peer said hello). Its memory and its log stay bounded
 * whatever a rank sends (a rank can make up job keys and bad frames): a job whose queued bytes would
 * pass 2 GiB (or all jobs' 4 GiB) gets an error line and all its connections are closed; a hello is
 * refused for a world of more than 256 ranks, for a 65th job under way (after the oldest job with no
 * rank connected is written as incomplete to make room), or for a job whose peer lines would take
 * the log past 2^20 of them over the switch's life; after 1000 error lines, one says the rest are not
 * logged.
 *
 * Security model ("the switch"). What a verdict rests on (messages and bytes per peer pair and per
 * class, library calls) is counted in this process, which runs as the grader, outside the sandbox:
 * the ranks reach it only through the socket, and the log is written where no rank can write.
 * A rank can send whatever frames it likes, but every frame it sends is a frame moved and counted:
 *   - retyping the seam's structs or writing the in-process counters changes nothing here;
 *   - calling the library collectives instead of the algorithm shows as CTL_LIBCALL and LIB bytes,
 *     never as P2P traffic, since a LIB frame is only ever counted as LIB;
 *   - LIB frames sent by hand, without CTL_LIBCALL, are still LIB bytes: the judge reads the bytes,
 *     not only the calls;
 *   - sending P2P frames that nobody consumes (padding the ring's counts) adds traffic, but the
 *     judge's check that the result came from that traffic (results and counts agree) is separate;
 *   - a rank that goes around the switch (unsets DPC_SWITCH before comm_init, calls MPI itself)
 *     leaves its job missing, or incomplete, in the log: the judge must fail such a run;
 *   - claiming to be another rank needs a second hello for that rank (refused, logged), and the
 *     source of a frame is the connection it came on, never a field the rank fills in;
 *   - a switch serves one grade, so every job on it is the same student's: a rank that joins
 *     another of them (a hello with its key, for a rank not connected yet) makes that job fail (the
 *     real rank is refused), and what it sends there is counted there, never in its own job;
 *   - a rank cannot write the log, nor make the switch block or grow without bound (above).
 * Forging the counts therefore needs code outside the sandbox (a sandbox escape): writing this
 * process's memory or the log file. What it does not see: traffic that bypasses it (MPI itself, a
 * shared-memory segment between ranks): the sandbox must give the ranks no other channel. */
#define _GNU_SOURCE
#include "switch_wire.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define JOB_QUEUE_MAX   (2ull << 30) /* bytes a job may hold in the switch at once */
#define ALL_QUEUE_MAX   (4ull << 30) /* and all jobs together (a rank can make up jobs) */
#define LIVE_JOBS_MAX   64           /* jobs not ended at once */
#define ERRORS_MAX      1000         /* error lines over the switch's life */
#define PEER_LINES_MAX  (1u << 20)   /* peer lines over the switch's life: bounds the log (~80 MB) */
#define READ_BUDGET     (8u << 20)   /* bytes read from one connection per poll round: fairness */
#define SOCKET_BUF_SIZE (4 << 20)

typedef struct item {
    struct item *next;
    sw_frame_t hdr;
    char *data;
    size_t off; /* bytes of hdr + data written so far */
} item_t;

typedef struct {
    item_t *head, *tail;
} queue_t;

typedef struct {
    uint64_t msgs, bytes;
} count_t;

typedef struct job job_t;
typedef struct conn conn_t;

struct job {
    int index;
    char key[SW_KEY_MAX + 1];
    uint32_t size;
    conn_t **conn;      /* [size]: the live connection of each rank, or NULL */
    bool *hello, *left; /* [size]: said hello; has disconnected */
    queue_t *out;       /* [size]: frames waiting to be written to each rank */
    count_t *p2p_sent;  /* [src * size + dst] */
    count_t *p2p_recv;  /* [dst * size + src] */
    uint64_t *lib_calls, *lib_sent, *lib_recv;
    uint64_t queued; /* bytes of payload held for this job */
    bool ended;
    job_t *next;
};

enum { ST_HELLO, ST_HDR, ST_BODY };

struct conn {
    int fd;
    job_t *job;
    uint32_t rank;
    int state;
    unsigned char buf[sizeof(sw_hello_t)]; /* the hello or frame header being read */
    size_t got;                            /* bytes of buf, or of body, read so far */
    sw_frame_t hdr;
    char *body;
    bool bye;
    bool dead; /* closed: freed at the end of the poll round */
    conn_t *next;
};

static FILE *logfile;
static job_t *jobs;
static int njobs;
static conn_t *conns;
static uint64_t all_queued;  /* payload bytes held for all jobs */
static int live_jobs;        /* jobs not ended */
static uint64_t peer_lines;  /* peer lines promised to the log so far */
static double listen_paused; /* out of descriptors: do not accept until then */
static volatile sig_atomic_t stop_signal;

static void on_stop(int sig) { stop_signal = sig; }

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void usage(const char *fmt, ...) {
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "switch: %s (usage: switch --socket PATH --log FILE)\n", line);
    exit(2);
}

static void *xcalloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) {
        fprintf(stderr, "switch: out of memory\n");
        exit(1);
    }
    return p;
}

static void log_flush(void) {
    fflush(logfile);
    fsync(fileno(logfile));
}

/* Every text written here is the switch's own: nothing a rank sent is ever copied into the log
 * except a job key, which the hello check restricts to [A-Za-z0-9._:-]. */
static void log_error(int job, const char *fmt, ...) {
    static unsigned logged;
    if (logged > ERRORS_MAX) return;
    if (logged++ == ERRORS_MAX) {
        fprintf(logfile, "error -1 more than %d errors: the rest are not logged\n", ERRORS_MAX);
        fflush(logfile);
        return;
    }
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(logfile, "error %d %s\n", job, line);
    fflush(logfile); /* fsync'ed with the next job's lines: a rank can cause many of these */
}

static void write_job(job_t *j, bool complete) {
    uint32_t n = j->size;
    fprintf(logfile, "job %d key %s size %u %s\n", j->index, j->key, n, complete ? "complete" : "incomplete");
    for (uint32_t r = 0; r < n; r++)
        for (uint32_t p = 0; p < n; p++) {
            if (p == r) continue;
            count_t s = j->p2p_sent[r * n + p], v = j->p2p_recv[r * n + p];
            fprintf(logfile, "peer %d %u %u msgs_sent %llu bytes_sent %llu msgs_recv %llu bytes_recv %llu\n", j->index,
                    r, p, (unsigned long long)s.msgs, (unsigned long long)s.bytes, (unsigned long long)v.msgs,
                    (unsigned long long)v.bytes);
        }
    for (uint32_t r = 0; r < n; r++)
        fprintf(logfile, "lib %d %u calls %llu bytes_sent %llu bytes_recv %llu\n", j->index, r,
                (unsigned long long)j->lib_calls[r], (unsigned long long)j->lib_sent[r],
                (unsigned long long)j->lib_recv[r]);
    log_flush();
}

static void free_item(job_t *j, item_t *it) {
    j->queued -= it->hdr.bytes;
    all_queued -= it->hdr.bytes;
    free(it->data);
    free(it);
}

static void free_queue(job_t *j, queue_t *q) {
    while (q->head) {
        item_t *it = q->head;
        q->head = it->next;
        free_item(j, it);
    }
    q->tail = NULL;
}

static void push(queue_t *q, item_t *it) {
    it->next = NULL;
    if (q->tail)
        q->tail->next = it;
    else
        q->head = it;
    q->tail = it;
}

static job_t *new_job(const char *key, uint32_t size) {
    job_t *j = xcalloc(1, sizeof *j);
    j->index = njobs++;
    snprintf(j->key, sizeof j->key, "%s", key);
    j->size = size;
    j->conn = xcalloc(size, sizeof *j->conn);
    j->hello = xcalloc(size, sizeof *j->hello);
    j->left = xcalloc(size, sizeof *j->left);
    j->out = xcalloc(size, sizeof *j->out);
    j->p2p_sent = xcalloc((size_t)size * size, sizeof *j->p2p_sent);
    j->p2p_recv = xcalloc((size_t)size * size, sizeof *j->p2p_recv);
    j->lib_calls = xcalloc(size, sizeof *j->lib_calls);
    j->lib_sent = xcalloc(size, sizeof *j->lib_sent);
    j->lib_recv = xcalloc(size, sizeof *j->lib_recv);
    j->next = jobs;
    jobs = j;
    return j;
}

static void end_job(job_t *j, bool complete) {
    write_job(j, complete);
    for (uint32_t r = 0; r < j->size; r++) free_queue(j, &j->out[r]);
    j->ended = true;
    live_jobs--;
}

/* Forget an ended job's memory (its index stays taken). */
static void reap_jobs(void) {
    for (job_t **p = &jobs; *p;) {
        job_t *j = *p;
        if (!j->ended) {
            p = &j->next;
            continue;
        }
        *p = j->next;
        free(j->conn), free(j->hello), free(j->left), free(j->out), free(j->p2p_sent), free(j->p2p_recv);
        free(j->lib_calls), free(j->lib_sent), free(j->lib_recv);
        free(j);
    }
}

static void close_conn(conn_t *c);

/* A header-only notice to rank r of job j. */
static void notify(job_t *j, uint32_t r, uint32_t cls, uint32_t peer, uint32_t ctx) {
    item_t *it = xcalloc(1, sizeof *it);
    it->hdr = (sw_frame_t){peer, ctx, cls, 0, 0};
    push(&j->out[r], it);
}

/* The connection is gone (EOF, an error, or closed by the switch). */
static void close_conn(conn_t *c) {
    if (c->dead) return;
    c->dead = true;
    close(c->fd);
    if (c->body) {
        if (c->job) c->job->queued -= c->hdr.bytes, all_queued -= c->hdr.bytes;
        free(c->body);
        c->body = NULL;
    }
    job_t *j = c->job;
    if (!j) return;
    j->conn[c->rank] = NULL;
    j->left[c->rank] = true;
    free_queue(j, &j->out[c->rank]);
    if (!c->bye) {
        log_error(j->index, "rank %u disconnected without comm_finalize (it crashed, exited early or was refused)",
                  c->rank);
        for (uint32_t r = 0; r < j->size; r++)
            if (r != c->rank && !j->left[r]) notify(j, r, SW_CTL_GONE, c->rank, 0);
    }
    bool all = true;
    for (uint32_t r = 0; r < j->size; r++) all = all && j->hello[r] && j->left[r];
    if (all) end_job(j, true);
}

static void refuse(conn_t *c, const char *fmt, ...) {
    char line[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (c->job)
        log_error(c->job->index, "rank %u: %s; connection closed", c->rank, line);
    else
        log_error(-1, "%s; connection closed", line);
    close_conn(c);
}

static bool key_ok(const char *key, size_t n) {
    if (n == 0) return false;
    for (size_t i = 0; i < n; i++) {
        char ch = key[i];
        bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '.' ||
                  ch == '_' || ch == ':' || ch == '-';
        if (!ok) return false;
    }
    return true;
}

/* Room for a new job: the oldest job none of whose ranks is connected now (some rank died before
 * its hello, say) is written as incomplete and forgotten. */
static void evict_one(void) {
    job_t *oldest = NULL;
    for (job_t *p = jobs; p; p = p->next) {
        if (p->ended) continue;
        bool any = false;
        for (uint32_t r = 0; r < p->size && !any; r++) any = p->conn[r] != NULL;
        if (!any && (!oldest || p->index < oldest->index)) oldest = p;
    }
    if (!oldest) return;
    log_error(oldest->index, "no rank of the job connected and %d jobs under way: written as incomplete",
              LIVE_JOBS_MAX);
    end_job(oldest, false);
}

static void on_hello(conn_t *c) {
    sw_hello_t h;
    memcpy(&h, c->buf, sizeof h);
    if (h.magic != SW_MAGIC || h.version != SW_VERSION) {
        refuse(c, "not a version %u hello (magic 0x%08x version %u)", SW_VERSION, h.magic, h.version);
        return;
    }
    size_t klen = strnlen(h.key, SW_KEY_MAX);
    for (size_t i = klen; i < SW_KEY_MAX; i++)
        if (h.key[i]) {
            refuse(c, "a job key with bytes after its end");
            return;
        }
    if (!key_ok(h.key, klen)) {
        refuse(c, "a job key that is empty or not made of [A-Za-z0-9._:-]");
        return;
    }
    char key[SW_KEY_MAX + 1];
    memcpy(key, h.key, klen);
    key[klen] = 0;
    if (h.size < 1 || h.size > SW_MAX_SIZE) {
        refuse(c, "job %s: a world size of %u (1..%d allowed)", key, h.size, SW_MAX_SIZE);
        return;
    }
    if (h.rank >= h.size) {
        refuse(c, "job %s: rank %u, but the world size is %u", key, h.rank, h.size);
        return;
    }
    job_t *j = NULL;
    for (job_t *p = jobs; p && !j; p = p->next)
        if (!p->ended && !strcmp(p->key, key)) j = p;
    if (!j && live_jobs >= LIVE_JOBS_MAX) evict_one();
    if (!j && live_jobs >= LIVE_JOBS_MAX) {
        refuse(c, "job %s: already %d jobs under way (at most %d)", key, live_jobs, LIVE_JOBS_MAX);
        return;
    }
    if (!j && peer_lines + (uint64_t)h.size * (h.size - 1) > PEER_LINES_MAX) {
        refuse(c, "job %s: its log lines would pass the switch's bound of %u peer lines", key, PEER_LINES_MAX);
        return;
    }
    if (!j) {
        j = new_job(key, h.size);
        live_jobs++;
        peer_lines += (uint64_t)h.size * (h.size - 1);
    }
    if (h.size != j->size) {
        log_error(j->index, "rank %u says the world size is %u, but the job's is %u; connection closed", h.rank, h.size,
                  j->size);
        {
            close_conn(c);
            return;
        }
    }
    if (j->hello[h.rank]) {
        log_error(j->index, "a second hello for rank %u; connection closed", h.rank);
        {
            close_conn(c);
            return;
        }
    }
    j->hello[h.rank] = true;
    j->conn[h.rank] = c;
    c->job = j;
    c->rank = h.rank;
    c->state = ST_HDR;
    c->got = 0;
}

/* A complete frame from c: count it and queue it for its destination. */
static void on_frame(conn_t *c) {
    job_t *j = c->job;
    sw_frame_t h = c->hdr;
    char *body = c->body;
    c->body = NULL;
    c->state = ST_HDR;
    c->got = 0;
    if (h.cls == SW_CTL_LIBCALL) {
        j->lib_calls[c->rank]++;
        return;
    }
    if (h.cls == SW_CTL_BYE) {
        c->bye = true;
        return;
    }
    if (h.cls == SW_CTL_ABORT) {
        log_error(j->index, "rank %u aborted the job (exit status %u)", c->rank, h.ctx);
        for (uint32_t r = 0; r < j->size; r++)
            if (r != c->rank && !j->left[r]) notify(j, r, SW_CTL_ABORT, c->rank, h.ctx);
        c->bye = true; /* its disconnect is no news now: no CTL_GONE after it */
        return;
    }
    /* P2P, LIB or ACK: the header check let nothing else through */
    uint32_t n = j->size, dst = h.peer;
    if (h.cls == SW_P2P) {
        j->p2p_sent[c->rank * n + dst].msgs++;
        j->p2p_sent[c->rank * n + dst].bytes += h.bytes;
    } else if (h.cls == SW_LIB) {
        j->lib_sent[c->rank] += h.bytes;
    }
    if (j->left[dst]) { /* nobody will read it */
        j->queued -= h.bytes;
        all_queued -= h.bytes;
        free(body);
        return;
    }
    item_t *it = xcalloc(1, sizeof *it);
    it->hdr = (sw_frame_t){c->rank, h.ctx, h.cls, h.flags, h.bytes};
    it->data = body;
    push(&j->out[dst], it);
}

static void on_header(conn_t *c) {
    job_t *j = c->job;
    memcpy(&c->hdr, c->buf, sizeof c->hdr);
    sw_frame_t h = c->hdr;
    bool ctl = h.cls == SW_CTL_LIBCALL || h.cls == SW_CTL_BYE || h.cls == SW_CTL_ABORT;
    bool routed = h.cls == SW_P2P || h.cls == SW_LIB || h.cls == SW_CTL_ACK; /* has a destination */
    if (!routed && !ctl) {
        refuse(c, "a frame of unknown class %u", h.cls);
        return;
    }
    if (h.cls == SW_CTL_ABORT && (h.ctx == 0 || h.ctx > 255)) {
        refuse(c, "an abort with exit status %u (1..255 allowed)", h.ctx);
        return;
    }
    if (h.flags & ~(h.cls == SW_P2P ? SW_FLAG_SYNC : 0u)) {
        refuse(c, "a frame of class %u with flags 0x%x", h.cls, h.flags);
        return;
    }
    if ((ctl || h.cls == SW_CTL_ACK) && h.bytes) {
        refuse(c, "a control frame (class %u) with a payload", h.cls);
        return;
    }
    if (routed && h.peer >= j->size) {
        refuse(c, "a frame for rank %u, but the world size is %u", h.peer, j->size);
        return;
    }
    if (routed && h.peer == c->rank) {
        refuse(c, "a frame to itself");
        return;
    }
    if (h.bytes > JOB_QUEUE_MAX || j->queued + h.bytes > JOB_QUEUE_MAX || all_queued + h.bytes > ALL_QUEUE_MAX) {
        log_error(j->index,
                  "rank %u: a frame of %llu bytes would make the job hold more than %llu bytes in the switch (or "
                  "all jobs more than %llu); every connection of the job closed",
                  c->rank, (unsigned long long)h.bytes, (unsigned long long)JOB_QUEUE_MAX,
                  (unsigned long long)ALL_QUEUE_MAX);
        for (uint32_t r = 0; r < j->size; r++)
            if (j->conn[r]) {
                j->conn[r]->bye = true; /* no CTL_GONE: they are all closed now */
                close_conn(j->conn[r]);
            }
        return;
    }
    if (h.bytes == 0) {
        on_frame(c);
        return;
    }
    c->body = malloc(h.bytes);
    if (!c->body) {
        refuse(c, "no memory for a frame of %llu bytes", (unsigned long long)h.bytes);
        return;
    }
    j->queued += h.bytes;
    all_queued += h.bytes;
    c->state = ST_BODY;
    c->got = 0;
}

/* Read what c has, up to the round's budget. */
static void read_conn(conn_t *c) {
    size_t budget = READ_BUDGET;
    while (!c->dead && budget > 0) {
        char *dst;
        size_t want;
        if (c->state == ST_BODY) {
            dst = c->body + c->got;
            want = c->hdr.bytes - c->got;
        } else {
            size_t need = c->state == ST_HELLO ? sizeof(sw_hello_t) : sizeof(sw_frame_t);
            dst = (char *)c->buf + c->got;
            want = need - c->got;
        }
        if (want > budget) want = budget;
        ssize_t got = read(c->fd, dst, want);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        if (got <= 0) {
            if (c->state == ST_BODY)
                refuse(c, "connection closed inside a frame (%llu of its %llu payload bytes sent)",
                       (unsigned long long)c->got, (unsigned long long)c->hdr.bytes);
            else if (c->got > 0)
                refuse(c, "connection closed inside a %s (%zu bytes of it sent)",
                       c->state == ST_HELLO ? "hello" : "frame header", c->got);
            else if (c->state == ST_HELLO)
                refuse(c, "connection closed before its hello");
            else
                close_conn(c);
            return;
        }
        budget -= (size_t)got;
        c->got += (size_t)got;
        if (c->state == ST_BODY) {
            if (c->got == c->hdr.bytes) on_frame(c);
        } else if (c->state == ST_HELLO) {
            if (c->got == sizeof(sw_hello_t)) on_hello(c);
        } else if (c->got == sizeof(sw_frame_t)) {
            on_header(c);
        }
    }
}

/* Write what c's queue holds until the socket is full. */
static void write_conn(conn_t *c) {
    job_t *j = c->job;
    queue_t *q = &j->out[c->rank];
    while (!c->dead && q->head) {
        item_t *it = q->head;
        size_t hl = sizeof it->hdr, total = hl + it->hdr.bytes;
        struct iovec iov[2];
        int n = 0;
        if (it->off < hl) iov[n++] = (struct iovec){(char *)&it->hdr + it->off, hl - it->off};
        if (it->hdr.bytes) {
            size_t doff = it->off > hl ? it->off - hl : 0;
            iov[n++] = (struct iovec){it->data + doff, it->hdr.bytes - doff};
        }
        struct msghdr m = {.msg_iov = iov, .msg_iovlen = (size_t)n};
        ssize_t put = sendmsg(c->fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (put < 0 && errno == EINTR) continue;
        if (put < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        if (put < 0) { /* the rank is gone: its read side says so */
            close_conn(c);
            return;
        }
        it->off += (size_t)put;
        if (it->off < total) continue;
        if (it->hdr.cls == SW_P2P) {
            j->p2p_recv[c->rank * j->size + it->hdr.peer].msgs++;
            j->p2p_recv[c->rank * j->size + it->hdr.peer].bytes += it->hdr.bytes;
        } else if (it->hdr.cls == SW_LIB) {
            j->lib_recv[c->rank] += it->hdr.bytes;
        }
        q->head = it->next;
        if (!q->head) q->tail = NULL;
        free_item(j, it);
    }
}

static int listen_on(const char *path) {
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof a.sun_path)
        usage("--socket %s is longer than a socket path may be (%zu bytes)", path, sizeof a.sun_path - 1);
    memcpy(a.sun_path, path, strlen(path) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) usage("cannot create a socket: %s", strerror(errno));
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0)
        usage("cannot create the socket %s: %s (remove a stale one first)", path, strerror(errno));
    if (chmod(path, 0666) != 0 || listen(fd, 256) != 0) usage("cannot listen on %s: %s", path, strerror(errno));
    return fd;
}

static void accept_all(int lfd) {
    for (;;) {
        int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EMFILE || errno == ENFILE) { /* a pause, not a busy loop on the listening socket */
                log_error(-1, "cannot accept a connection: out of descriptors");
                listen_paused = now() + 0.1;
            }
            return;
        }
        int sz = SOCKET_BUF_SIZE;
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof sz);
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof sz);
        conn_t *c = xcalloc(1, sizeof *c);
        c->fd = fd;
        c->state = ST_HELLO;
        conn_t **end = &conns; /* in the order they came: hellos read together are taken in that order */
        while (*end) end = &(*end)->next;
        *end = c;
    }
}

static void reap_conns(void) {
    for (conn_t **p = &conns; *p;) {
        conn_t *c = *p;
        if (!c->dead) {
            p = &c->next;
            continue;
        }
        *p = c->next;
        free(c);
    }
}

int main(int argc, char **argv) {
    const char *sock = NULL, *logpath = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--socket") && i + 1 < argc)
            sock = argv[++i];
        else if (!strcmp(argv[i], "--log") && i + 1 < argc)
            logpath = argv[++i];
        else
            usage("unknown or incomplete argument '%s'", argv[i]);
    }
    if (!sock || !logpath) usage("both --socket and --log are needed");
    /* A grader killed outright (SIGKILL: no trap runs) must not leave its switch behind: the
     * kernel stops it with its parent. The parent may already be gone by now (then we are init's). */
    pid_t parent = getppid();
    if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != parent) return 1;
    int lfd_log = open(logpath, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (lfd_log < 0 || !(logfile = fdopen(lfd_log, "a"))) usage("cannot open the log %s: %s", logpath, strerror(errno));
    int lfd = listen_on(sock);

    sigset_t block, during;
    sigemptyset(&block);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGINT);
    sigprocmask(SIG_BLOCK, &block, &during);
    sigdelset(&during, SIGTERM);
    sigdelset(&during, SIGINT);
    struct sigaction sa = {.sa_handler = on_stop};
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    struct pollfd *pfd = NULL;
    conn_t **who = NULL;
    size_t cap = 0;
    while (!stop_signal) {
        size_t n = 1;
        for (conn_t *c = conns; c; c = c->next) n++;
        if (n > cap) {
            cap = 2 * n;
            pfd = realloc(pfd, cap * sizeof *pfd);
            who = realloc(who, cap * sizeof *who);
            if (!pfd || !who) {
                fprintf(stderr, "switch: out of memory\n");
                return 1;
            }
        }
        bool paused = now() < listen_paused;
        pfd[0] = (struct pollfd){paused ? -1 : lfd, POLLIN, 0};
        n = 1;
        for (conn_t *c = conns; c; c = c->next) {
            short ev = POLLIN;
            if (c->job && c->job->out[c->rank].head) ev |= POLLOUT;
            pfd[n] = (struct pollfd){c->fd, ev, 0};
            who[n++] = c;
        }
        struct timespec pause = {0, 100 * 1000 * 1000};
        int r = ppoll(pfd, n, paused ? &pause : NULL, &during);
        if (r < 0) continue; /* EINTR: a stop signal, seen by the loop's test */
        if (pfd[0].revents & POLLIN) accept_all(lfd);
        for (size_t i = 1; i < n; i++) {
            conn_t *c = who[i];
            if (c->dead) continue;
            if (pfd[i].revents & (POLLIN | POLLHUP | POLLERR)) read_conn(c);
            if (!c->dead && c->job) write_conn(c);
        }
        /* frames queued this round for ranks whose sockets had room */
        for (conn_t *c = conns; c; c = c->next)
            if (!c->dead && c->job && c->job->out[c->rank].head) write_conn(c);
        reap_conns();
        reap_jobs();
    }
    for (job_t *j = jobs; j; j = j->next)
        if (!j->ended) end_job(j, false);
    for (conn_t *c = conns; c; c = c->next) { /* everything freed: a leak checker sees real leaks only */
        if (!c->dead) close(c->fd);
        free(c->body);
        c->dead = true;
    }
    reap_conns();
    reap_jobs();
    free(pfd);
    free(who);
    unlink(sock);
    fclose(logfile);
    return 0;
}
