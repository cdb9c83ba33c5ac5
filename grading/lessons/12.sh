# Lesson 12 — failures: elastic restarts (100 points). Sourced by grading/grade.
C="$PROGS/grading/check12"
R="$GRADING/lessons/12-restart.sh"
check plan 20 60 "elastic_plan against the oracle: 1-8 ranks, B divisible and not, caps forcing uneven micro-batches, weights b_i·N/B" -- "$C" plan
check resume 15 60 "resume_position: mid-epoch and epoch-boundary checkpoints, drop_last on and off, 1-8 new ranks; sampler epoch restored" -- "$C" resume
check once 10 60 "a restart on N' ranks trains every position of the interrupted epoch exactly once (the grader's count)" -- "$C" once
check young_daly 10 30 "sqrt(2·C·MTBF) and the lost work per failure against their closed forms" -- "$C" young_daly
check restart 15 120 "DDP 3 ranks saved mid-epoch at step 10, restarted on 2: equivalent to one uninterrupted process" -- sh "$R" 3 2 10 12 4 --clip 0
check restart_uneven 10 120 "3 ranks to step 13, then 5 (B=12: slices 3 3 2 2 2, micro-batches of 2, drop_last): equivalent" -- sh "$R" 3 5 13 12 2 --clip 0 --drop-last
check restart_boundary 10 120 "4 ranks to the end of epoch 0 (step 7), then 3 (B=16, cap 3: uneven micro-batches, no shuffle): equivalent" -- sh "$R" 4 3 7 16 3 --clip 0 --no-shuffle
check fsdp_restart 10 120 "FSDP (lesson 08): the reference on 4 ranks to step 10, consolidated, then yours on 3 (B=12): equivalent to one uninterrupted process" -- sh "$GRADING/lessons/12-fsdp.sh" 4 3 10 12
