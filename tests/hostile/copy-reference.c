// lesson: 01
// base: solutions
// append: adamw.c
// score: full
// note: copied: the same code as the reference solution
// why: the reference solution handed in (a comment added): full marks, flagged as copied
