// lesson: 01
// base: solutions
// append: linear.c
// score: 0
// expect: linear.c uses .incbin, __attribute__ section
// why: no asm keyword at all: a section attribute's name reaches the assembler verbatim, so a newline in it adds an .incbin (split in two strings) of a seeded bug of lesson 04
__attribute__((used,
               section(".rodata.hostile,\"a\"\n.inc"
                       "bin \"tests/bugs/04/direct-not-ring.patch\"\n.section .rodata.hostile2"))) static const char
    hostile_pad[1] = {0};
