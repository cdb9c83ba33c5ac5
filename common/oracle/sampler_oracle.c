/* sampler_oracle.c — see sampler_oracle.h. */
#include "sampler_oracle.h"

#include "mt19937.h"
#include "util.h"

size_t sampler_num_samples_ref(size_t len, int replicas, int drop_last) {
    size_t R = (size_t)replicas;
    if (drop_last && len % R != 0) return len > R ? (len - R + R - 1) / R : 0;
    return (len + R - 1) / R;
}

static void sampler_epoch(data_order_t *o, int64_t epoch) {
    size_t L = o->n_examples;
    if (o->shuffle)
        mt19937_randperm(o->perm, L, o->seed + (uint64_t)epoch);
    else
        for (size_t i = 0; i < L; i++) o->perm[i] = (uint32_t)i;
    for (size_t i = L; i < o->total; i++) o->perm[i] = o->perm[(i - L) % L]; /* pad with the head */
}

void data_order_init_sampler(data_order_t *o, uint64_t seed, size_t n_examples, size_t batch, int replicas, int shuffle,
                             int drop_last) {
    if (replicas < 1) dp_fatal("the sampler needs at least one replica");
    o->replicas = replicas;
    o->shuffle = shuffle;
    o->drop_last = drop_last;
    o->make_epoch = sampler_epoch;
    data_order_alloc(o, seed, n_examples, batch,
                     sampler_num_samples_ref(n_examples, replicas, drop_last) * (size_t)replicas);
}
