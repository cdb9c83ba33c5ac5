// lesson: 01
// base: solutions
// append: linear.c
// score: 0
// expect: line marker
// why: a line marker makes the lines after it claim to come from a system header, where asm is everywhere, to hide a raw system call from a vetting of the preprocessed text
# 1 "/usr/include/x86_64-linux-gnu/bits/syscall.h" 1 3 4
long hostile_raw(long n);
long hostile_raw(long n) {
    long r;
    __asm__ volatile("syscall" : "=a"(r) : "a"(n) : "rcx", "r11", "memory");
    return r;
}
