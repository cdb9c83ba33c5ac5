# Lesson 03 — naive all-reduce, and the reduction as a C loop and a CUDA kernel
LESSONS += 03
L03_NAME := 03-naive-allreduce
L03_SRCS := collective.c reduce.c naive.c
L03_CU := reduce_kernel.cu
L03_STUDENT := reduce.c reduce_kernel.cu naive.c
L03_MAINS :=
L03_USES :=
