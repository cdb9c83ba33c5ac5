/* topo_probe — the emulated two-level cluster and the split communicators, for tests/sh/topology.sh.
 * Run under --topology MxK (and --placement, --intra, --inter, --nic as wanted):
 *
 *   topo_probe ring    split the world by node and by local rank; on each split, a ring exchange of
 *                      (base + world rank) floats per rank and a library all-reduce. Prints per rank
 *                        layout R node N nodecomm I/S [w w ...] localcomm I/S [w w ...]
 *                        class R node intra B inter B local intra B inter B   (bytes sent, by class)
 *                        peer R P msgs_sent .. bytes_sent .. msgs_recv .. bytes_recv ..  (world ranks)
 *                        lib R calls N
 *                        time R CLASS model MS wall MS   (one message, with the emulator on)
 *                      and ends with one line if what it received is wrong.
 *   topo_probe freed   rank 0 splits a communicator it has freed (the others a live one)
 *   topo_probe color   the last rank splits with color -1
 *
 * Options: the comm seam's, and --base N (elements; default 1000). */
#include "peer_counters.h"
#include "cli.h"
#include "comm.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void layout(const char *what, comm_t *s, char *out, size_t n) {
    int len = snprintf(out, n, "%s %d/%d [", what, comm_rank(s), comm_world_size(s));
    for (int i = 0; i < comm_world_size(s) && len < (int)n; i++)
        len += snprintf(out + len, n - (size_t)len, "%s%d", i ? " " : "", comm_world_rank(s, i));
    if (len < (int)n) snprintf(out + len, n - (size_t)len, "]");
}

/* A ring on s: every rank sends (base + its world rank) floats to the next and checks what the
 * previous sent. Returns what it sent, by class, as counted on s. */
static comm_counters_t ring(comm_t *s, int base) {
    comm_counters_t before = comm_counters(s);
    int r = comm_rank(s), n = comm_world_size(s);
    if (n < 2) return comm_counters_diff(comm_counters(s), before);
    int right = (r + 1) % n, left = (r - 1 + n) % n, w = comm_world_rank(s, r), wl = comm_world_rank(s, left);
    size_t count = (size_t)(base + w), rcount = (size_t)(base + wl);
    float *a = dp_malloc(count * sizeof *a), *b = dp_malloc(rcount * sizeof *b);
    for (size_t i = 0; i < count; i++) a[i] = (float)w;
    comm_sendrecv(s, a, count, right, b, rcount, left, DT_F32);
    for (size_t i = 0; i < rcount; i++)
        if (b[i] != (float)wl)
            dp_fatal("rank %d: on '%s', element %zu from world rank %d is %g", w, "split", i, wl, b[i]);
    free(a);
    free(b);
    return comm_counters_diff(comm_counters(s), before);
}

/* One message of `bytes` from rank 0 to rank 1 of s, timed on rank 0 against the emulator's model. */
static void timed(comm_t *s, const char *what, size_t bytes) {
    if (comm_world_size(s) < 2) return;
    int r = comm_rank(s);
    char *buf = dp_calloc(bytes, 1);
    comm_barrier(s);
    double t0 = dp_now();
    if (r == 0) comm_send(s, buf, bytes, DT_U8, 1);
    if (r == 1) comm_recv(s, buf, bytes, DT_U8, 0);
    double wall = dp_now() - t0;
    if (r == 0) {
        double model = link_cost_s(comm_class_link(s, comm_peer_class(s, 1)), bytes);
        printf("time %d %s model %.3f wall %.3f\n", comm_world_rank(s, 0), what, model * 1e3, wall * 1e3);
    }
    free(buf);
}

int main(int argc, char **argv) {
    comm_opts_t o;
    comm_opts_default(&o);
    const char *pos[1] = {"ring"};
    int npos = 0, base = 1000, timed_bytes = 0;
    const cli_opt_t own[] = {
        {"base", CLI_INT, &base, "elements every rank sends, plus its world rank", .min = 1, .max = 1 << 24},
        {"timed-bytes", CLI_INT, &timed_bytes, "time one message of this many bytes per split (0: none)", .min = 0,
         .max = 1 << 26},
        CLI_END,
    };
    cli_opt_t *copts = comm_cli_opts(&o), *opts = cli_join(own, copts);
    cli_parse_positional(argc, argv, opts, "topo_probe ring|freed|color [options]", pos, 1, &npos);
    free(copts);
    free(opts);
    comm_t *c = comm_init(&argc, &argv, &o);
    int r = comm_rank(c), n = comm_world_size(c);
    const char *mode = pos[0];
    if (!strcmp(mode, "freed")) {
        comm_t *d = comm_dup(c, "doomed", false);
        if (r == 0) comm_free(d);
        comm_split_node(d);
    } else if (!strcmp(mode, "color")) {
        comm_split(c, r == n - 1 ? -1 : 0, r, "colors");
    } else if (!strcmp(mode, "ring")) {
        comm_t *node = comm_split_node(c), *local = comm_split_local(c);
        char a[256], b[256];
        layout("nodecomm", node, a, sizeof a);
        layout("localcomm", local, b, sizeof b);
        printf("layout %d node %d %s %s\n", r, comm_node_of(c, r), a, b);
        comm_counters_t kn = ring(node, base), kl = ring(local, base);
        printf("class %d node intra %llu inter %llu local intra %llu inter %llu\n", r,
               (unsigned long long)kn.bytes_intra, (unsigned long long)kn.bytes_inter,
               (unsigned long long)kl.bytes_intra, (unsigned long long)kl.bytes_inter);
        /* the counters' own sums: every byte sent is in one class */
        if (kn.bytes_intra + kn.bytes_inter != kn.bytes_sent || kl.bytes_intra + kl.bytes_inter != kl.bytes_sent ||
            kn.msgs_intra + kn.msgs_inter != kn.msgs_sent || kl.msgs_intra + kl.msgs_inter != kl.msgs_sent)
            dp_fatal("rank %d: the per-class counters do not add up to the messages sent", r);
        /* a library all-reduce on each split: the sum of its world ranks */
        for (int k = 0; k < 2; k++) {
            comm_t *s = k ? local : node;
            double mine = r, sum = 0, want = 0;
            comm_lib_allreduce(s, &mine, &sum, 1, DT_F64, REDOP_SUM);
            for (int i = 0; i < comm_world_size(s); i++) want += comm_world_rank(s, i);
            if (sum != want)
                dp_fatal("rank %d: all-reduce on the %s split gave %g, want %g", r, k ? "local" : "node", sum, want);
        }
        if (timed_bytes) {
            timed(node, "intra", (size_t)timed_bytes);
            timed(local, "inter", (size_t)timed_bytes);
        }
        comm_free(local);
        comm_free(node);
        print_peer_counters(c);
    } else {
        cli_usage_error("unknown mode '%s' (ring, freed or color)", mode);
    }
    comm_finalize(c);
    return 0;
}
