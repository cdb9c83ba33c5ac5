#!/bin/sh
# train-equiv.sh PROGRAM NRANKS LOCAL_BATCH [trainer flags...]
#
# The equivalence check every lesson shares: the lesson-01 REFERENCE trainer on one process, always
# on the CPU (the oracle), with the global batch NRANKS x LOCAL_BATCH, then the submission's PROGRAM on NRANKS ranks with
# LOCAL_BATCH each, same data, seed and flags, then grading/equiv on the two dumps.
# SUB_EXTRA: flags for the submission's run only (e.g. --stats stats.json).
# STEPS: steps of both runs (default 8). REF_EXTRA: flags for the reference run only.
# DP_DEVICE=cuda runs the submission on the GPU (tests/gpu/check.sh): GPU ranks against the CPU oracle.
set -u
prog=$1 n=$2 b=$3
shift 3
flags="--preset tiny --data $FIXTURE_TRAIN --val none --steps ${STEPS:-8} --lr 1e-2 --log-every 1000 --seed 3 $*"
# shellcheck disable=SC2086
if ! "$REF_BUILD/01-trainer/train" $flags --device cpu ${REF_EXTRA:-} --batch $((n * b)) --dump ref.st >ref.log 2>&1; then
    echo "grader error: the reference run failed:"
    cat ref.log
    exit 2
fi
if [ "$n" = 1 ]; then
    # shellcheck disable=SC2086
    "$prog" $flags ${SUB_EXTRA:-} --batch "$b" --dump sub.st >sub.log 2>&1
else
    # shellcheck disable=SC2086
    "$MPIRUN" -np "$n" "$prog" $flags ${SUB_EXTRA:-} --batch "$b" --dump sub.st >sub.log 2>&1
fi
rc=$?
if [ $rc -gt 128 ]; then
    echo "your program crashed: signal $((rc - 128)) ($(kill -l $((rc - 128)) 2>/dev/null)); its last output:"
    tail -n 20 sub.log
    exit 1
elif [ $rc != 0 ] || [ ! -f sub.st ]; then
    echo "your program failed (exit status $rc); its last output:"
    tail -n 20 sub.log
    exit 1
fi
"$EQUIV" ref.st sub.st --batch "$b" --world "$n" ${EQUIV_EXTRA:-}
