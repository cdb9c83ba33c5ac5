/* sampler_fetch.c — feed the trainer from the sampler: DataLoader(batch_size=B, drop_last=True) over
 * a DistributedSampler on each rank. Epoch e covers num_samples / B steps; at its first step the
 * sampler is told the epoch (set_epoch) and draws its list. */
#include "sampler_fetch.h"

#include "sampler_oracle.h"
#include "util.h"

#include <stdlib.h>

static void fetch(trainer_t *t, int64_t step, int32_t *ctx, int32_t *targets) {
    sampler_state_t *st = t->fetch_ctx;
    size_t B = (size_t)t->local_batch;
    if (st->steps_per_epoch == 0)
        dp_fatal("the sampler gives %zu examples per rank per epoch, fewer than one batch of %zu",
                 st->sampler.num_samples, B);
    int64_t epoch = step / (int64_t)st->steps_per_epoch;
    if (epoch != st->epoch) {
        sampler_set_epoch(&st->sampler, epoch);
        sampler_indices(&st->sampler, st->indices);
        st->epoch = epoch;
    }
    const uint32_t *idx = st->indices + (size_t)(step % (int64_t)st->steps_per_epoch) * B;
    /* the student's indices pick examples: one past the dataset would read past its tokens (B tests a
     * step, nothing per token) */
    for (size_t i = 0; i < B; i++)
        if (idx[i] >= st->len)
            dp_fatal("sampler_indices gave index %u (position %zu of this rank's list, epoch %lld), but the dataset "
                     "has %zu examples, 0..%zu: every index must be < dataset_len",
                     idx[i], (size_t)(step % (int64_t)st->steps_per_epoch) * B + i, (long long)epoch, st->len,
                     st->len - 1);
    dataset_gather(&t->train, t->cfg.context, idx, B, ctx, targets);
}

void sampler_attach(trainer_t *t, sampler_state_t *st) {
    size_t L = dataset_num_examples(&t->train, t->cfg.context);
    int replicas = t->cfg.sampler_replicas ? t->cfg.sampler_replicas : t->world_size;
    if (replicas != t->world_size) dp_fatal("--sampler-replicas %d but the job has %d ranks", replicas, t->world_size);
    if (sampler_init(&st->sampler, L, t->world_size, t->rank, !t->cfg.no_shuffle, t->cfg.seed, t->cfg.drop_last) != 0)
        dp_fatal("DistributedSampler: invalid rank %d for %d replicas", t->rank, t->world_size);
    /* the list is sized from the student's sampler_init: a num_samples larger than the list (or sizes
     * wrapped below 0) would make every epoch read past it */
    size_t room = st->sampler.total_size > L ? st->sampler.total_size : L;
    if (st->sampler.num_samples > room || st->sampler.total_size > ((size_t)1 << 40))
        dp_fatal("sampler_init: num_samples %zu, total_size %zu for a dataset of %zu examples on %d ranks: "
                 "num_samples must be total_size / N (and total_size about the dataset's length)",
                 st->sampler.num_samples, st->sampler.total_size, L, t->world_size);
    st->indices = dp_malloc(room * sizeof(uint32_t) + 4);
    st->len = L;
    st->steps_per_epoch = st->sampler.num_samples / (size_t)t->local_batch;
    st->epoch = -1;
    /* t->order names the order the checkpoints record (data_replicas, epoch, consumed): this one, so
     * that lesson 12's elastic trainer can continue a run of this trainer on another world size */
    data_order_free(&t->order);
    data_order_init_sampler(&t->order, t->cfg.seed, L, (size_t)t->local_batch * (size_t)t->world_size, t->world_size,
                            !t->cfg.no_shuffle, t->cfg.drop_last);
    t->fetch = fetch;
    t->fetch_ctx = st;
}

void sampler_detach(trainer_t *t, sampler_state_t *st) {
    free(st->indices);
    st->indices = NULL;
    t->fetch = NULL;
}
