/* q11.c — lesson 11's quiz: where ranks sit (common/topology.h), what the hierarchical all-reduce of
 * solutions/11-topology/hier.c sends inside a node and across (lesson 04's chunk_range, the
 * reference), against the flat ring, and the two-level cost model of lessons/11-topology/README.md. */
#include "link.h"
#include "quiz.h"
#include "ring.h"
#include "topology.h"

void quiz_11(quiz_t *qz, rng_t *r);

static int mod(int a, int n) { return ((a % n) + n) % n; }

static size_t clen(size_t count, int n, int i) {
    size_t off, len;
    chunk_range(count, n, i, &off, &len);
    return len;
}

/* Bytes one half of lesson 04's ring sends from member `me` of n on count floats (ring.c's schedule):
 * the reduce-scatter sends chunks me-1-s, the all-gather chunks me-s, s = 0 .. n-2. */
static size_t half_sent(size_t count, int n, int me, int rs) {
    size_t b = 0;
    for (int s = 0; s < n - 1; s++) b += 4 * clen(count, n, mod(me - (rs ? 1 : 0) - s, n));
    return b;
}

void quiz_11(quiz_t *qz, rng_t *r) {
    int M = quiz_int(r, 2, 4), K = quiz_int(r, 2, 4), N = M * K, w = quiz_int(r, 1, N - 1);
    topology_t spread = {M, K, TOPO_SPREAD};
    long long where[2] = {topology_node_of(&spread, w), topology_local_of(&spread, w)};
    quiz_why(quiz_list(qz, where, 2,
                       "--topology %dx%d --placement spread: on which node does rank %d sit, and what is its local "
                       "rank (its rank in its node)? (two numbers)",
                       M, K, w),
             "spread deals ranks round-robin: node = r %% M = %d %% %d = %lld; local rank = r / M = %d / %d = %lld", w,
             M, where[0], w, M, where[1]);

    /* the hierarchical all-reduce on block, one rank */
    size_t count = (size_t)quiz_int(r, 100 * N + 1, 400 * N);
    if (count % (size_t)K == 0) count++; /* uneven shards */
    int b = quiz_int(r, 0, N - 1), n = b / K, l = b % K;
    size_t shard = clen(count, K, l);
    size_t across = half_sent(shard, M, n, 1) + half_sent(shard, M, n, 0);
    quiz_why(quiz_number(qz, (double)across, 0,
                         "The hierarchical all-reduce of %zu floats on --topology %dx%d (block). How many bytes does "
                         "rank %d send to other nodes, exactly?",
                         count, M, K, b),
             "rank %d is local rank l = %d of node %d; its shard is chunk %d of %zu floats over K = %d: %zu floats. "
             "Across the nodes lesson 04's ring over M = %d ranks sends all the shard's chunks but its own in the "
             "reduce-scatter and all but the next one's in the all-gather: %zu bytes, about 2(M-1)/M * |g|/K",
             b, l, n, l, count, K, shard, M, across);
    size_t inside = half_sent(count, K, l, 1) + half_sent(count, K, l, 0);
    quiz_why(quiz_number(qz, (double)inside, 0, "And how many bytes does it send inside its node?"),
             "the node's ring over K = %d ranks on the whole buffer, reduce-scatter then all-gather: %zu bytes, about "
             "2(K-1)/K * |g|",
             K, inside);
    size_t piece = clen(shard, M, n);
    quiz_why(quiz_number(qz, (double)piece, 0, "For REDOP_AVG, how many elements does rank %d scale?", b),
             "only the piece of its shard it finished across the nodes: chunk m = %d of its %zu-float shard over "
             "M = %d, %zu elements, by 1/N = 1/%d, once",
             n, shard, M, piece, N);
    int edge = K - 1; /* the flat ring's rank whose right neighbour is on the next node */
    size_t flat = half_sent(count, N, edge, 1) + half_sent(count, N, edge, 0);
    quiz_why(quiz_number(qz, (double)flat, 0,
                         "Lesson 04's flat ring on the same %dx%d block cluster: how many bytes does rank %d send to "
                         "another node?",
                         M, K, edge),
             "rank %d's right neighbour, %d, is on the next node, and the ring sends only to the right: all of its "
             "2(N-1)/N * |g| goes across, %zu bytes",
             edge, edge + 1, flat);

    /* the cost model, at the chapter's figures */
    link_t in, out;
    link_from_preset("nvlink", 1, &in);
    link_from_preset("ib-hdr", 1, &out);
    double G = 1048576.0 * quiz_int(r, 4, 256);
    double tf = 2 * (N - 1) * (out.latency_s + G / N / out.bytes_per_s);
    double th = 2 * (K - 1) * (in.latency_s + G / K / in.bytes_per_s) +
                2 * (M - 1) * (out.latency_s + G / (M * K) / out.bytes_per_s);
    quiz_why(quiz_number(qz, tf / th, 0.01,
                         "The lesson's cost model, %dx%d, nvlink inside (alpha 3 us, beta 450 GB/s), ib-hdr across "
                         "(alpha 5 us, beta 25 GB/s, one card per rank), |g| = %.0f MiB: how many times faster is the "
                         "hierarchical all-reduce than the flat ring?",
                         M, K, G / 1048576.0),
             "flat: 2(N-1)(alpha_e + |g|/(N beta_e)) = %.4g ms; hierarchical: 2(K-1)(alpha_i + |g|/(K beta_i)) + "
             "2(M-1)(alpha_e + |g|/(MK beta_e)) = %.4g ms; ratio %.4g",
             tf * 1e3, th * 1e3, tf / th);
    static const char *const why[] = {
        "With one network card per node, spread puts all K ranks' ring edges on the node's card at once, each "
        "getting 1/K of it, while block crosses with one flow per node",
        "Spread sends more bytes in total than block", "Block needs fewer messages per rank than spread",
        "NVLink is only used with block placement"};
    quiz_why(quiz_choice(qz, r, why, 4, 0,
                         "Why do launchers fill whole nodes first (block) rather than deal ranks round-robin (spread) "
                         "for a flat ring?"),
             "every rank of a ring sends the same 2(N-1)/N|g| either way; what differs is how many of those flows "
             "share the slow card: K at once with spread, one per node with block");
}
