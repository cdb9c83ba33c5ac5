# Lesson 11 — topology: the hierarchical all-reduce (90 points). Sourced by grading/grade.
C="$PROGS/grading/check11"
T="$GRADING/lessons/11-topo.sh"
check one_node 10 120 "one node of 1-4 ranks (only the ring inside): exact in the algorithm's order, traffic, scaling" -- sh "$T" "$C" sweep 1x1-block 1x2-block 1x3-block 1x4-block
check one_per_node 10 120 "2 and 3 nodes of one rank (only the ring across)" -- sh "$T" "$C" sweep 2x1-block 3x1-block
check block 10 120 "2x2, 2x3, 3x2 block: shards inside, pieces across; bytes per link class through the grader's switch" -- sh "$T" "$C" sweep 2x2-block 2x3-block 3x2-block
check block_large 10 180 "2x4, 3x3, 3x4 block" -- sh "$T" "$C" sweep 2x4-block 3x3-block 3x4-block
check spread 10 180 "2x2, 2x3, 3x2, 2x4 spread (node = r % M): the sub-communicators' ranks, not world-rank arithmetic" -- sh "$T" "$C" sweep 2x2-spread 2x3-spread 3x2-spread 2x4-spread
check timing 10 120 "2x4, nvlink inside, ib-hdr across, 64 MiB modelled from the switch's messages: faster than the flat ring by the cost model's ratio +-5%" -- sh "$GRADING/lessons/ranks.sh" "$C" timing 8
check ddp 20 240 "DDP with --allreduce hier on 2x2 (block, then spread), differently initialised: equivalent to one process, one hierarchical all-reduce per bucket" -- sh "$GRADING/lessons/11-ddp.sh" 2x2 4 0.000001 --clip 0
check point_to_point 10 30 "hier.c builds on lesson 04's reduce_scatter and all_gather, no library collective" -- sh "$GRADING/lessons/11-symbols.sh" "$SUB_OBJS/11-topology/hier.o"
