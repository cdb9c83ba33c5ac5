/* q09.c — lesson 09's quiz: the cost model of solutions/09-scaling/scaling.c (the reference):
 * Amdahl, the ring's time, a predicted step and speed-up, efficiency. */
#include "quiz.h"
#include "scaling.h"

void quiz_09(quiz_t *qz, rng_t *r);

void quiz_09(quiz_t *qz, rng_t *r) {
    static const double ps[] = {0.9, 0.95, 0.99, 0.8};
    double p = quiz_pick(r, ps, 4);
    int N = 1 << quiz_int(r, 2, 6);
    double s = amdahl_speedup(p, N);
    quiz_why(quiz_number(qz, s, 0.01,
                         "A fraction p = %g of a step parallelises perfectly. Amdahl's speed-up on %d "
                         "ranks?",
                         p, N),
             "S = 1 / ((1 - p) + p/N) = 1 / (%g + %g/%d) = %.4g", 1 - p, p, N, s);
    quiz_why(quiz_number(qz, 1 / (1 - p), 0.01, "And its limit as N grows without bound?"),
             "p/N -> 0: S -> 1/(1 - p) = %.4g", 1 / (1 - p));

    double compute1 = 1e-3 * quiz_int(r, 100, 800); /* seconds on one rank */
    double bytes = 1048576.0 * quiz_int(r, 20, 400), alpha = 1e-6 * quiz_int(r, 5, 50), beta = 1e9 * quiz_int(r, 1, 10);
    int N2 = quiz_int(r, 2, 8), cores = quiz_int(r, 2, 8), buckets = quiz_int(r, 1, 8);
    double t1 = predict_step(compute1, 1, cores, bytes, buckets, alpha, beta, false);
    double tn = predict_step(compute1, N2, cores, bytes, buckets, alpha, beta, false);
    double comm = buckets * ring_allreduce_time(bytes / buckets, N2, alpha, beta);
    int par = N2 < cores ? N2 : cores;
    quiz_why(quiz_number(qz, tn * 1e3, 0.01,
                         "Lesson 09's model: a step takes %.0f ms of compute on one rank; the global batch is split "
                         "over N = %d ranks sharing %d cores; the %.0f MiB gradient goes as %d equal ring all-reduces "
                         "(alpha = %g us, beta = %g GB/s, 10^9 bytes/s), NOT overlapped. Predicted step time (ms)?",
                         compute1 * 1e3, N2, cores, bytes / 1048576.0, buckets, alpha * 1e6, beta / 1e9),
             "compute %.0f ms / min(N, cores) = %.4g ms; communication %d * (2(N-1)*alpha + 2(N-1)/N*(|g|/%d)/beta) "
             "= %.4g ms; sum %.4g ms",
             compute1 * 1e3, compute1 / par * 1e3, buckets, buckets, comm * 1e3, tn * 1e3);
    quiz_why(quiz_number(qz, t1 / tn, 0.01, "Its predicted speed-up over one rank (whose step has no communication)?"),
             "S = T(1) / T(N) = %.4g / %.4g = %.4g", t1 * 1e3, tn * 1e3, t1 / tn);
    quiz_why(quiz_number(qz, efficiency(t1, tn, N2), 0.01, "And its efficiency (a fraction, not percent)?"),
             "E = T(1) / (N * T(N)) = %.4g / (%d * %.4g) = %.4g", t1 * 1e3, N2, tn * 1e3, efficiency(t1, tn, N2));
    double to = predict_step(compute1, N2, cores, bytes, buckets, alpha, beta, true);
    quiz_why(
        quiz_number(qz, to * 1e3, 0.01, "The same step with the all-reduces fully overlapped (the model's bound)?"),
        "max(compute, communication) = max(%.4g, %.4g) = %.4g ms", compute1 / par * 1e3, comm * 1e3, to * 1e3);
    static const char *const why[] = {
        "Compute per rank shrinks as 1/N while the ring's communication does not (it tends to 2|g|/beta), so the "
        "unhidden part is a growing share",
        "The ring's bytes per rank grow linearly with N", "Every rank repeats the optimizer step, which is serial",
        "Amdahl's law says efficiency is always 1/N"};
    quiz_why(quiz_choice(qz, r, why, 4, 0, "Why does strong-scaling efficiency fall as ranks are added?"),
             "T(N) = T_compute(1)/N + T_ar(N), and T_ar(N) -> 2(N-1)*alpha + 2|g|/beta does not shrink: it plays "
             "Amdahl's serial part (1 - p)");
}
