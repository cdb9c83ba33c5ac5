#!/bin/sh
# 12-fsdp.sh N1 N2 STOP B: a restart under lesson 08's FSDP.
#   prep:  the REFERENCE train_elastic --fsdp on N1 ranks (global batch B) saves shards at step STOP
#          (the job that died), and lesson 08's fsdp_consolidate makes the full checkpoint → input/
#          (the run cannot reach the reference's programs, and the shards need one of them)
#   run:   your train_elastic --fsdp on N2 ranks from that checkpoint to the end → sub.st
#   judge: the lesson-01 REFERENCE trainer, one process, uninterrupted, over the DistributedSampler
#          order of N1 replicas → ref.st; equiv compares the steps after STOP and the final parameters.
set -u
. "$GRADING/lessons/lib.sh"
n1=$1 n2=$2 stop=$3 b=$4
flags="--preset tiny --data $ROOT/datasets/fixtures/micro-train.tok --val none --steps 20 --lr 1e-2 --log-every 1000 --seed 3 --clip 0"
case ${PHASE:-run} in
prep)
    mkdir -p input
    # shellcheck disable=SC2086
    "$MPIRUN" -np "$n1" "$REF_BUILD/12-failures/train_elastic" $flags --fsdp --batch-global "$b" --micro-cap "$b" \
        --save "$PWD/ck.safetensors" --save-every "$stop" >first.log 2>&1 &&
        "$REF_BUILD/08-fsdp/fsdp_consolidate" --shards "$PWD/ck.step$stop.safetensors" --out "$PWD/input/full.safetensors" >>first.log 2>&1 ||
        { echo "grader error: the reference FSDP run or its consolidation failed:"; tail -n 5 first.log; exit 2; }
    ;;
run)
    # shellcheck disable=SC2086
    launch "$n2" second.log "$PROGS/12-failures/train_elastic" $flags --fsdp --batch-global "$b" --micro-cap "$b" --resume input/full.safetensors --dump sub.st
    ;;
judge)
    launched second.log "your restart (FSDP on $n2 ranks from the consolidated step-$stop checkpoint of $n1)" || exit 1
    # shellcheck disable=SC2086
    restart_judge "$n1" "$stop" "$b" "$n2" "FSDP on $n1 ranks to step $stop (the reference's), consolidated, then yours on $n2 ranks (global batch $b)" $flags
    ;;
esac
