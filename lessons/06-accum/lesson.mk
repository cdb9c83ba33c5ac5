# Lesson 06 — gradient accumulation with no_sync (see lessons/06-accum/README.md)
LESSONS += 06
L06_NAME := 06-accum
L06_SRCS := accum_step.c
L06_STUDENT := accum_step.c
L06_MAINS := train_accum.c
L06_USES := 01 03 04 05
