# Lesson 09 — the scaling lab (40 points). Sourced by grading/grade.
check model 20 60 "the cost model on stated cases (Amdahl, ring, step, prediction, efficiency)" -- "$PROGS/grading/check09" model
check predict 20 240 "predictions equal the reference model's (overlap off and on) and within 30% of measured DDP runs (1, 2, 4 ranks, nvlink)" -- sh "$GRADING/lessons/09-predict.sh"
