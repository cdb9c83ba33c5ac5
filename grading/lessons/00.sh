# Lesson 00 — launching ranks and measuring the link (30 points). Sourced by grading/grade.
C="$PROGS/grading/check00"
check fit 10 60 "weighted least-squares fit of alpha and beta" -- "$C" fit
check pingpong 10 60 "ping-pong: traffic and one-way time under a 2 ms emulated link" -- "$MPIRUN" -np 3 "$C" pingpong
check measure 10 120 "measure recovers an emulated link (300 us, 2 Gbit/s)" -- sh "$GRADING/lessons/00-measure.sh"
