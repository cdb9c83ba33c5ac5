/* switch_probe — traffic of a known shape through the message switch, for tests/sh/comm_switch.sh.
 *
 *   switch_probe pattern     a ring: every rank sends N-1 messages to the next one (the first of
 *                            4 MiB, the others (rank+1) x 1000 floats); on a dup with counters of
 *                            its own, 3 messages of 10 ints to the previous rank; 2 library
 *                            all-reduces of 1000 floats (checked). Prints what the seam counted,
 *                            in the switch log's format without the job number:
 *                              peer R P msgs_sent A bytes_sent B msgs_recv C bytes_recv D
 *                              lib R calls A
 *   switch_probe early-exit  the last rank returns from main without comm_finalize while the
 *                            others wait for a message from it
 *   switch_probe wait        every rank waits for a message from the next, which never comes
 *                            (for a switch that goes away under it)
 *   switch_probe pingpong    ranks 0 and 1: round trips of 8 B and 4 MiB; prints "pingpong BYTES US"
 *                            (microseconds per round trip)
 *   switch_probe forge       raw frames on the switch's socket (DPC_SWITCH), as a hostile rank would
 *                            send them: a second hello for rank 0, a frame to rank 99, a frame to
 *                            itself, a frame cut short, a world size that disagrees, a frame of
 *                            3 GiB, a world of 257 ranks, a 65th job under way; each connection must
 *                            be refused */
#define _GNU_SOURCE
#include "peer_counters.h"
#include "cli.h"
#include "comm.h"
#include "switch_wire.h"
#include "util.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static void pattern(comm_t *c) {
    int r = comm_rank(c), n = comm_world_size(c);
    size_t big = 1u << 20, small = (size_t)(r + 1) * 1000, maxc = big;
    float *s = dp_calloc(maxc, sizeof(float)), *v = dp_calloc(maxc, sizeof(float));
    for (int i = 0; i < n - 1; i++) {
        size_t mine = i == 0 ? big : small, theirs = i == 0 ? big : (size_t)((r - 1 + n) % n + 1) * 1000;
        comm_sendrecv(c, s, mine, (r + 1) % n, v, theirs, (r - 1 + n) % n, DT_F32);
    }
    comm_t *d = comm_dup(c, "probe-dup", false);
    int32_t ints[10] = {0};
    for (int i = 0; i < 3; i++) comm_sendrecv(d, ints, 10, (r - 1 + n) % n, ints, 10, (r + 1) % n, DT_I32);
    for (int k = 0; k < 2; k++) {
        for (int i = 0; i < 1000; i++) s[i] = (float)(r + 1) * (float)(i + k);
        comm_lib_allreduce(c, s, v, 1000, DT_F32, REDOP_SUM);
        for (int i = 0; i < 1000; i++)
            if (v[i] != (float)(n * (n + 1) / 2) * (float)(i + k))
                dp_fatal("rank %d: all-reduce element %d is %g, want %g", r, i, v[i], (n * (n + 1) / 2.0) * (i + k));
    }
    comm_free(d);
    print_peer_counters(c);
    free(s);
    free(v);
}

static void pingpong(comm_t *c) {
    int r = comm_rank(c);
    size_t sizes[2] = {8, 4u << 20};
    char *buf = dp_calloc(sizes[1], 1);
    for (int k = 0; k < 2; k++) {
        int reps = k == 0 ? 2000 : 50;
        double t0 = 0;
        for (int i = -reps / 10; i < reps; i++) { /* a tenth of warm-up */
            if (i == 0) t0 = dp_now();
            if (r == 0) {
                comm_send(c, buf, sizes[k], DT_U8, 1);
                comm_recv(c, buf, sizes[k], DT_U8, 1);
            } else if (r == 1) {
                comm_recv(c, buf, sizes[k], DT_U8, 0);
                comm_send(c, buf, sizes[k], DT_U8, 0);
            }
        }
        if (r == 0) printf("pingpong %zu %.1f\n", sizes[k], (dp_now() - t0) / reps * 1e6);
    }
    free(buf);
}

/* One raw connection: a hello as rank `rank` of a job of `size`, then `extra` bytes. */
static int raw(const char *key, uint32_t size, uint32_t rank, const void *extra, size_t n) {
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", getenv("DPC_SWITCH"));
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0) dp_fatal("cannot reach the switch");
    sw_hello_t h = {SW_MAGIC, SW_VERSION, size, rank, {0}};
    snprintf(h.key, sizeof h.key, "%s", key);
    if (write(fd, &h, sizeof h) != (ssize_t)sizeof h || (n && write(fd, extra, n) != (ssize_t)n))
        dp_fatal("cannot write to the switch");
    return fd;
}

/* Wait until the switch has closed fd (what it does to a connection it refuses). */
static bool closed_by_switch(int fd) {
    struct timeval tv = {5, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    char b[64];
    ssize_t got;
    while ((got = read(fd, b, sizeof b)) > 0) {
    }
    return got == 0 || (got < 0 && errno == ECONNRESET);
}

static void forge(void) {
    /* two hellos for rank 0 of job "forge": the switch may read either first; the other must go */
    int first = raw("forge", 2, 0, NULL, 0), second = raw("forge", 2, 0, NULL, 0);
    struct pollfd p[2] = {{first, POLLIN, 0}, {second, POLLIN, 0}};
    bool one = poll(p, 2, 5000) > 0;
    int keep = p[0].revents ? second : first, gone = p[0].revents ? first : second;
    printf("second-hello %s\n", one && closed_by_switch(gone) ? "refused" : "accepted");
    sw_frame_t far = {99, 0, SW_P2P, 0, 4};
    int fd = raw("forge-b", 2, 0, &far, sizeof far);
    printf("dst-out-of-range %s\n", closed_by_switch(fd) ? "refused" : "accepted");
    sw_frame_t self = {1, 0, SW_P2P, 0, 4};
    fd = raw("forge-c", 2, 1, &self, sizeof self);
    printf("to-itself %s\n", closed_by_switch(fd) ? "refused" : "accepted");
    sw_frame_t cut = {1, 0, SW_P2P, 0, 100};
    fd = raw("forge-d", 2, 0, &cut, sizeof cut);
    if (write(fd, "0123456789", 10) != 10) dp_fatal("cannot write to the switch");
    shutdown(fd, SHUT_WR);
    printf("cut-short %s\n", closed_by_switch(fd) ? "refused" : "accepted");
    sw_frame_t size = {0, 0, SW_P2P, 0, 0};
    fd = raw("forge", 3, 1, &size, 0); /* job "forge" has size 2 */
    printf("size-disagrees %s\n", closed_by_switch(fd) ? "refused" : "accepted");
    sw_frame_t huge = {1, 0, SW_P2P, 0, 3ull << 30}; /* 3 GiB announced: refused before any is read */
    fd = raw("forge-e", 2, 0, &huge, sizeof huge);
    printf("too-big %s\n", closed_by_switch(fd) ? "refused" : "accepted");
    fd = raw("forge-f", SW_MAX_SIZE + 1, 0, NULL, 0);
    printf("world-too-large %s\n", closed_by_switch(fd) ? "refused" : "accepted");
    /* made-up jobs: 64 under way (job "forge" and 63 more), the 65th refused */
    int made[63];
    for (int i = 0; i < 63; i++) {
        char key[32];
        snprintf(key, sizeof key, "made-up-%d", i);
        made[i] = raw(key, 2, 0, NULL, 0);
    }
    fd = raw("one-too-many", 2, 0, NULL, 0);
    printf("too-many-jobs %s\n", closed_by_switch(fd) ? "refused" : "accepted");
    for (int i = 0; i < 63; i++) close(made[i]);
    close(keep);
}

int main(int argc, char **argv) {
    comm_opts_t o;
    comm_opts_default(&o);
    const char *pos[1] = {"pattern"};
    int npos = 0;
    cli_opt_t *opts = comm_cli_opts(&o);
    cli_parse_positional(argc, argv, opts, "switch_probe MODE [options]", pos, 1, &npos);
    free(opts);
    const char *mode = pos[0];
    if (!strcmp(mode, "forge")) {
        forge();
        return 0;
    }
    comm_t *c = comm_init(&argc, &argv, &o);
    int r = comm_rank(c), n = comm_world_size(c);
    if (!strcmp(mode, "pattern")) {
        pattern(c);
    } else if (!strcmp(mode, "early-exit")) {
        int x = 0;
        if (r == n - 1) return 0; /* no comm_finalize: the switch sees it die */
        comm_recv(c, &x, 1, DT_I32, n - 1);
    } else if (!strcmp(mode, "wait")) {
        int x = 0;
        printf("rank %d waits\n", r);
        fflush(stdout);
        comm_recv(c, &x, 1, DT_I32, (r + 1) % n);
    } else if (!strcmp(mode, "pingpong")) {
        pingpong(c);
    } else {
        dp_fatal("unknown mode '%s' (pattern, early-exit, wait, pingpong, forge)", mode);
    }
    comm_finalize(c);
    return 0;
}
