#!/bin/sh
# train-equiv.sh PROGRAM NRANKS LOCAL_BATCH [trainer flags...]
#
# The equivalence check every lesson shares.
#   run:   the submission's PROGRAM on NRANKS ranks with LOCAL_BATCH each → sub.st (its dump)
#   judge: the lesson-01 REFERENCE trainer on one process, always on the CPU (the oracle), with the
#          global batch NRANKS x LOCAL_BATCH, same data, seed and flags → ref.st (and the same in two
#          other summation orders → spreadK.st); grading/equiv compares the dumps
# SUB_EXTRA: flags for the submission's run only (e.g. --stats stats.json).
# STEPS: steps of both runs (default 8). REF_EXTRA: flags for the reference run only.
# DP_DEVICE=cuda runs the submission on the GPU (tests/gpu/check.sh): GPU ranks against the CPU oracle.
set -u
. "$GRADING/lessons/lib.sh"
prog=$1 n=$2 b=$3
shift 3
flags="--preset tiny --data $FIXTURE_TRAIN --val none --steps ${STEPS:-8} --lr 1e-2 --log-every 1000 --seed 3 $*"
case ${PHASE:-run} in
run)
    # shellcheck disable=SC2086
    launch "$n" sub.log "$prog" $flags ${SUB_EXTRA:-} --batch "$b" --dump sub.st
    ;;
judge)
    # a run that failed or wrote no dump is decided before the reference runs: they would change
    # nothing, and a class's crashing or empty submissions (and the seeded bugs) skip their cost
    launched sub.log "your program" || exit 1
    [ -f "$RUN_DIR/sub.st" ] || { echo "your program ended well but wrote no dump (--dump sub.st)"; exit 1; }
    # shellcheck disable=SC2086
    if ! "$REF_BUILD/01-trainer/train" $flags --device cpu ${REF_EXTRA:-} --batch $((n * b)) --dump ref.st >ref.log 2>&1; then
        echo "grader error: the reference run failed:"
        cat ref.log
        exit 2
    fi
    # The reference again in other correct summation orders (spread.sh): equiv widens each
    # parameter's tolerance by how far they land from ref.st, where training amplifies rounding.
    # shellcheck disable=SC2086
    spread=$(sh "$GRADING/lessons/spread.sh" . $((n * b)) $flags --device cpu ${REF_EXTRA:-}) || { echo "$spread"; exit 2; }
    # equiv needs the runs' optimizer to tell AdamW's amplified rounding from an error (see equiv.c),
    # and the clip threshold to say where a clipped gradient went wrong:
    # the last value of each of these flags, as the trainers read them
    opt=""
    for o in lr optimizer beta1 beta2 eps clip; do
        v=$(echo " $flags " | sed -n "s/.* --$o \([^ ]*\) .*/\1/p")
        [ -n "$v" ] && opt="$opt --$o $v"
    done
    # shellcheck disable=SC2086
    "$EQUIV" ref.st "$RUN_DIR/sub.st" --batch "$b" --world "$n" $opt $spread ${EQUIV_EXTRA:-}
    ;;
esac
