/* ps.c — the parameter server's set-up: a receive buffer on the server; the workers drop the
 * optimizer state the shared trainer allocated, since only the server updates. */
#include "ps.h"

#include "util.h"

#include <stdlib.h>

void ps_init(trainer_t *t, ps_state_t *ps) {
    size_t n = model_num_params(&t->model);
    /* bf16: the server steps its float32 master on the float32 sum of the workers' bf16-rounded
     * gradients, as DDP's fp32 reduction does; the workers round the master they receive before
     * every forward (mixed_precision.h). fp16's loss scale moves with the server's optimizer: the
     * workers would need it back every step, and the student's protocol has no message for it. */
    if (t->mp && t->mp->dtype != MP_BF16)
        dp_fatal("--mixed-precision %s: train_ps takes bf16 only (the fp16 loss scale lives with the server's "
                 "optimizer, and the workers never hear of it)",
                 t->cfg.mixed_precision);
    t->mixed_precision_ok = true;
    ps->scratch = NULL;
    if (t->rank == 0) {
        ps->scratch = ops_alloc(t->ops, n);
        mem_add(&t->mem, MEM_COMM, n * sizeof(float));
    } else {
        size_t bytes = n * sizeof(float) * (t->optim.v ? 2 : 1);
        optim_free(&t->optim);
        mem_sub(&t->mem, MEM_OPTIM, bytes);
    }
    t->ext = ps;
}

void ps_free(trainer_t *t, ps_state_t *ps) {
    if (ps->scratch) ops_free(t->ops, ps->scratch);
    ps->scratch = NULL;
}
