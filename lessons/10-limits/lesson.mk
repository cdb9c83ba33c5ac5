# Lesson 10 — the limits of data parallelism (see lessons/10-limits/README.md)
LESSONS += 10
L10_NAME := 10-limits
# stragglers: the student's expected-maximum model, the report tool and the predictor (given);
# the noise scale: the student's estimator, its place in DDP (given) and train_noise (lesson 05's DDP)
L10_SRCS := straggler_model.c noise_scale.c noise_ddp.c
L10_STUDENT := straggler_model.c noise_scale.c
L10_MAINS := straggler_report.c straggler_predict.c train_noise.c
L10_USES := 01 03 04 05
