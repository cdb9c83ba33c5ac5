# Lesson 08 — FSDP-style sharding (see lessons/08-fsdp/README.md)
LESSONS += 08
L08_NAME := 08-fsdp
L08_SRCS := fsdp_shard.c fsdp.c zero_step.c zero.c hsdp.c
L08_STUDENT := fsdp_shard.c zero_step.c
# implicit narrowing (size_t into int, a float ceil into size_t) is an error in the student files: WNARROW in the Makefile
L08_STUDENT_CFLAGS := $(WNARROW)
L08_MAINS := train_fsdp.c fsdp_consolidate.c
L08_USES := 01 03 04
