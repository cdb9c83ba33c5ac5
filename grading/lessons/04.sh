# Lesson 04 — ring and tree all-reduce (110 points; the GPU ring's 10 count only where a GPU is present). Sourced by grading/grade.
C="$PROGS/grading/check04"
D="$SUB_OBJS/04-ring-allreduce"
check chunks 10 60 "chunk_range: uneven chunks, the first count % N one longer" -- "$C" chunks
check chunks_large 10 60 "chunk_range past 2^31 and 2^32 elements (size_t arithmetic), N up to 2^31 - 1" -- "$C" chunks_large
check ring1_2 10 120 "ring all-reduce on 1 and 2 ranks: exact, 2(N-1) messages, 2(N-1)/N|g| bytes" -- sh -c "\"$MPIRUN\" -np 1 \"$C\" ring && \"$MPIRUN\" -np 2 \"$C\" ring"
check ring3_4 10 120 "ring all-reduce on 3 and 4 ranks" -- sh -c "\"$MPIRUN\" -np 3 \"$C\" ring && \"$MPIRUN\" -np 4 \"$C\" ring"
check ring5 10 120 "ring all-reduce on 5 ranks" -- "$MPIRUN" -np 5 "$C" ring
check ring6_8 10 120 "ring all-reduce on 6, 7 and 8 ranks (buffers up to 4099 floats)" -- sh -c "\"$MPIRUN\" -np 6 \"$C\" ring_small && \"$MPIRUN\" -np 7 \"$C\" ring_small && \"$MPIRUN\" -np 8 \"$C\" ring_small"
check ring_gpu 10 120 "ring all-reduce on GPU buffers, 2 and 3 ranks sharing the GPU (skipped without one)" -- sh -c "\"$MPIRUN\" -np 2 \"$C\" ring_gpu && \"$MPIRUN\" -np 3 \"$C\" ring_gpu"
check halves 10 120 "reduce_scatter and all_gather on their own (3 and 4 ranks)" -- sh -c "\"$MPIRUN\" -np 3 \"$C\" halves && \"$MPIRUN\" -np 4 \"$C\" halves"
check tree1_2_3 10 120 "tree all-reduce on 1, 2, 3 ranks: exact, binomial-tree traffic" -- sh -c "\"$MPIRUN\" -np 1 \"$C\" tree && \"$MPIRUN\" -np 2 \"$C\" tree && \"$MPIRUN\" -np 3 \"$C\" tree"
check tree4_5 10 120 "tree all-reduce on 4 and 5 ranks" -- sh -c "\"$MPIRUN\" -np 4 \"$C\" tree && \"$MPIRUN\" -np 5 \"$C\" tree"
check tree6_8 10 120 "tree all-reduce on 6, 7 and 8 ranks: missing children (buffers up to 4099 floats)" -- sh -c "\"$MPIRUN\" -np 6 \"$C\" tree_small && \"$MPIRUN\" -np 7 \"$C\" tree_small && \"$MPIRUN\" -np 8 \"$C\" tree_small"
check point_to_point 10 30 "ring.c and tree.c communicate with point-to-point calls only" -- sh "$GRADING/lessons/symbols.sh" "$D/ring.o" "$D/tree.o"
