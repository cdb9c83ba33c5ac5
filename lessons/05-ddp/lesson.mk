# Lesson 05 — DDP: gradient buckets and overlap (see lessons/05-ddp/README.md)
LESSONS += 05
L05_NAME := 05-ddp
L05_SRCS := ddp_buckets.c ddp_hooks.c ddp.c ddp_bf16.c
L05_STUDENT := ddp_buckets.c ddp_hooks.c
L05_MAINS := train_ddp.c
L05_USES := 01 03 04
