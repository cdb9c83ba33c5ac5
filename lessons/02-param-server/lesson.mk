# Lesson 02 — the parameter server (see lessons/02-param-server/README.md)
LESSONS += 02
L02_NAME := 02-param-server
L02_SRCS := ps_step.c ps.c
L02_STUDENT := ps_step.c
L02_MAINS := train_ps.c
L02_USES := 01
