# Lesson 04 — ring and tree all-reduce (110 points; the GPU ring's 10 count only where a GPU is present). Sourced by grading/grade.
C="$PROGS/grading/check04"
D="$SUB_OBJS/04-ring-allreduce"
check chunks 10 60 "chunk_range: uneven chunks, the first count % N one longer" -- "$C" chunks
check chunks_large 10 60 "chunk_range past 2^31 and 2^32 elements (size_t arithmetic), N up to 2^31 - 1" -- "$C" chunks_large
check ring1_2 10 120 "ring all-reduce on 1 and 2 ranks: exact, 2(N-1) messages, 2(N-1)/N|g| bytes" -- sh "$GRADING/lessons/ranks.sh" "$C" ring 1 2
check ring3_4 10 120 "ring all-reduce on 3 and 4 ranks" -- sh "$GRADING/lessons/ranks.sh" "$C" ring 3 4
check ring5 10 120 "ring all-reduce on 5 ranks" -- sh "$GRADING/lessons/ranks.sh" "$C" ring 5
check ring6_8 10 120 "ring all-reduce on 6, 7 and 8 ranks (buffers up to 4099 floats)" -- sh "$GRADING/lessons/ranks.sh" "$C" ring_small 6 7 8
gpu_check ring_gpu 10 120 "ring all-reduce on GPU buffers, 2 and 3 ranks sharing the GPU (skipped without one)" -- sh "$GRADING/lessons/ranks.sh" "$C" ring_gpu 2 3
check halves 10 120 "reduce_scatter and all_gather on their own (3 and 4 ranks)" -- sh "$GRADING/lessons/ranks.sh" "$C" halves 3 4
check tree1_2_3 10 120 "tree all-reduce on 1, 2, 3 ranks: exact, binomial-tree traffic" -- sh "$GRADING/lessons/ranks.sh" "$C" tree 1 2 3
check tree4_5 10 120 "tree all-reduce on 4 and 5 ranks" -- sh "$GRADING/lessons/ranks.sh" "$C" tree 4 5
check tree6_8 10 120 "tree all-reduce on 6, 7 and 8 ranks: missing children (buffers up to 4099 floats)" -- sh "$GRADING/lessons/ranks.sh" "$C" tree_small 6 7 8
check point_to_point 10 30 "ring.c and tree.c communicate with point-to-point calls only" -- sh "$GRADING/lessons/symbols.sh" "$D/ring.o" "$D/tree.o"
