// lesson: 01
// base: solutions
// append: linear.c
// score: 0
// expect: linear.c defines clock_gettime
// why: a strong clock_gettime of its own replaces the C library's in the whole program: every timing the run reports is whatever it says
#include <time.h>
int clock_gettime(int clk, struct timespec *ts);
int clock_gettime(int clk, struct timespec *ts) {
    static long long hostile_ns;
    (void)clk;
    hostile_ns += 1000000;
    ts->tv_sec = (time_t)(hostile_ns / 1000000000);
    ts->tv_nsec = (long)(hostile_ns % 1000000000);
    return 0;
}
