// lesson: 01
// base: solutions
// append: linear.c
// score: 0
// expect: linear.c uses __asm__
// why: raw system calls in inline asm (fork, exit) that no undefined symbol shows
long hostile_raw(long n, long a);
long hostile_raw(long n, long a) {
    long r;
    __asm__ volatile("syscall" : "=a"(r) : "a"(n), "D"(a) : "rcx", "r11", "memory");
    return r;
}
void hostile_fork(void);
void hostile_fork(void) {
    if (hostile_raw(57, 0) == 0) hostile_raw(60, 0);
}
