# Lesson 11 — topology: the hierarchical all-reduce (see lessons/11-topology/README.md)
LESSONS += 11
L11_NAME := 11-topology
L11_SRCS := hier.c hier_setup.c
L11_STUDENT := hier.c
# implicit narrowing (size_t into int, a float ceil into size_t) is an error in the student files: WNARROW in the Makefile
L11_STUDENT_CFLAGS := $(WNARROW)
L11_MAINS := train_ddp.c bench_topology.c
L11_USES := 01 03 04 05
