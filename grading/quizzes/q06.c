/* q06.c — lesson 06's quiz: micro-batches (split by lesson 04's chunk_range, as accum_step splits
 * them), their weights b_i/B, and what no_sync saves (lesson 09's ring_allreduce_time). */
#include "quiz.h"
#include "ring.h"
#include "scaling.h"

void quiz_06(quiz_t *qz, rng_t *r);

void quiz_06(quiz_t *qz, rng_t *r) {
    int k = quiz_int(r, 3, 5);
    size_t B = (size_t)quiz_int(r, 2 * k + 1, 6 * k);
    if (B % (size_t)k == 0) B++;
    long long b[8];
    size_t off, len;
    for (int i = 0; i < k; i++) chunk_range(B, k, i, &off, &len), b[i] = (long long)len;
    quiz_why(quiz_list(qz, b, k,
                       "A rank has B = %zu examples for one optimizer step and cuts them into k = %d "
                       "micro-batches, split as lesson 04 splits a buffer. Their sizes?",
                       B, k),
             "%zu = %d * %zu + %zu: the first %zu micro-batches take one more example", B, k, B / (size_t)k,
             B % (size_t)k, B % (size_t)k);
    quiz_why(quiz_number(qz, (double)b[k - 1] / (double)B, 0.01,
                         "By what weight is the LAST micro-batch's mean loss multiplied, so that the accumulated "
                         "gradient is the gradient of the mean loss over all %zu examples?",
                         B),
             "w_i = b_i / B = %lld / %zu = %.4g (1/k = %.4g would over-weight the small micro-batches' examples)",
             b[k - 1], B, (double)b[k - 1] / (double)B, 1.0 / k);

    int N = quiz_int(r, 2, 16), m = quiz_int(r, 2, 32);
    quiz_why(quiz_number(qz, (double)N * k * m, 0,
                         "%d ranks each run k = %d micro-batches of %d examples per optimizer step. What is the global "
                         "batch of one step?",
                         N, k, m),
             "B_global = N * k * b = %d * %d * %d = %d", N, k, m, N * k * m);

    double gbytes = 4.0 * 1000 * quiz_int(r, 100, 9999), alpha = 1e-5, beta = 1e9;
    double once = ring_allreduce_time(gbytes, N, alpha, beta);
    quiz_why(quiz_number(qz, once * 1e3, 0.01,
                         "On the same %d ranks, the gradient is %.0f bytes; alpha = 10 us, beta = 1 GB/s (10^9 "
                         "bytes/s), one bucket. With no_sync on the first k-1 micro-batches, how many milliseconds of "
                         "all-reduce does one optimizer step take?",
                         N, gbytes),
             "only the last backward synchronises: one ring all-reduce, 2(N-1)*alpha + 2(N-1)/N*|g|/beta = %.4g ms, "
             "whatever k is",
             once * 1e3);
    quiz_why(quiz_number(qz, k * once * 1e3, 0.01, "And without no_sync (every micro-batch's backward all-reduces)?"),
             "k = %d all-reduces of the same gradient: %d * %.4g = %.4g ms, and the sum is the same", k, k, once * 1e3,
             k * once * 1e3);

    static const char *const why[] = {
        "Gradients accumulate (+=) and are linear, so the sum of the weighted micro-batch gradients IS the whole "
        "batch's gradient; synchronising it once at the end gives the same average",
        "Skipping the all-reduce loses a little accuracy, which the larger batch makes up for",
        "no_sync averages the micro-batches locally with weight 1/k instead",
        "The other ranks' gradients are not needed until the optimizer's second step"};
    quiz_why(
        quiz_choice(qz, r, why, 4, 0,
                    "Why may DDP skip the all-reduce on all but the last micro-batch without changing the result?"),
        "all-reduce(sum_i w_i g_i) = sum_i w_i all-reduce(g_i): averaging is linear, so averaging once after "
        "accumulating gives exactly what averaging every time would (up to rounding), k times cheaper");
}
