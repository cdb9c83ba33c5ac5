# Lesson 01 — the single-device trainer (130 points; the GPU twins' 20 count only where a GPU is
# present: elsewhere that check is SKIPPED, worth 0/0). Sourced by grading/grade. The *_gpt checks
# run the student's Linear, cross-entropy, AdamW and train_step inside gpt.c's transformer.
C="$PROGS/grading/check01"
T="$PROGS/01-trainer/train"
check linear_backward 20 60 "Linear backward: dX, dW, db vs float64 oracle" -- "$C" linear_backward
check xent_backward 15 60 "softmax cross-entropy backward" -- "$C" xent_backward
check adamw 20 60 "AdamW step exactly as torch.optim.AdamW" -- "$C" adamw
check gradcheck 10 60 "whole-model gradients vs float64 finite differences" -- "$C" gradcheck
check gradcheck_gpt 10 60 "gpt-tiny: loss and every tensor's gradient vs float64 finite differences" -- "$C" gradcheck_gpt
check train 15 120 "train_step: 8 steps equivalent to the reference trainer" -- sh "$GRADING/lessons/train-equiv.sh" "$T" 1 16 --clip 0
check train_clip 10 120 "train_step with gradient clipping active" -- sh "$GRADING/lessons/train-equiv.sh" "$T" 1 16 --clip 0.05
check train_gpt 10 120 "train_step on gpt-tiny: 8 steps equivalent to the reference trainer" -- sh "$GRADING/lessons/train-equiv.sh" "$T" 1 8 --model gpt-tiny --clip 0
gpu_check device 20 120 "GPU twins (kernels.cu, device_step.c) vs the CPU functions" -- "$C" device
