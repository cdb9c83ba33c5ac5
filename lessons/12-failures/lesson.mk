# Lesson 12 — failures: a restart on fewer ranks that is the run it would have been (see lessons/12-failures/README.md)
LESSONS += 12
L12_NAME := 12-failures
L12_SRCS := elastic_plan.c young_daly.c elastic_train.c
L12_STUDENT := elastic_plan.c young_daly.c
# implicit narrowing (size_t into int, a float ceil into size_t) is an error in the student files: WNARROW in the Makefile
L12_STUDENT_CFLAGS := $(WNARROW)
L12_MAINS := train_elastic.c
L12_USES := 01 03 04 05 07 08
# the failure injection and the launcher (lessons/12-failures/failures.mk, when present)
-include lessons/12-failures/failures.mk
