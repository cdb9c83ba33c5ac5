# Lesson 00 — launching ranks, the comm seam, measuring α and β (see lessons/00-launch/README.md)
LESSONS += 00
L00_NAME := 00-launch
L00_SRCS := pingpong.c fit.c
L00_STUDENT := pingpong.c fit.c
L00_MAINS := hello.c measure.c
L00_USES :=
