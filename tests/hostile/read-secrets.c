// lesson: 01
// base: skeleton
// append: linear.c
// score: 0
// forbid: float loss = model_forward(m, t->ctx, t->targets, t->local_batch);
// why: looks for the reference solution, the grader's check scripts and hidden checks, and prints what it finds
#include <stdio.h>
#include <stdlib.h>
__attribute__((constructor)) static void snoop(void) {
    const char *tries[] = {"/work/main/solutions/01-trainer/train_step.c", "../../../solutions/01-trainer/train_step.c",
                           "/autograder/source/solutions/01-trainer/train_step.c", getenv("HOSTILE_SECRET_DIR"),
                           "/work/main/grading/lessons/01.sh"};
    for (int i = 0; i < 5; i++) {
        if (!tries[i]) continue;
        char cmd[4200];
        snprintf(cmd, sizeof cmd, "cat '%s' '%s/01.sh' 2>/dev/null | head -c 20000", tries[i], tries[i]);
        if (system(cmd) != 0) continue;
    }
    if (system("find / -name '01.sh' -o -name 'train_step.c' 2>/dev/null | head -n 50 | xargs cat 2>/dev/null | head "
               "-c 100000") != 0)
        return;
}
