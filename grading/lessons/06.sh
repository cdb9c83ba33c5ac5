# Lesson 06 — gradient accumulation with no_sync (60 points). Sourced by grading/grade.
# 06-train.sh PROGRAM NRANKS BATCH CAP K: equivalence, traffic, and from the trace k forward passes
# (chunk_range sizes of BATCH) and k backward passes
# per optimizer step with the all-reduces in the last one.
A="$PROGS/06-accum/train_accum"
R="$GRADING/lessons/06-train.sh"
check k1 10 120 "k = 1 on 2 ranks: plain DDP still works" -- sh "$R" "$A" 2 12 0.000001 1 --clip 0
check k3 10 120 "k = 3 on 2 ranks: equivalent to batch N·k·b, 3 backward passes and one all-reduce per bucket per step" -- sh "$R" "$A" 2 12 0.000001 3 --clip 0
check k4_n3 10 120 "k = 4 on 3 ranks" -- sh "$R" "$A" 3 8 0.000001 4 --clip 0
check uneven 10 120 "uneven micro-batches (10 examples, k = 3: 4+3+3) weighted by their size" -- sh "$R" "$A" 2 10 0.000001 3 --clip 0
check clip 10 120 "k = 2 with clipping active: clip once, the accumulated gradient" -- sh "$R" "$A" 2 12 25 2 --clip 0.05
check gpt 10 120 "gpt-tiny, k = 3 on 2 ranks (5 sequences each: 2+2+1), buckets of several tensors: equivalent, k passes, one all-reduce per bucket per step" -- sh "$R" "$A" 2 5 0.005 3 --model gpt-tiny --clip 0
