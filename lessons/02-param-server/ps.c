/* ps.c — the parameter server's set-up: a receive buffer on the server; the workers drop the
 * optimizer state the shared trainer allocated, since only the server updates. */
#include "ps.h"

#include "util.h"

#include <stdlib.h>

void ps_init(trainer_t *t, ps_state_t *ps) {
    size_t n = model_num_params(&t->model);
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
