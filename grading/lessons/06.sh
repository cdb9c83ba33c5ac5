# Lesson 06 — gradient accumulation with no_sync (50 points). Sourced by grading/grade.
A="$PROGS/06-accum/train_accum"
R="$GRADING/lessons/ddp-train.sh"
check k1 10 120 "k = 1 on 2 ranks: plain DDP still works" -- env SUB_EXTRA="--accum-steps 1" sh "$R" "$A" 2 12 0.000001 --clip 0
check k3 10 120 "k = 3 on 2 ranks: equivalent to batch N·k·b, one all-reduce per bucket per step" -- env SUB_EXTRA="--accum-steps 3" sh "$R" "$A" 2 12 0.000001 --clip 0
check k4_n3 10 120 "k = 4 on 3 ranks" -- env SUB_EXTRA="--accum-steps 4" sh "$R" "$A" 3 8 0.000001 --clip 0
check uneven 10 120 "uneven micro-batches (10 examples, k = 3: 4+3+3) weighted by their size" -- env SUB_EXTRA="--accum-steps 3" sh "$R" "$A" 2 10 0.000001 --clip 0
check clip 10 120 "k = 2 with clipping active: clip once, the accumulated gradient" -- env SUB_EXTRA="--accum-steps 2" sh "$R" "$A" 2 12 25 --clip 0.05
