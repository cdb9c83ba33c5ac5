# Lesson 09 — the scaling lab (see lessons/09-scaling/README.md)
LESSONS += 09
L09_NAME := 09-scaling
L09_SRCS := scaling.c
L09_STUDENT := scaling.c
L09_MAINS := scaling_model.c
L09_USES :=
