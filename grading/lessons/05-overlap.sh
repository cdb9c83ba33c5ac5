#!/bin/sh
# 05-overlap.sh: on 2 ranks, under an emulated link whose speed is set from THIS machine's measured
# backward time (so that the ring's bytes take 0.35 × backward on the link — about a third),
# the trace decides — by its structure first (grading/overlap.c): the buckets launched from the
# gradient-ready hook while backward computes, no hook waiting for its all-reduce, at least 10% of
# the all-reduce time concurrent with backward's compute (outside the hook). Those do not depend on
# the machine's load, and any of them failing is a FAIL. Then the timing: the best step's
# (compute + exposed) / max(compute, comm) <= 1.25, over both ranks (a rank's wait for the slower
# one is not exposed communication; grading/overlap.c prints the median too); when only that fails
# the machine was too busy: exit 75 (measured again; INCONCLUSIVE if it stays so).
#   prep:  the REFERENCE DDP trainer, link off, no overlap: backward time → the link (input/gbps)
#   run:   the submission's DDP trainer under that link, traced → run.json.tsv
#   judge: grading/overlap reads the trace
set -u
. "$GRADING/lessons/lib.sh"
# many thin layers: fine-grained buckets, so that little is left to send once backward ends.
# Always on the CPU, DP_DEVICE=cuda too: the trace's spans are host time, and a GPU's backward span
# times kernel launches, not the compute (an H200 measured 0.6 ms for it, and the link set from
# that is no link at all); the overlap taught here is the comm thread's, the same on both.
F="--device cpu --hidden 384 --layers 6 --batch 512 --steps 12 --log-every 1000 --val none --data $FIXTURE_TRAIN --bucket-cap-mb 0.5 --seed 5"
case ${PHASE:-run} in
prep)
    # shellcheck disable=SC2086
    "$MPIRUN" -np 2 "$REF_BUILD/05-ddp/train_ddp" $F --steps 4 --no-overlap --trace cal.json >cal.log 2>&1 ||
        { echo "grader error: the calibration run failed:"; tail -n 15 cal.log; exit 2; }
    bwd_ms=$(awk -F '\t' '$1 == 0 && $5 == "backward" { s += $4 - $3; n++ } END { if (n) printf "%.3f", s / n }' cal.json.tsv)
    params=$(sed -n 's/^[^:]*: \([0-9]*\) parameters.*/\1/p' cal.log | head -n 1)
    # the link: α = 100 µs, β such that the ring's bytes (|g| per rank for N = 2) take 0.35 × backward
    mkdir -p input
    awk -v b="$bwd_ms" -v p="$params" 'BEGIN { printf "%.3f\n", 8 * 4 * p / (0.35 * b * 1e-3) / 1e9 }' >input/gbps
    echo "backward $bwd_ms ms, $params parameters: emulated link alpha 100 us, beta $(cat input/gbps) Gbit/s" >input/link.txt
    ;;
run)
    # shellcheck disable=SC2086
    launch 2 run.log "$PROGS/05-ddp/train_ddp" $F --link-latency-us 100 --link-gbps "$(cat input/gbps)" --trace run.json
    ;;
judge)
    cat input/link.txt
    launched run.log "your DDP trainer" || exit 1
    exec "$OVERLAP" "$RUN_DIR/run.json.tsv" --skip 2 --max-ratio 1.25 --min-concurrent 0.1 --ranks 2 --steps 12
    ;;
esac
