/* q04.c — lesson 04's quiz: the ring's chunks (chunk_range, the reference), what a rank sends in
 * which step (the schedule of solutions/04-ring-allreduce/ring.c), and the α-β time (lesson 09's
 * ring_allreduce_time). */
#include "quiz.h"
#include "ring.h"
#include "scaling.h"

void quiz_04(quiz_t *qz, rng_t *r);

static int mod(int a, int n) { return ((a % n) + n) % n; }

void quiz_04(quiz_t *qz, rng_t *r) {
    int N = quiz_int(r, 3, 8);
    size_t count = (size_t)quiz_int(r, 10 * N + 1, 40 * N);
    if (count % (size_t)N == 0) count++; /* uneven chunks: the case that needs the rule */
    long long len[16];
    size_t off, l;
    for (int i = 0; i < N; i++) chunk_range(count, N, i, &off, &l), len[i] = (long long)l;
    quiz_why(quiz_list(qz, len, N,
                       "A buffer of %zu floats is split into %d chunks for the ring. The chunks' lengths, "
                       "chunk 0 first?",
                       count, N),
             "%zu = %d * %zu + %zu: the first %zu chunks get one more element (%zu + 1), the rest %zu", count, N,
             count / (size_t)N, count % (size_t)N, count % (size_t)N, count / (size_t)N, count / (size_t)N);

    /* the last rank with a long chunk: its right neighbour's is short, so which chunks it sends matters */
    int rk = (int)(count % (size_t)N) - 1, s = quiz_int(r, 0, N - 2);
    int c = mod(rk - 1 - s, N);
    quiz_why(quiz_number(qz, c, 0,
                         "In the reduce-scatter (steps s = 0 .. N-2, each rank sends to its right neighbour), rank r "
                         "sends chunk (r - 1 - s) mod N in step s. Which chunk does rank %d of %d send in step %d?",
                         rk, N, s),
             "(%d - 1 - %d) mod %d = %d; after N-1 steps rank r holds the full sum of chunk r", rk, s, N, c);

    size_t sent = 0;
    for (int st = 0; st < N - 1; st++) { /* the schedule of ring.c: reduce-scatter then all-gather */
        chunk_range(count, N, mod(rk - 1 - st, N), &off, &l);
        sent += l;
        chunk_range(count, N, mod(rk - st, N), &off, &l);
        sent += l;
    }
    quiz_why(quiz_number(qz, 4.0 * (double)sent, 0,
                         "How many bytes does rank %d send in the whole ring all-reduce of those %zu floats (both "
                         "halves)?",
                         rk, count),
             "each of the 2(N-1) = %d steps sends one chunk: in the reduce-scatter every chunk but chunk %d, in the "
             "all-gather every chunk but chunk %d; %zu floats * 4 = %zu bytes (about 2(N-1)/N*|g| = %.1f)",
             2 * (N - 1), mod(rk, N), mod(rk + 1, N), sent, 4 * sent, 2.0 * (N - 1) / N * 4.0 * (double)count);

    quiz_why(quiz_number(qz, 2.0 * (N - 1), 0, "How many messages does each rank send in that all-reduce?"),
             "one per step: N-1 in the reduce-scatter and N-1 in the all-gather, 2(N-1) = %d", 2 * (N - 1));

    static const double alphas_us[] = {5, 10, 20, 50};
    int N2 = quiz_int(r, 4, 64);
    double bytes = 1048576.0 * quiz_int(r, 4, 400), alpha = quiz_pick(r, alphas_us, 4) * 1e-6,
           beta = 1e9 * quiz_int(r, 1, 25);
    double t = ring_allreduce_time(bytes, N2, alpha, beta);
    quiz_why(quiz_number(qz, t * 1e3, 0.01,
                         "How long (milliseconds) does a ring all-reduce of %.0f MiB take on %d ranks, alpha = %g us "
                         "per message, beta = %g GB/s (10^9 bytes/s)?",
                         bytes / 1048576.0, N2, alpha * 1e6, beta / 1e9),
             "2(N-1)*alpha + 2(N-1)/N*|g|/beta = %d*%g us + %.4g * %.0f B / %g B/s = %.4g ms", 2 * (N2 - 1),
             alpha * 1e6, 2.0 * (N2 - 1) / N2, bytes, beta, t * 1e3);

    double lim = ring_allreduce_time(bytes, 1 << 20, 0, beta);
    quiz_why(quiz_number(qz, lim * 1e3, 0.01,
                         "Ignoring alpha, what does that time tend to (milliseconds) as the number of ranks grows "
                         "without bound?"),
             "2(N-1)/N -> 2: 2*|g|/beta = 2 * %.0f / %g = %.4g ms, however many ranks", bytes, beta, lim * 1e3);

    static const char *const why[] = {"Each rank sends 2(N-1) chunks of |g|/N, which tends to 2|g| whatever N is",
                                      "Each rank talks only to its neighbours, so no link is ever shared",
                                      "The latency term 2(N-1)*alpha does not depend on N",
                                      "The reduce-scatter halves the data at every step"};
    quiz_why(quiz_choice(qz, r, why, 4, 0, "Why do a ring rank's bytes hardly grow with the number of ranks?"),
             "the buffer is cut into N chunks; 2(N-1) steps of one chunk each are 2(N-1)/N*|g| < 2|g|. Latency does "
             "grow with N (2(N-1) messages), which is why small buffers favour a tree");
}
