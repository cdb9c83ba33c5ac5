// lesson: 01
// base: solutions
// append: linear.c
// score: full
// note: includes files from outside the submission
// why: an outside file reached through ../ from the submission's own directory
#include "../../../../../../../../dev/null"
