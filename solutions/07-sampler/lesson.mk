# Lesson 07 — the DistributedSampler (see lessons/07-sampler/README.md)
LESSONS += 07
L07_NAME := 07-sampler
L07_SRCS := sampler.c sampler_fetch.c
L07_STUDENT := sampler.c
L07_MAINS := train_sampler.c
L07_USES := 01 03 04 05
