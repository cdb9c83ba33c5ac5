// lesson: 01
// base: solutions
// append: linear.c
// score: 0
// expect: linear.c uses .incbin, __asm__
// why: .incbin split across two strings (".inc" "bin") embeds a seeded bug of lesson 04, a patch against its reference, read from tests/ during the build
__asm__(".section .rodata\n.globl hostile_patch\nhostile_patch:\n.inc"
        "bin \"tests/bugs/04/direct-not-ring.patch\"\n.byte 0\n.previous\n");
