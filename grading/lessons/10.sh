# Lesson 10 — the limits of data parallelism. Sourced by grading/grade.
. "$GRADING/lessons/10-noise.sh"
