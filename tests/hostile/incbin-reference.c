// lesson: 01
// base: skeleton
// append: linear.c
// score: 0
// note: uses .incbin
// why: embeds another lesson's reference program (which holds lesson 01's reference code) with the assembler, to run it
__asm__(".section .rodata\n.incbin \"/work/main/build/solutions/02-param-server/train_ps\"\n.previous");
