# Lesson 01 — the single-device trainer (see lessons/01-trainer/README.md)
LESSONS += 01
L01_NAME := 01-trainer
L01_SRCS := linear.c xent.c adamw.c train_step.c optim.c model.c trainer.c loader.c checkpoint.c sample.c device_step.c loss_csv.c gpt_layers.c gpt.c gpt_ops.c grad_scaler.c mixed_precision.c
L01_CU := kernels.cu gpt_kernels.cu
L01_STUDENT := linear.c xent.c adamw.c train_step.c device_step.c kernels.cu
L01_MAINS := train.c bench_gpt.c bench_mlp.c
L01_USES :=
