# Lesson 07 — the DistributedSampler (70 points). Sourced by grading/grade.
C="$PROGS/grading/check07"
check sizes 10 60 "num_samples and total_size as PyTorch; invalid ranks refused" -- "$C" sizes
check vectors 10 60 "index lists identical to PyTorch's (lessons/pytorch-semantics.md#distributedsampler-index-lists)" -- "$C" vectors
check properties 10 60 "coverage, disjointness, head padding, strided, set_epoch, determinism" -- "$C" properties
check own 5 30 "the sampler uses PyTorch's generator and computes its own lists" -- sh "$GRADING/lessons/07-own.sh" "$SUB_OBJS/07-sampler/sampler.o"
check train2 10 120 "DDP through your sampler on 2 ranks (padded, 4 epochs) == reference over the same global order" -- sh "$GRADING/lessons/07-train.sh" 2 16 --clip 0
check train3 5 120 "3 ranks, shuffle off" -- sh "$GRADING/lessons/07-train.sh" 3 12 --clip 0 --no-shuffle
check train4 10 120 "4 ranks, drop_last" -- sh "$GRADING/lessons/07-train.sh" 4 8 --clip 0 --drop-last
check gpt 10 120 "gpt-tiny through your sampler on 2 ranks x 8 (padded, into a second epoch) == reference over the same global order" -- sh "$GRADING/lessons/07-train.sh" 2 8 --clip 0 --model gpt-tiny
