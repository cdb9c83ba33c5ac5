# Lesson 00 — launching ranks and measuring the link (30 points). Sourced by grading/grade.
C="$PROGS/grading/check00"
check fit 10 60 "weighted least-squares fit of alpha and beta" -- "$C" fit
check pingpong 10 60 "ping-pong: traffic and one-way time under a 50 ms emulated link (fastest of 3 calls)" -- "$MPIRUN" -np 3 "$C" pingpong
check measure 10 240 "measure recovers an emulated link (300 us, 2 Gbit/s): the best of 4 fits, beside the reference's" -- sh "$GRADING/lessons/00-measure.sh"
