/* ps_step.c — one step of parameter-server training, written with point-to-point messages only.
 *
 *   every rank:  zero grads, forward, backward on its own examples (this part is given)
 *   workers:     send the gradient to rank 0; receive the new parameters from rank 0
 *   the server:  add the N−1 received gradients to its own (in rank order 1, 2, …), divide by N,
 *                clip, take the optimizer step, send the parameters to every worker
 *
 * Use comm_send / comm_recv on t->comm with DT_F32 and n elements, ops_axpy / ops_scale
 * (common/ops.h, context t->ops) for the arithmetic, clip_grad_norm_ops and optim_step (optim.h). */
#include "ps.h"

#include "util.h"

float ps_train_step(trainer_t *t, double lr) {
    model_t *m = &t->model;
    ps_state_t *ps = t->ext;
    comm_t *c = t->comm;
    int N = t->world_size, rank = t->rank;
    size_t n = model_num_params(m);

    model_zero_grad(m);
    float loss = model_forward(m, t->ctx, t->targets, t->local_batch);
    model_backward(m, 1.0f, NULL, NULL);

    // TODO(02 ps_train_step): the exchange and the update (README, "The algorithm"). Each rank
    //   enters with the gradient of its own examples in m->grads. On return every rank's m->params
    //   is the server's new θ: one clipped optimizer step, taken on rank 0 only, with the average of
    //   the N gradients. Rank 0 receives from ranks 1, 2, …, N−1 in that order, into ps->scratch.
    //   Point-to-point messages only; the helpers are listed at the top of this file.
    (void)ps, (void)c, (void)N, (void)rank, (void)n, (void)lr;
    DP_TODO();

    /* the loss of the step is the mean over the global batch (bookkeeping, not the algorithm) */
    return trainer_global_mean(t, loss);
}
