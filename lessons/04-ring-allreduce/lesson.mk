# Lesson 04 — ring and tree all-reduce (see lessons/04-ring-allreduce/README.md)
LESSONS += 04
L04_NAME := 04-ring-allreduce
L04_SRCS := ring.c tree.c ring_pipelined.c
L04_STUDENT := ring.c tree.c
# implicit narrowing (size_t into int, a float ceil into size_t) is an error in the student files: WNARROW in the Makefile
L04_STUDENT_CFLAGS := $(WNARROW)
L04_MAINS := bench_allreduce.c
L04_USES := 03
