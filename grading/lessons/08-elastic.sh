#!/bin/sh
# 08-elastic.sh: FSDP on 2 ranks saves shards at step 10 of 20; fsdp_consolidate makes one full
# checkpoint; lesson 01's trainer loads it; FSDP on 3 ranks resumes from it (a different N: an
# elastic restart) and its steps 11..20 must be equivalent to an uninterrupted single-process run.
#   run:   the submission's save (2 ranks), consolidation and resume (3 ranks)
#   judge: the shards are there; the REFERENCE lesson-01 trainer loads the consolidated file; the
#          resumed run's dump against an uninterrupted reference run
set -u
. "$GRADING/lessons/lib.sh"
F="--preset tiny --data $FIXTURE_TRAIN --val none --steps 20 --lr 1e-2 --log-every 1000 --seed 3 --clip 0"
case ${PHASE:-run} in
run)
    # shellcheck disable=SC2086
    launch 2 a.log "$PROGS/08-fsdp/train_fsdp" $F --batch 12 --save-every 10 --save ck.safetensors
    launch 1 c.log "$PROGS/08-fsdp/fsdp_consolidate" --shards ck.step10.safetensors --out full.safetensors
    # shellcheck disable=SC2086
    launch 3 b.log "$PROGS/08-fsdp/train_fsdp" $F --batch 8 --resume full.safetensors --dump resumed.st
    ;;
judge)
    # shellcheck disable=SC2086
    "$REF_BUILD/01-trainer/train" $F --device cpu --batch 24 --dump ref.st >ref.log 2>&1 || { echo "grader error: reference run"; exit 2; }
    launched a.log "FSDP on 2 ranks" || exit 1
    ls "$RUN_DIR/ck.step10.safetensors.rank0-of-2.safetensors" "$RUN_DIR/ck.step10.safetensors.rank1-of-2.safetensors" >/dev/null 2>&1 ||
        { echo "FAIL: --save-every 10 did not leave one shard file per rank (ck.step10.safetensors.rank{0,1}-of-2.safetensors)"; exit 1; }
    launched c.log "fsdp_consolidate" || exit 1
    # shellcheck disable=SC2086
    "$REF_BUILD/01-trainer/train" $F --batch 24 --steps 11 --resume "$RUN_DIR/full.safetensors" >l01.log 2>&1 ||
        { echo "FAIL: lesson 01's trainer cannot load the consolidated checkpoint:"; tail -n 3 l01.log; exit 1; }
    echo "lesson 01's trainer loads the consolidated checkpoint"
    launched b.log "FSDP resuming on 3 ranks" || exit 1
    exec "$EQUIV" ref.st "$RUN_DIR/resumed.st" --ref-offset 10 --world 3
    ;;
esac
