# Lesson 03 — naive all-reduce (65 points; the CUDA kernel's 10 count only where a GPU is present).
C="$PROGS/grading/check03"
D="$SUB_OBJS/03-naive-allreduce"
check reduce_cpu 10 60 "reduce_add_cpu: exact, no writes outside the range" -- "$C" reduce_cpu
# n = 2^32 + 1001 on 16 GiB views of a few MiB: 36 GiB of address space, not of memory (as_check)
as_check 36864 index64 5 90 "reduce_add_cpu past 2^32 elements: a 64-bit index" -- "$PROGS/grading/check03_index" index64
gpu_check reduce_kernel 10 120 "reduce_add_kernel on the GPU: exact, block-size edges" -- "$C" reduce_kernel
check ranks1_2 10 120 "naive all-reduce on 1 and 2 ranks: exact, root traffic 2(N-1)|g|" -- sh "$GRADING/lessons/ranks.sh" "$C" allreduce 1 2
check ranks3 5 120 "naive all-reduce, 3 ranks" -- sh "$GRADING/lessons/ranks.sh" "$C" allreduce 3
check ranks4 5 120 "naive all-reduce, 4 ranks" -- sh "$GRADING/lessons/ranks.sh" "$C" allreduce 4
check ranks5 10 120 "naive all-reduce, 5 ranks" -- sh "$GRADING/lessons/ranks.sh" "$C" allreduce 5
check point_to_point 10 30 "naive.c communicates with point-to-point calls only" -- sh "$GRADING/lessons/symbols.sh" "$D/naive.o"
