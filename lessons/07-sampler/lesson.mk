# Lesson 07 — the DistributedSampler (see lessons/07-sampler/README.md)
LESSONS += 07
L07_NAME := 07-sampler
L07_SRCS := sampler.c sampler_fetch.c
L07_STUDENT := sampler.c
# implicit narrowing (size_t into int, a float ceil into size_t) is an error in the student files: WNARROW in the Makefile
L07_STUDENT_CFLAGS := $(WNARROW)
L07_MAINS := train_sampler.c
L07_USES := 01 03 04 05
