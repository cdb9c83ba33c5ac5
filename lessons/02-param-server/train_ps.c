/* train_ps — lesson 02's program: data-parallel training through a parameter server.
 *
 *   grading/mpirun -np 4 build/lessons/02-param-server/train_ps --batch 16 --stats out/ps.json
 *
 * --batch is per rank: 4 ranks x 16 see the same examples per step as `train --batch 64`. */
#include "ps.h"

int main(int argc, char **argv) {
    trainer_t t;
    ps_state_t ps;
    trainer_init(&t, argc, argv, NULL, "train_ps [options]  — parameter-server training (lesson 02), under mpirun");
    ps_init(&t, &ps);
    trainer_run(&t, ps_train_step);
    ps_free(&t, &ps);
    trainer_finish(&t);
    return 0;
}
