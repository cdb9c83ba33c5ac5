#!/bin/sh
# 12-restart.sh N1 N2 STOP B CAP [trainer flags...]: the end-to-end restart.
#   run:   your train_elastic on N1 ranks, global batch B, at most CAP examples a forward, saving a
#          checkpoint at step STOP (the failure: the job is taken to have died after it; it runs on to
#          the end only because the learning-rate schedule is the whole run's); then on N2 ranks from
#          that checkpoint to the end → sub.st (its dump)
#   judge: the lesson-01 REFERENCE trainer, one process, uninterrupted, over the DistributedSampler
#          order of N1 replicas with the global batch B → ref.st; equiv compares the steps after STOP
#          (--ref-offset) and the final parameters.
# The evidence is the dump of the second launch against the judge's own run: the checkpoint passes
# between the two launches inside the run, and whatever is wrong in it shows in the parameters.
set -u
. "$GRADING/lessons/lib.sh"
n1=$1 n2=$2 stop=$3 b=$4 cap=$5
shift 5
prog=$PROGS/12-failures/train_elastic
flags="--preset tiny --data $ROOT/datasets/fixtures/micro-train.tok --val none --steps ${STEPS:-24} --lr 1e-2 --log-every 1000 --seed 3 $*"
case ${PHASE:-run} in
prep) exit 0 ;;
run)
    # shellcheck disable=SC2086
    launch "$n1" first.log "$prog" $flags --batch-global "$b" --micro-cap "$cap" --save ck.safetensors --save-every "$stop"
    [ "$(cat first.log.rc)" = 0 ] || exit 0
    # shellcheck disable=SC2086
    launch "$n2" second.log "$prog" $flags --batch-global "$b" --micro-cap "$cap" --resume "ck.step$stop.safetensors" --dump sub.st
    ;;
judge)
    launched first.log "the first launch ($n1 ranks, saving at step $stop)" || exit 1
    launched second.log "the restart ($n2 ranks from ck.step$stop.safetensors)" || exit 1
    # shellcheck disable=SC2086
    restart_judge "$n1" "$stop" "$b" "$n2" "$n1 ranks to step $stop, then $n2 ranks (global batch $b, micro-batches of at most $cap)" $flags
    ;;
esac
