# Lesson 02 — the parameter server (60 points). Sourced by grading/grade.
check ranks1 10 120 "1 rank: equivalent to the reference, no traffic" -- sh "$GRADING/lessons/02-train.sh" 1 --clip 0
check ranks2 10 120 "2 ranks: equivalent, server traffic (N-1)|g| in and (N-1)|θ| out" -- sh "$GRADING/lessons/02-train.sh" 2 --clip 0
check ranks3 10 120 "3 ranks: equivalent, parameter-server traffic" -- sh "$GRADING/lessons/02-train.sh" 3 --clip 0
check ranks4 10 120 "4 ranks: equivalent, parameter-server traffic" -- sh "$GRADING/lessons/02-train.sh" 4 --clip 0
check clip 10 120 "3 ranks with clipping active: clip the AVERAGED gradient" -- sh "$GRADING/lessons/02-train.sh" 3 --clip 0.05
check gpt 10 120 "gpt-tiny on 3 ranks: equivalent, parameter-server traffic from its parameter count" -- sh "$GRADING/lessons/02-train.sh" 3 --model gpt-tiny --clip 0
