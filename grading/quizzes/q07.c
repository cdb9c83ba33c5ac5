/* q07.c — lesson 07's quiz: DistributedSampler's sizes and a rank's indices, from the reference
 * sampler (solutions/07-sampler/sampler.c) and the grader's oracle (sampler_num_samples_ref). */
#include "quiz.h"
#include "sampler.h"
#include "sampler_oracle.h"

#include <stdlib.h>

void quiz_07(quiz_t *qz, rng_t *r);

/* rank's indices for the current epoch, as a list */
static int indices(size_t L, int N, int rank, bool drop_last, long long *out) {
    sampler_t s;
    sampler_init(&s, L, N, rank, false, 0, drop_last);
    /* room for L as well: the reference writes the whole list before cutting it (drop_last) */
    uint32_t *buf = calloc((s.total_size > L ? s.total_size : L) + 1, sizeof *buf);
    size_t n = sampler_indices(&s, buf);
    for (size_t i = 0; i < n; i++) out[i] = buf[i];
    free(buf);
    return (int)n;
}

void quiz_07(quiz_t *qz, rng_t *r) {
    int N = quiz_int(r, 3, 5);
    size_t L = (size_t)quiz_int(r, 2 * N + 1, 5 * N);
    if (L % (size_t)N == 0) L++;
    size_t ns = sampler_num_samples_ref(L, N, 0), nd = sampler_num_samples_ref(L, N, 1);
    quiz_why(quiz_number(qz, (double)ns, 0,
                         "DistributedSampler over a dataset of %zu examples and %d replicas, drop_last=False. How many "
                         "indices does each rank get per epoch?",
                         L, N),
             "ceil(L / N) = ceil(%zu / %d) = %zu: the list is padded to total_size = %zu", L, N, ns, ns * (size_t)N);
    quiz_why(quiz_number(qz, (double)(ns * (size_t)N - L), 0,
                         "How many examples are seen twice in that epoch (counting over all ranks)?"),
             "total_size - L = %zu - %zu = %zu: the padding repeats the list's own head", ns * (size_t)N, L,
             ns * (size_t)N - L);
    quiz_why(quiz_number(qz, (double)nd, 0, "With drop_last=True, how many per rank?"),
             "floor(L / N) = %zu: the list is cut to %zu, the last %zu examples are not seen this epoch", nd,
             nd * (size_t)N, L - nd * (size_t)N);
    long long idx[64];
    int rank = N - 1;
    int n = indices(L, N, rank, false, idx);
    quiz_why(quiz_list(qz, idx, n, "shuffle=False, drop_last=False: rank %d's indices, in order?", rank),
             "the list 0..%zu padded with its head (0, 1, ...) to %zu entries; rank r takes entries r, r + N, r + "
             "2N, ...",
             L - 1, ns * (size_t)N);
    int rank2 = quiz_int(r, 0, N - 1);
    n = indices(L, N, rank2, true, idx);
    quiz_why(quiz_list(qz, idx, n, "shuffle=False, drop_last=True: rank %d's indices?", rank2),
             "the list 0..%zu cut to %zu entries; rank %d takes every %d-th from %d", L - 1, nd * (size_t)N, rank2, N,
             rank2);

    static const char *const epoch[] = {
        "The permutation is drawn from seed + epoch: without set_epoch every epoch repeats epoch 0's order",
        "set_epoch re-partitions the ranks so that each sees new examples, the order staying the same",
        "It resets the padding, which otherwise grows every epoch",
        "It is needed only with drop_last=True, to choose which examples are dropped"};
    quiz_why(quiz_choice(qz, r, epoch, 4, 0, "Why must a training loop call sampler.set_epoch(e) before each epoch?"),
             "the sampler is a pure function of (seed + epoch, L, N, rank): set_epoch only changes the epoch the next "
             "list is drawn for, and it is what makes the shuffle differ between epochs (on every rank alike)");
    static const char *const pad[] = {
        "With the first entries of the (shuffled) list itself, so every index is a real example",
        "With zeros, which the loss then ignores", "With random indices drawn again from the generator",
        "With the last entries of the list, repeated"};
    quiz_why(quiz_choice(qz, r, pad, 4, 0, "With drop_last=False, what pads the list up to total_size?"),
             "indices += indices[:padding_size] (repeated whole if the padding is longer than the list): the padding "
             "is the list's own head, so a few examples count twice per epoch");
}
