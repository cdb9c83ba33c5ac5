# Lesson 10 — the limits of data parallelism (see lessons/10-limits/README.md)
LESSONS += 10
L10_NAME := 10-limits
# stragglers: the student's expected-maximum model, the report tool and the predictor (given)
L10_SRCS := straggler_model.c
L10_STUDENT := straggler_model.c
L10_MAINS := straggler_report.c straggler_predict.c
L10_USES :=
