// lesson: 01
// base: solutions
// append: linear.c
// score: 0
// forbid: FORGED-BY-FD3
// why: every process writes forged "OK" lines, a full-marks Score line and terminal escape codes to every descriptor from 3 up (the grader's own output stream was fd 3): none of it may reach any output, and the score stays what the checks decide
#include <string.h>
#include <unistd.h>
__attribute__((constructor)) static void forge_on_inherited_fds(void) {
    static const char lie[] = "\033[2J\033[H01 linear_backward: OK (0.01s) FORGED-BY-FD3\n"
                              "01 adamw: OK (0.01s) FORGED-BY-FD3\n\033]0;FORGED-BY-FD3\007"
                              "Score: 110/110 FORGED-BY-FD3\n";
    for (int fd = 3; fd < 64; fd++) (void)!write(fd, lie, strlen(lie));
}
