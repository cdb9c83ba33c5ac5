/* q03.c — lesson 03's quiz: the naive all-reduce (reduce to rank 0, broadcast), its traffic and time. */
#include "quiz.h"
#include "scaling.h"

void quiz_03(quiz_t *qz, rng_t *r);

void quiz_03(quiz_t *qz, rng_t *r) {
    int N = quiz_int(r, 3, 12);
    double count = 1024.0 * quiz_int(r, 1, 512), g = 4 * count;
    quiz_why(quiz_number(qz, (N - 1) * g, 0,
                         "The naive all-reduce (every rank sends to rank 0, which adds and sends the sum back) runs "
                         "on %d ranks over %.0f floats. How many bytes does rank 0 receive?",
                         N, count),
             "N-1 = %d buffers of 4 * %.0f = %.0f bytes: %.0f", N - 1, count, g, (N - 1) * g);
    quiz_why(quiz_number(qz, g, 0, "How many bytes does rank 1 send?"),
             "its own buffer once, |g| = %.0f bytes (and it receives the sum once)", g);
    quiz_why(quiz_number(qz, 2.0 * (N - 1), 0, "How many messages does rank 0 send and receive in all?"),
             "N-1 = %d in (the reduce), N-1 out (the broadcast): %d", N - 1, 2 * (N - 1));
    quiz_why(quiz_number(qz, count, 0,
                         "With REDOP_AVG (the mean), how many elements does rank 0 scale by 1/N, and the others none?"),
             "rank 0 holds the whole sum before the broadcast: it scales all %.0f elements once, and the broadcast "
             "carries the mean",
             count);
    static const double alphas_us[] = {5, 10, 20};
    double alpha = quiz_pick(r, alphas_us, 3) * 1e-6, beta = 1e9 * quiz_int(r, 1, 10);
    double t = 2.0 * (N - 1) * (alpha + g / beta), ring = ring_allreduce_time(g, N, alpha, beta);
    quiz_why(quiz_number(qz, t * 1e3, 0.01,
                         "Rank 0 receives and sends one message at a time, each taking alpha + b/beta (alpha = %g us, "
                         "beta = %g GB/s). How long (milliseconds) does the naive all-reduce take?",
                         alpha * 1e6, beta / 1e9),
             "2(N-1) = %d messages of %.0f bytes in a row: %d * (%g us + %.4g us) = %.4g ms (lesson 04's ring: %.4g "
             "ms)",
             2 * (N - 1), g, 2 * (N - 1), alpha * 1e6, g / beta * 1e6, t * 1e3, ring * 1e3);
    static const char *const why[] = {
        "Rank 0's traffic is 2(N-1)|g|: it grows with N, while every other rank's link sits idle most of the time",
        "The additions: rank 0 does N-1 of them, and adding is slower than sending",
        "The messages are too small to use the bandwidth",
        "Each rank has to wait for a barrier between the reduce and the broadcast"};
    quiz_why(quiz_choice(qz, r, why, 4, 0, "Why does the naive all-reduce stop scaling as N grows?"),
             "every byte goes through rank 0's link, 2(N-1)|g| of them; adding N-1 buffers is far cheaper than "
             "moving them, and no barrier is needed");
}
