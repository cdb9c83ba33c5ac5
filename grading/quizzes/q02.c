/* q02.c — lesson 02's quiz: the parameter server's traffic (the formulas grading/lessons/02-train.sh
 * checks the counters against) and why averaging gradients is enough. */
#include "quiz.h"
#include "scaling.h"

void quiz_02(quiz_t *qz, rng_t *r);

void quiz_02(quiz_t *qz, rng_t *r) {
    int N = quiz_int(r, 3, 16);
    double P = 1000.0 * quiz_int(r, 10, 999), g = 4 * P; /* float32 gradients, |g| = |theta| */
    quiz_why(quiz_number(qz, (N - 1) * g, 0,
                         "A parameter server (rank 0) and %d workers train a model of %.0f float32 parameters. How "
                         "many bytes does the server RECEIVE per step?",
                         N - 1, P),
             "each of the N-1 = %d workers sends its gradient, |g| = 4 * %.0f = %.0f bytes: (N-1)*|g| = %.0f", N - 1, P,
             g, (N - 1) * g);
    quiz_why(quiz_number(qz, (N - 1) * g, 0, "How many bytes does the server SEND per step?"),
             "it sends the updated parameters, |theta| = %.0f bytes, to each of the %d workers: %.0f", g, N - 1,
             (N - 1) * g);
    quiz_why(quiz_number(qz, g, 0, "How many bytes does one worker send per step?"),
             "one gradient, 4 bytes * %.0f parameters = %.0f (and it receives the parameters, as many)", P, g);
    quiz_why(quiz_number(qz, 2.0 * (N - 1), 0, "How many messages does the server send and receive in all per step?"),
             "N-1 = %d gradients in, N-1 parameter copies out: %d", N - 1, 2 * (N - 1));
    /* against lesson 04's ring, whose per-rank bytes lesson 09's model takes (beta = 1 byte/s: bytes) */
    double ring = ring_allreduce_time(g, N, 0, 1);
    quiz_why(quiz_number(qz, 2 * (N - 1) * g / (2 * ring), 0.01,
                         "A ring all-reduce of the same gradient over the same %d ranks makes each rank SEND "
                         "2(N-1)/N*|g| bytes, and receive as many. How many times more bytes (sent + received) go "
                         "through the server's link than through one ring rank's?",
                         N),
             "server: (N-1)*|g| in + (N-1)*|g| out = %.0f; ring rank: 2(N-1)/N*|g| out + as many in = %.0f; ratio "
             "N/2 = %.4g: the server's link carries N/2 times more, and it grows with N",
             2 * (N - 1) * g, 2 * ring, N / 2.0);
    static const char *const avg[] = {
        "The loss is a mean over examples, so the gradient of the global batch is the mean of the equal shards' "
        "mean gradients",
        "AdamW divides by sqrt(v), so the scale of the averaged gradient does not matter",
        "Every worker starts from the same seed, so their gradients are the same",
        "The server adds the gradients in a fixed order, so the rounding is the same as one process's"};
    quiz_why(
        quiz_choice(qz, r, avg, 4, 0,
                    "Why does training with a parameter server and N equal shards follow (up to rounding) the same "
                    "trajectory as one process on the whole global batch?"),
        "the gradient is linear: grad (1/B) sum l(x) = (1/N) sum_r grad (1/(B/N)) sum_{x in shard r} l(x). "
        "Rounding differs (another summation order), which is why equivalence has tolerances; AdamW is not "
        "scale-invariant in eps, and the shards' gradients differ");
    static const char *const bottleneck[] = {
        "The server's link: its traffic grows with N while each worker's stays |g| + |theta|",
        "The workers' compute, which grows with N", "The optimizer step, which every worker repeats",
        "The number of parameters, which must be divided by N"};
    quiz_why(quiz_choice(qz, r, bottleneck, 4, 0, "What limits the parameter server as N grows?"),
             "rank 0 moves 2(N-1)|g| bytes per step through one link; workers' compute shrinks with N, and only "
             "the server steps the optimizer");
}
