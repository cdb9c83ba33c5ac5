// lesson: 01
// base: solutions
// file: linear.c
// score: 0
// why: the compiler is made to read an endless file: its memory and time are limited like any run
#include "/dev/zero"
