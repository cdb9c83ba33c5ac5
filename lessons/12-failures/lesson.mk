# Lesson 12 — failures: a restart on fewer ranks that is the run it would have been (see lessons/12-failures/README.md)
LESSONS += 12
L12_NAME := 12-failures
L12_SRCS := elastic_plan.c young_daly.c elastic_train.c
L12_STUDENT := elastic_plan.c young_daly.c
# implicit narrowing (size_t into int, a float ceil into size_t) is an error in the student files: WNARROW in the Makefile
L12_STUDENT_CFLAGS := $(WNARROW)
# train_elastic: the lesson's trainer; elastic_run: the elastic launcher (torchrun's role, given)
L12_MAINS := train_elastic.c elastic_run.c
L12_USES := 01 03 04 05 07 08
