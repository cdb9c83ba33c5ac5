# Lesson 10 — the limits of data parallelism (see lessons/10-limits/README.md)
LESSONS += 10
L10_NAME := 10-limits
L10_SRCS := noise_scale.c noise_ddp.c
L10_STUDENT := noise_scale.c
L10_MAINS := train_noise.c
L10_USES := 01 03 04 05
