/* check11 — the grader's checks of lesson 11 (linked with the submission's hier.c).
 *
 *   mpirun -np M*K check11 sweep-MxK-PLACEMENT   hier_allreduce under --topology MxK --placement
 *                                                PLACEMENT (block or spread): lengths 0, 1, K-1, K,
 *                                                K+1, N-1, N, N+1, 1009 and 65537, SUM then AVG, every
 *                                                result bit for bit against the grader's own reference
 *                                                adding in the algorithm's order; each call's traffic
 *                                                with each peer; the elements each rank scaled; and,
 *                                                in the judge, the run's bytes per link class and per
 *                                                peer as the grader's switch carried them
 *   mpirun -np 8 check11 timing                  one call on 2^20 floats under --topology 2x4, nvlink
 *                                                inside, ib-hdr across: the time the alpha-beta model
 *                                                gives the messages the switch carried, scaled to
 *                                                64 MiB, against the flat ring's, by the lesson's ratio
 *
 * Everything the grader compares with is its own: where a rank sits (node, local index, the two
 * rings' neighbours) is computed here from MxK and the placement, not asked of the comm seam, and
 * the reference result is computed here element by element in the order the algorithm adds. */
#include "checklib.h"
#include "hier.h"
#include "link.h"
#include "switchlog.h"
#include "util.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- where ranks sit: the grader's own topology ------------------------------------------------ */

static int M = 1, K = 1, spread = 0; /* from the check's name: sweep-MxK-block|spread */

static int node_of(int w) { return spread ? w % M : w / K; }
static int local_of(int w) { return spread ? w / M : w % K; }
static int world_of(int node, int local) { return spread ? local * M + node : node * K + local; }
static int mod(int a, int n) { return ((a % n) + n) % n; }

/* Chunk i of a count-element buffer over n (lesson 04's split, by the grader's own formula). */
static void chunk(size_t count, int n, int i, size_t *off, size_t *len) {
    size_t base = count / (size_t)n, extra = count % (size_t)n, u = (size_t)i;
    *len = base + (u < extra ? 1 : 0);
    *off = u < extra ? u * (base + 1) : extra * (base + 1) + (u - extra) * base;
}
static size_t clen(size_t count, int n, int i) {
    size_t off, len;
    chunk(count, n, i, &off, &len);
    return len;
}

/* ---- the traffic the algorithm must have ------------------------------------------------------- */

typedef struct {
    uint64_t msgs_sent, msgs_recv, bytes_sent, bytes_recv;
    uint64_t empty_sent, empty_recv; /* of those messages, the empty ones (an algorithm may skip them) */
} want_t;

/* One half of lesson 04's ring over n members (world ranks member(i)), this rank member `me`, on
 * `count` floats: rs = reduce-scatter (step s sends chunk me-1-s, receives me-2-s), else all-gather
 * (sends me-s, receives me-1-s). Adds to want[world peer]. */
static void ring_half(want_t *want, int n, int me, const int *member, size_t count, int rs) {
    if (n == 1) return;
    want_t *right = &want[member[(me + 1) % n]], *left = &want[member[mod(me - 1, n)]];
    for (int s = 0; s < n - 1; s++) {
        size_t out = clen(count, n, mod(me - (rs ? 1 : 0) - s, n)), in = clen(count, n, mod(me - (rs ? 2 : 1) - s, n));
        right->msgs_sent++, right->bytes_sent += 4 * out, right->empty_sent += out == 0;
        left->msgs_recv++, left->bytes_recv += 4 * in, left->empty_recv += in == 0;
    }
}

/* The usual ways to get the algorithm wrong, by the traffic they make: a call whose traffic is
 * exactly one of these is explained by its hint. V_RIGHT is the algorithm. */
enum { V_RIGHT, V_WHOLE, V_ACROSS_FIRST, V_NO_INTRA_AG, V_NO_INTER_AG, V_WRONG_COMM, V_N };
static const char *const variant_hint[V_N] = {
    "",
    "this is the traffic of the step across the nodes run on the WHOLE buffer: K times the bytes across that "
    "the algorithm needs — across the nodes a rank all-reduces only its shard, chunk_range(count, K, l)",
    "this is the traffic of reducing across the nodes first (on the whole buffer, h->inter) and inside the node "
    "second: the same sum, with 2(M-1)/M of the whole buffer on the slow links instead of 1/K of it — inside first",
    "this is the traffic of the algorithm without its last step: the all-gather inside the node (h->intra) is "
    "missing",
    "this is the traffic of the algorithm without the all-gather across the nodes (h->inter, over the shard)",
    "this is the traffic of the step across the nodes ran on h->intra (the node's ring again) instead of h->inter "
    "(the ranks of the same local index on the other nodes)",
};

/* World rank w's traffic with every world peer for one call on count floats, as variant v sends. */
static void variant_want(int w, size_t count, int v, want_t *want) {
    int n = node_of(w), l = local_of(w), intra[4096], inter[4096];
    for (int i = 0; i < K; i++) intra[i] = world_of(n, i);
    for (int i = 0; i < M; i++) inter[i] = world_of(i, l);
    size_t shard = clen(count, K, l);
    if (v == V_ACROSS_FIRST) { /* the nodes' ring on the buffer, then the node's on this rank's piece */
        size_t piece = clen(count, M, n);
        ring_half(want, M, n, inter, count, 1);
        ring_half(want, K, l, intra, piece, 1);
        ring_half(want, K, l, intra, piece, 0);
        ring_half(want, M, n, inter, count, 0);
        return;
    }
    size_t across = v == V_WHOLE ? count : shard;
    ring_half(want, K, l, intra, count, 1);
    if (v == V_WRONG_COMM) {
        ring_half(want, K, l, intra, shard, 1);
        ring_half(want, K, l, intra, shard, 0);
    } else {
        ring_half(want, M, n, inter, across, 1);
        if (v != V_NO_INTER_AG) ring_half(want, M, n, inter, across, 0);
    }
    if (v != V_NO_INTRA_AG) ring_half(want, K, l, intra, count, 0);
}

static void hier_want(int w, size_t count, want_t *want) { variant_want(w, count, V_RIGHT, want); }

/* The variant whose bytes with every peer are exactly `got`'s (not the algorithm's), or -1. */
static int which_variant(int w, size_t count, const comm_peer_counters_t *got) {
    int N = M * K;
    want_t *x = dp_calloc((size_t)N, sizeof *x);
    int found = -1;
    for (int v = 1; v < V_N && found < 0; v++) {
        memset(x, 0, (size_t)N * sizeof *x);
        variant_want(w, count, v, x);
        int same = 1;
        for (int p = 0; p < N; p++)
            same &= got[p].bytes_sent == x[p].bytes_sent && got[p].bytes_recv == x[p].bytes_recv &&
                    got[p].msgs_sent == x[p].msgs_sent && got[p].msgs_recv == x[p].msgs_recv;
        if (same) found = v;
    }
    free(x);
    return found;
}

/* The flat ring's (lesson 04) on the world, for the timing check. */
static void flat_want(int w, size_t count, want_t *want) {
    int N = M * K, member[4096];
    for (int i = 0; i < N; i++) member[i] = i;
    ring_half(want, N, w, member, count, 1);
    ring_half(want, N, w, member, count, 0);
}

static const char *klass(int a, int b) { return node_of(a) == node_of(b) ? "intra-node" : "inter-node"; }

/* Who w may talk to, and what it is to w: for the hints. */
static const char *peer_role(int w, int p) {
    if (node_of(p) == node_of(w))
        return local_of(p) == mod(local_of(w) + 1, K) || local_of(p) == mod(local_of(w) - 1, K)
                   ? "its neighbour in its node's ring"
                   : "a rank of its own node that is not its neighbour in the node's ring";
    if (local_of(p) == local_of(w))
        return node_of(p) == mod(node_of(w) + 1, M) || node_of(p) == mod(node_of(w) - 1, M)
                   ? "its neighbour in the ring across the nodes"
                   : "a rank of its local index on a node that is not its neighbour across the nodes";
    return "a rank of another node with another local index: no step of the algorithm pairs them";
}

static const char traffic_hint[] =
    "inside a node a rank talks only to its node ring's neighbours (h->intra: local rank l +- 1 mod K), across "
    "the nodes only to the ranks of its own local index on the next and the previous node (h->inter: m +- 1 mod M); "
    "the bytes across are the 2(M-1)/M of ITS SHARD (count/K floats), not of the buffer";

/* Explain a traffic difference with one peer, from what it looks like. */
static void traffic_explain(int w, int p, size_t count, uint64_t got_sent, uint64_t want_sent) {
    const char *role = peer_role(w, p);
    if (!strncmp(role, "a rank of another", 17) || !strncmp(role, "a rank of its", 13))
        printf("  hint: rank %d is %s (%s link) — %s\n", p, role, klass(w, p), traffic_hint);
    else if (node_of(p) != node_of(w) && want_sent > 0 && got_sent > want_sent &&
             got_sent >= want_sent * (uint64_t)K - 8 * (uint64_t)M && K > 1)
        printf("  hint: %.2f times the shard's bytes went across the nodes: the step across the nodes ran on the "
               "whole buffer, not on this rank's shard (chunk_range(count, K, l): %zu of %zu floats)\n",
               (double)got_sent / (double)want_sent, clen(count, K, local_of(w)), count);
    else
        printf("  hint: %s\n", traffic_hint);
}

/* ---- the reference: the same additions in the same order ---------------------------------------- */

static float value(int w, size_t i) {
    uint64_t h = (uint64_t)(w + 1) * 0x9E3779B97F4A7C15ull ^ (uint64_t)(i + 7) * 0xC2B2AE3D27D4EB4Full;
    h ^= h >> 29;
    return (float)(int)(h % 200003) / 8191.0f - 12.2f; /* rounds when added: the order shows */
}

/* Element i of the result: the node's ring adds chunk q's addends from local rank q+1 around to q;
 * then the nodes' ring adds the nodes' partial sums of piece j from node j+1 around to j. */
static float reference(size_t count, size_t i, redop_t op) {
    size_t base = count / (size_t)K, extra = count % (size_t)K;
    int q = i < extra * (base + 1) ? (int)(i / (base + 1)) : (int)(extra + (i - extra * (base + 1)) / base);
    size_t qo, ql;
    chunk(count, K, q, &qo, &ql);
    size_t p = i - qo, pb = ql / (size_t)M, pe = ql % (size_t)M;
    int j = p < pe * (pb + 1) ? (int)(p / (pb + 1)) : (int)(pe + (p - pe * (pb + 1)) / pb);
    float total = 0;
    for (int a = 1; a <= M; a++) {
        int node = mod(j + a, M);
        float part = value(world_of(node, mod(q + 1, K)), i);
        for (int b = 2; b <= K; b++) part = part + value(world_of(node, mod(q + b, K)), i);
        total = a == 1 ? part : total + part;
    }
    return op == REDOP_AVG ? total * (1.0f / (float)(M * K)) : total;
}

static double exact(int N, size_t i) {
    double s = 0;
    for (int w = 0; w < N; w++) s += value(w, i);
    return s;
}

static int ulps_ok(float got, float want, redop_t op) {
    /* SUM: bit for bit. AVG: within 1 ULP (x/N and x*(1/N) may round differently). */
    return op == REDOP_SUM ? !memcmp(&got, &want, 4) : cmp_ulp_distance(got, want) <= 1;
}

/* Explain a wrong result on world rank w by the usual mistakes. */
static void diagnose(int w, size_t count, redop_t op, const float *got, const float *want, size_t first,
                     int traffic_bad) {
    int N = M * K;
    printf("FAIL: hier_allreduce, %dx%d %s, count=%zu, %s: rank %d (node %d, local rank %d) element %zu is %.9g, "
           "expected %.9g\n",
           M, K, spread ? "spread" : "block", count, op == REDOP_SUM ? "sum" : "average", w, node_of(w), local_of(w),
           first, (double)got[first], (double)want[first]);
    int own = 1, close = 1, times_n = 1, over_n = 1, times_k = K > 1 && M > 1, times_m = K > 1 && M > 1;
    for (size_t i = 0; i < count; i++) {
        double e = exact(N, i) / (op == REDOP_AVG ? N : 1), tol = 1e-4 * (fabs(e) + 1);
        own &= got[i] == value(w, i);
        close &= fabs(got[i] - e) <= tol;
        times_n &= fabs(got[i] - e * N) <= 1e-4 * (fabs(e * N) + 1);
        over_n &= fabs(got[i] - e / N) <= 1e-4 * (fabs(e / N) + 1);
        times_k &= fabs(got[i] - e * K) <= 1e-4 * (fabs(e * K) + 1);
        times_m &= fabs(got[i] - e * M) <= 1e-4 * (fabs(e * M) + 1);
    }
    /* per node shard and, inside this rank's shard, per piece: which are right */
    int shard_ok[4096], piece_ok[4096], piece_sum[4096], nshard_ok = 0, npiece_ok = 0;
    size_t so, sl;
    chunk(count, K, local_of(w), &so, &sl);
    for (int q = 0; q < K; q++) {
        size_t o, l;
        chunk(count, K, q, &o, &l);
        shard_ok[q] = l > 0;
        for (size_t i = o; i < o + l; i++) shard_ok[q] &= ulps_ok(got[i], want[i], op);
        nshard_ok += shard_ok[q];
    }
    for (int j = 0; j < M; j++) {
        size_t o, l;
        chunk(sl, M, j, &o, &l);
        piece_ok[j] = piece_sum[j] = l > 0;
        for (size_t i = so + o; i < so + o + l; i++) {
            piece_ok[j] &= ulps_ok(got[i], want[i], op);
            piece_sum[j] &= fabs(got[i] - want[i] * N) <= 1e-5 * (fabs(want[i] * N) + 1e-6);
        }
        npiece_ok += piece_ok[j];
    }
    int unscaled = -1;
    for (int j = 0; j < M && unscaled < 0 && op == REDOP_AVG && N > 1; j++)
        if (piece_sum[j] && !piece_ok[j]) unscaled = j;
    if (N > 1 && own)
        printf("  hint: rank %d still holds its own input: it never received the result\n", w);
    else if (N > 1 && op == REDOP_AVG && times_n)
        printf("  hint: this is the SUM: REDOP_AVG must divide by N = M*K = %d\n", N);
    else if (op == REDOP_AVG && times_k)
        printf("  hint: this is K = %d times the average: divided by M = %d (the nodes) only — ring_allreduce's "
               "REDOP_AVG divides by the size of ITS communicator; the mean divides by N = M*K, once\n",
               K, M);
    else if (op == REDOP_AVG && times_m)
        printf("  hint: this is M = %d times the average: divided by K = %d (a node's ranks) only; the mean divides "
               "by N = M*K, once\n",
               M, K);
    else if (N > 1 && over_n)
        printf("  hint: this is 1/%d of the expected value: divided by N %s\n", N,
               op == REDOP_AVG ? "twice (once is enough: the piece each rank finishes, by 1/N)"
                               : "although the op is REDOP_SUM");
    else if (unscaled >= 0)
        printf("  hint: piece %d of this rank's shard holds the SUM while the others hold the average: the rank that "
               "finished it across the nodes (node index %d in h->inter) did not scale it — a rank's index among the "
               "nodes is its rank in h->inter and its shard is its rank in h->intra, not arithmetic on its world rank "
               "(with --placement spread, node = r %% M, not r / K)\n",
               unscaled, unscaled);
    else if (N > 1 && K > 1 && nshard_ok == 1 && shard_ok[local_of(w)])
        printf("  hint: only this rank's own shard (%zu..%zu) is right: the all-gather inside the node is missing "
               "(or gathers on the wrong communicator)\n",
               so, so + sl - 1);
    else if (N > 1 && M > 1 && sl > 0 && npiece_ok == 1 && piece_ok[node_of(w)] && nshard_ok == 0)
        printf("  hint: only the piece of its shard this rank finished across the nodes is right: the all-gather "
               "across the nodes (on h->inter, over the shard) is missing\n");
    else if (close && traffic_bad)
        printf("  hint: every element is the right sum to rounding, added in another order: the traffic below says "
               "what ran instead of the algorithm\n");
    else if (close)
        printf("  hint: every element is the right sum to rounding, but not added in the algorithm's order (the grader "
               "adds exactly as lesson 04's ring does: inside the node first, then across the nodes on the shard) — "
               "reduced across the nodes before inside them, or a ring of your own in another order?\n");
    else {
        size_t wrong = 0, last = first;
        for (size_t i = 0; i < count; i++)
            if (!ulps_ok(got[i], want[i], op)) wrong++, last = i;
        printf("  hint: %zu of %zu elements are wrong, from index %zu to %zu; the node's shards are chunk_range(count, "
               "K=%d, l) (%zu or %zu floats, the first count %% K one longer)",
               wrong, count, first, last, K, count / (size_t)K + 1, count / (size_t)K);
        if (count % (size_t)K && first >= count - count % (size_t)K && count > (size_t)K)
            printf(" — only the remainder is wrong: the first count %% K shards are one element longer");
        printf("\n");
    }
}

/* ---- the sweep ----------------------------------------------------------------------------------- */

/* Compare this call's taped traffic with the rule; print the first peer that is off. */
static int call_traffic_ok(int w, size_t count, redop_t op, const comm_peer_counters_t *got, const want_t *want,
                           int quiet) {
    int N = M * K;
    for (int p = 0; p < N; p++) {
        const comm_peer_counters_t *g = &got[p];
        const want_t *x = &want[p];
        int msgs_ok = g->msgs_sent <= x->msgs_sent && g->msgs_sent + x->empty_sent >= x->msgs_sent &&
                      g->msgs_recv <= x->msgs_recv && g->msgs_recv + x->empty_recv >= x->msgs_recv;
        if (msgs_ok && g->bytes_sent == x->bytes_sent && g->bytes_recv == x->bytes_recv) continue;
        if (quiet) return 0;
        printf("FAIL: hier_allreduce, %dx%d %s, count=%zu, %s: rank %d sent %llu messages / %llu bytes to rank %d "
               "(%s) and received %llu / %llu from it; expected %llu / %llu and %llu / %llu\n",
               M, K, spread ? "spread" : "block", count, op == REDOP_SUM ? "sum" : "average", w,
               (unsigned long long)g->msgs_sent, (unsigned long long)g->bytes_sent, p, klass(w, p),
               (unsigned long long)g->msgs_recv, (unsigned long long)g->bytes_recv, (unsigned long long)x->msgs_sent,
               (unsigned long long)x->bytes_sent, (unsigned long long)x->msgs_recv, (unsigned long long)x->bytes_recv);
        int v = which_variant(w, count, got);
        if (v > 0)
            printf("  hint: %s\n", variant_hint[v]);
        else
            traffic_explain(w, p, count, g->bytes_sent, x->bytes_sent);
        return 0;
    }
    return 1;
}

/* The judge's evidence: what the grader's switch carried for this launch, rank w's row, against the
 * sum of the rule over every call, per peer and per link class (the class from the grader's own
 * placement). 1: agrees (or no switch carried the run: a check run by hand). */
static int switch_ok(int w, const want_t *total, uint64_t inter_one, size_t count_one) {
    const char *log = getenv("DPC_SWITCH_LOG"), *job = getenv("DPC_SWITCH_JOB");
    if (!ck_judging() || !log || !*log || !job || !*job) return 1;
    int N = M * K;
    if (N == 1) return 1; /* one rank: nothing crosses the switch */
    static switchlog_job_t sw;
    if (!switchlog_read(log, strtol(job, NULL, 10), &sw) || !sw.found || sw.size != N || w >= SWITCHLOG_MAX_RANKS) {
        printf("FAIL: the grader's switch has no usable log of this launch: the traffic cannot be confirmed\n");
        return 0;
    }
    uint64_t cls_got[2] = {0, 0}, cls_want[2] = {0, 0};
    for (int p = 0; p < N && p < SWITCHLOG_MAX_RANKS; p++) {
        if (p == w) continue;
        const switchlog_p2p_t *s = &sw.p2p[w][p];
        const want_t *x = &total[p];
        int inter = node_of(p) != node_of(w);
        cls_got[inter] += s->bytes_sent;
        cls_want[inter] += x->bytes_sent;
        int msgs_ok = s->msgs_sent <= x->msgs_sent && s->msgs_sent + x->empty_sent >= x->msgs_sent &&
                      s->msgs_recv <= x->msgs_recv && s->msgs_recv + x->empty_recv >= x->msgs_recv;
        if (msgs_ok && s->bytes_sent == x->bytes_sent && s->bytes_recv == x->bytes_recv) continue;
        printf("FAIL: through the grader's switch rank %d sent %llu bytes (%llu messages) to rank %d (%s) and received "
               "%llu (%llu) from it over the whole sweep; the algorithm sends %llu (%llu) and receives %llu (%llu)\n",
               w, (unsigned long long)s->bytes_sent, (unsigned long long)s->msgs_sent, p, klass(w, p),
               (unsigned long long)s->bytes_recv, (unsigned long long)s->msgs_recv, (unsigned long long)x->bytes_sent,
               (unsigned long long)x->msgs_sent, (unsigned long long)x->bytes_recv, (unsigned long long)x->msgs_recv);
        printf("  hint: %s\n", traffic_hint);
        return 0;
    }
    if (w == 0 || (M > 1 && K > 1 && w == 1))
        printf("rank %d through the grader's switch: %llu bytes sent inside its node, %llu across (as the algorithm "
               "sends, exactly); on %zu floats alone %llu bytes across, 2(M-1)/M of its %zu-float shard\n",
               w, (unsigned long long)cls_got[0], (unsigned long long)cls_got[1], count_one,
               (unsigned long long)inter_one, clen(count_one, K, local_of(w)));
    return cls_got[0] == cls_want[0] && cls_got[1] == cls_want[1];
}

/* One call's verdict on world rank w: its result, its traffic by peer (as its process counted it:
 * the switch's totals confirm them at the end) and the elements it scaled. 1: something is wrong. */
static int judge_call(int w, size_t count, redop_t op, const float *buf, float *want, const comm_peer_counters_t *d,
                      const want_t *rule, uint64_t scaled) {
    int N = M * K, mine = 0;
    const char *opname = op == REDOP_AVG ? "average" : "sum";
    for (size_t i = 0; i < count; i++) want[i] = reference(count, i, op);
    size_t first = count;
    for (size_t i = 0; i < count && first == count; i++)
        if (!ulps_ok(buf[i], want[i], op)) first = i;
    int traffic = call_traffic_ok(w, count, op, d, rule, 1);
    if (first < count) diagnose(w, count, op, buf, want, first, !traffic);
    if (!traffic) call_traffic_ok(w, count, op, d, rule, 0); /* says with whom */
    mine = first < count || !traffic;
    size_t so, sl, po, pl;
    chunk(count, K, local_of(w), &so, &sl);
    chunk(sl, M, node_of(w), &po, &pl);
    size_t may = op == REDOP_AVG ? pl : 0;
    if (!mine && scaled != may && !(scaled == 0 && may == 0)) {
        printf("FAIL: hier_allreduce, %dx%d %s, count=%zu, %s: rank %d scaled %llu elements with ops_scale; it "
               "must scale exactly %zu, the piece of its shard it finished across the nodes\n  hint: ",
               M, K, spread ? "spread" : "block", count, opname, w, (unsigned long long)scaled, may);
        int other = -1; /* another node's piece of this shard, by its length */
        for (int j = 0; j < M && other < 0 && M > 1; j++)
            if (j != node_of(w) && scaled == clen(sl, M, j) && scaled != may) other = j;
        if (op == REDOP_SUM)
            printf("REDOP_SUM never scales\n");
        else if (other >= 0 && scaled == sl)
            printf("it scaled its whole shard, or piece %d of it (both are %llu long), not its own piece %d (%zu): "
                   "scale only chunk_range(shard length, M, m) with m its rank in h->inter — its index among the "
                   "nodes, not arithmetic on its world rank (with --placement spread, node = r %% M, not r / K)\n",
                   other, (unsigned long long)scaled, node_of(w), may);
        else if (other >= 0)
            printf("%llu is the length of piece %d of its shard, not of its own piece %d (%zu): its piece is "
                   "chunk_range(shard length, M, m) with m its rank in h->inter — its index among the nodes, not "
                   "arithmetic on its world rank (with --placement spread, node = r %% M, not r / K)\n",
                   (unsigned long long)scaled, other, node_of(w), may);
        else if (scaled == count && N > 1)
            printf("it scaled the whole buffer: each rank scales only its piece, 1/N of the buffer\n");
        else if (scaled == sl && M > 1)
            printf("it scaled its whole shard: the M ranks of its local index each scale their own piece of "
                   "it (chunk_range(shard, M, m)), between the reduce-scatter and the all-gather across\n");
        else if (scaled > may)
            printf("%llu is more than its piece: scaled twice, or the wrong piece? once, by 1/N\n",
                   (unsigned long long)scaled);
        else
            printf("its piece is chunk_range(shard length, M, m) with m its rank in h->inter\n");
        mine = 1;
    }
    return mine;
}

static comm_t *start(const char *placement, coll_t *coll, ops_t **ops, hier_t *h) {
    comm_opts_t o;
    comm_opts_default(&o);
    char topo[32];
    snprintf(topo, sizeof topo, "%dx%d", M, K);
    o.topology = topo;
    o.placement = placement;
    comm_t *c = comm_init(NULL, NULL, &o);
    *ops = ops_create(OPS_CPU, 1);
    coll_init(coll, c, *ops);
    hier_init(h, c, *ops);
    return c;
}

static int sweep_check(void) {
    coll_t coll;
    ops_t *ops;
    hier_t h;
    comm_t *c = start(spread ? "spread" : "block", &coll, &ops, &h);
    int N = comm_world_size(c), w = comm_rank(c), bad = 0;
    size_t lengths[] = {0,    1,    (size_t)K - 1, (size_t)K, (size_t)K + 1, (size_t)N - 1, (size_t)N, (size_t)N + 1,
                        1009, 65537};
    size_t nl = sizeof lengths / sizeof lengths[0], maxlen = 65537;
    float *buf = dp_malloc(maxlen * 4), *want = dp_malloc(maxlen * 4);
    want_t *rule = dp_calloc((size_t)N, sizeof *rule), *total = dp_calloc((size_t)N, sizeof *total);
    comm_peer_counters_t *before = dp_calloc((size_t)N, sizeof *before), *d = dp_calloc((size_t)N, sizeof *d);
    uint64_t scaled = 0, inter_one = 0;
    ops->scaled = &scaled; /* the check's own context: count what ops_scale does on this rank */
    for (int o = 0; o < 2 && !bad; o++) {
        redop_t op = o ? REDOP_AVG : REDOP_SUM;
        const char *opname = o ? "average" : "sum";
        for (size_t li = 0; li < nl && !bad; li++) {
            size_t count = lengths[li];
            for (size_t i = 0; i < count; i++) buf[i] = value(w, i);
            for (int p = 0; p < N; p++) before[p] = comm_process_peer_counters(c, p);
            scaled = 0;
            hier_allreduce(&h, buf, count, op);
            for (int p = 0; p < N; p++) d[p] = comm_peer_counters_diff(comm_process_peer_counters(c, p), before[p]);
            char what[160];
            snprintf(what, sizeof what, "hier %dx%d, count=%zu, %s: result", M, K, count, opname);
            ck_tape(what, buf, count * 4);
            snprintf(what, sizeof what, "hier %dx%d, count=%zu, %s: traffic by peer", M, K, count, opname);
            ck_tape(what, d, (size_t)N * sizeof *d);
            snprintf(what, sizeof what, "hier %dx%d, count=%zu, %s: elements scaled", M, K, count, opname);
            ck_tape(what, &scaled, sizeof scaled);
            memset(rule, 0, (size_t)N * sizeof *rule);
            hier_want(w, count, rule);
            for (int p = 0; p < N; p++) {
                total[p].msgs_sent += rule[p].msgs_sent, total[p].bytes_sent += rule[p].bytes_sent;
                total[p].msgs_recv += rule[p].msgs_recv, total[p].bytes_recv += rule[p].bytes_recv;
                total[p].empty_sent += rule[p].empty_sent, total[p].empty_recv += rule[p].empty_recv;
                /* the reference sends them; the run may leave them out (ck_switch_agrees) */
                ck_traffic_slack(p, rule[p].empty_sent, rule[p].empty_recv);
                if (count == maxlen && node_of(p) != node_of(w) && op == REDOP_SUM) inter_one += rule[p].bytes_sent;
            }
            /* the run only records: the judge computes the reference and decides */
            /* the run decides the same way on the same values (its verdict counts for nothing): both
             * phases then stop at the same call, and the judge's tape ends where the run's does */
            int mine = judge_call(w, count, op, buf, want, d, rule, scaled);
            int any = mine;
            comm_lib_allreduce(c, &mine, &any, 1, DT_I32, REDOP_MAX); /* the grader's own bookkeeping */
            bad = any;
        }
    }
    ops->scaled = NULL;
    if (!bad) {
        int mine = !switch_ok(w, total, inter_one, maxlen), any = mine;
        comm_lib_allreduce(c, &mine, &any, 1, DT_I32, REDOP_MAX);
        bad = any;
    }
    if (!bad && w == 0 && !ck_recording())
        printf("hier_allreduce on %dx%d (%s): exact for lengths 0, 1, K-1, K, K+1, N-1, N, N+1, 1009, 65537 (sum bit "
               "for bit in the algorithm's order, average within 1 ULP), traffic with each peer as the algorithm "
               "sends, each rank scaling only its piece\n",
               M, K, spread ? "spread" : "block");
    free(buf);
    free(want);
    free(rule);
    free(total);
    free(before);
    free(d);
    hier_free(&h);
    coll_free(&coll);
    comm_finalize(c);
    ops_destroy(ops);
    return bad;
}

/* ---- the timing property, from the structure ---------------------------------------------------- */

#define TIMING_COUNT  ((size_t)1 << 20) /* 4 MiB per call: a few seconds on a 2-core grader */
#define TIMING_BYTES  (64.0 * 1024 * 1024)
#define TIMING_MARGIN 0.05 /* the ratio within 5% of the model's */

/* Seconds the alpha-beta model gives a rank that sends msgs[c] messages of bytes[c] bytes in all on
 * class c, the bytes scaled by `scale` (4 MiB measured, 64 MiB modelled): its sends one after another. */
static double model_time(const uint64_t msgs[2], const uint64_t bytes[2], double scale, const link_t l[2]) {
    double t = 0;
    for (int c = 0; c < 2; c++) t += (double)msgs[c] * l[c].latency_s + (double)bytes[c] * scale / l[c].bytes_per_s;
    return t;
}

static int timing_check(void) {
    M = 2, K = 4, spread = 0;
    coll_t coll;
    ops_t *ops;
    hier_t h;
    comm_t *c = start("block", &coll, &ops, &h);
    int N = comm_world_size(c), w = comm_rank(c), bad = 0;
    float *buf = dp_malloc(TIMING_COUNT * 4);
    for (size_t i = 0; i < TIMING_COUNT; i++) buf[i] = value(w, i);
    hier_allreduce(&h, buf, TIMING_COUNT, REDOP_SUM);
    ck_tape("hier 2x4, count=2^20, sum: result", buf, TIMING_COUNT * 4);
    /* the result must be right for the time to mean anything: a sample of it, against the reference */
    if (!ck_recording())
        for (size_t i = 0; i < TIMING_COUNT && !bad; i += 4099) {
            float want = reference(TIMING_COUNT, i, REDOP_SUM);
            if (!ulps_ok(buf[i], want, REDOP_SUM)) {
                printf("FAIL: hier_allreduce, 2x4 block, count=%zu: rank %d element %zu is %.9g, expected %.9g (the "
                       "sweeps say why)\n",
                       TIMING_COUNT, w, i, (double)buf[i], (double)want);
                bad = 1;
            }
        }
    link_t l[2];
    link_from_preset("nvlink", 1, &l[0]);
    link_from_preset("ib-hdr", 1, &l[1]);
    double scale = TIMING_BYTES / (4.0 * (double)TIMING_COUNT), mine[2] = {0, 0}, worst[2] = {0, 0};
    const char *log = getenv("DPC_SWITCH_LOG"), *job = getenv("DPC_SWITCH_JOB");
    if (!bad && ck_judging() && log && *log && job && *job) {
        static switchlog_job_t sw;
        if (!switchlog_read(log, strtol(job, NULL, 10), &sw) || !sw.found || sw.size != N) {
            printf("FAIL: the grader's switch has no usable log of this launch: the time cannot be modelled\n");
            bad = 1;
        } else {
            uint64_t hm[2] = {0, 0}, hb[2] = {0, 0}, fm[2] = {0, 0}, fb[2] = {0, 0};
            want_t *flat = dp_calloc((size_t)N, sizeof *flat);
            flat_want(w, TIMING_COUNT, flat);
            for (int p = 0; p < N; p++) {
                int cls = node_of(p) != node_of(w);
                hm[cls] += sw.p2p[w][p].msgs_sent, hb[cls] += sw.p2p[w][p].bytes_sent;
                fm[cls] += flat[p].msgs_sent, fb[cls] += flat[p].bytes_sent;
            }
            free(flat);
            mine[0] = model_time(hm, hb, scale, l);
            mine[1] = model_time(fm, fb, scale, l);
        }
    }
    /* a ring's step waits for its slowest link: the time of the algorithm is its slowest rank's */
    int any = bad;
    comm_lib_allreduce(c, &bad, &any, 1, DT_I32, REDOP_MAX);
    comm_lib_allreduce(c, mine, worst, 2, DT_F64, REDOP_MAX);
    bad = any;
    if (!bad && ck_judging() && log && *log && job && *job && w == 0) {
        double G = TIMING_BYTES, ai = l[0].latency_s, bi = l[0].bytes_per_s, ae = l[1].latency_s, be = l[1].bytes_per_s;
        double hier = 2 * (K - 1) * (ai + G / K / bi) + 2 * (M - 1) * (ae + G / (M * K) / be);
        double flat = 2 * (N - 1) * (ae + G / N / be), predicted = flat / hier, got = worst[1] / worst[0];
        printf("2x4, nvlink inside, ib-hdr across, 64 MiB (the switch's messages on 4 MiB, bytes scaled by %g): "
               "hierarchical %.3f ms, flat ring %.3f ms: %.2fx faster; the cost model predicts %.3f / %.3f ms = "
               "%.2fx (margin %.0f%%)\n",
               scale, worst[0] * 1e3, worst[1] * 1e3, got, hier * 1e3, flat * 1e3, predicted, TIMING_MARGIN * 100);
        if (!(fabs(got / predicted - 1) <= TIMING_MARGIN)) {
            printf("FAIL: the hierarchical all-reduce's messages make it %.2fx the flat ring's speed, not the %.2fx of "
                   "the cost model\n  hint: %s\n",
                   got, predicted,
                   got < predicted ? "more messages or bytes than the algorithm's on some rank — the sweeps name them"
                                   : "fewer bytes than the algorithm needs: is every shard all-reduced?");
            bad = 1;
        }
    }
    any = bad;
    comm_lib_allreduce(c, &bad, &any, 1, DT_I32, REDOP_MAX);
    bad = any;
    free(buf);
    hier_free(&h);
    coll_free(&coll);
    comm_finalize(c);
    ops_destroy(ops);
    return bad;
}

int main(int argc, char **argv) {
    dp_set_progname("check11");
    /* sweep-MxK-block|spread: the topology is part of the check's name (and of its tape's) */
    const char *name = argc == 2 ? argv[1] : "";
    char place[16] = "";
    if (!strncmp(name, "sweep-", 6)) {
        if (sscanf(name + 6, "%dx%d-%15s", &M, &K, place) != 3 || M < 1 || K < 1 || M > 64 || K > 64 ||
            (strcmp(place, "block") && strcmp(place, "spread"))) {
            fprintf(stderr, "check11: '%s' is not sweep-MxK-block or sweep-MxK-spread\n", name);
            return 2;
        }
        spread = !strcmp(place, "spread");
    }
    const ck_entry_t checks[] = {{!strncmp(name, "sweep-", 6) ? name : "sweep-MxK-block|spread", sweep_check},
                                 {"timing", timing_check},
                                 {NULL, NULL}};
    return ck_main(argc, argv, checks);
}
