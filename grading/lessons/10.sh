# Lesson 10 — the limits of data parallelism (80 points). Sourced by grading/grade.
# stragglers (40 points)
check model 20 60 "the straggler model on stated cases (H_N, E[max] of exponentials and log-normals against closed forms and the grader's quadrature, the log-normal's μ, the step under jitter)" -- "$PROGS/grading/check10" model
check stragglers 20 240 "E[max] equals the reference model's, and follows DDP's measured step under seeded jitter on 1, 2, 4, 8 ranks" -- sh "$GRADING/lessons/10-stragglers.sh"
# the gradient noise scale (40 points)
. "$GRADING/lessons/10-noise.sh"
