// lesson: 01
// base: solutions
// append: xent.c
// score: full
// note: includes files from outside the submission
// why: a student file includes a file that is not part of the submission (here an empty one)
#include "/dev/null"
