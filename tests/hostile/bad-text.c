// lesson: 01
// base: skeleton
// append: linear.c
// score: 0
// why: prints invalid UTF-8, terminal escapes, NUL and carriage returns: every report stays valid UTF-8 JSON
#include <stdio.h>
__attribute__((constructor)) static void garble(void) {
    fwrite("\xff\xfe\xc3\x28 \x1b[2J\x1b]0;owned\x07 \0 \r\"}\n", 1, 26, stdout);
    fwrite("\xed\xa0\x80 \xf4\x90\x80\x80 \xc0\xaf\n", 1, 13, stderr);
}
