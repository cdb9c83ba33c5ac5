/* ps.h — lesson 02: the parameter server.
 *
 *                 ┌────────────── rank 0: the server ──────────────┐
 *                 │ parameters θ, AdamW state (m, v)                │
 *                 │ 1. own gradient g0                              │
 *                 │ 2. receive g1 … g(N−1)      ◄── (N−1)·|g| in    │
 *                 │ 3. ḡ = (g0 + … + g(N−1)) / N, clip, AdamW step  │
 *                 │ 4. send θ to every worker   ──► (N−1)·|θ| out   │
 *                 └─────────────────────────────────────────────────┘
 *                     ▲ g1   │ θ        ▲ g2   │ θ            ...
 *                     │      ▼          │      ▼
 *                  rank 1 (worker)   rank 2 (worker)
 *
 * Every rank, the server included, computes the gradient of its share of the global batch; only the
 * server keeps optimizer state and updates. */
#ifndef DPC_PS_H
#define DPC_PS_H

#include "trainer.h"

typedef struct {
    float *scratch; /* the server's receive buffer: one gradient */
} ps_state_t;

/* Set up the server's buffer and drop the workers' optimizer state (they never update). */
void ps_init(trainer_t *t, ps_state_t *ps);
void ps_free(trainer_t *t, ps_state_t *ps);

/* One training step of the parameter server (t->ext points at the ps_state_t). */
float ps_train_step(trainer_t *t, double lr);

#endif
