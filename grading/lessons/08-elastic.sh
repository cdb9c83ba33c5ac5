#!/bin/sh
# 08-elastic.sh: FSDP on 2 ranks saves shards at step 10 of 20; fsdp_consolidate makes one full
# checkpoint; lesson 01's trainer loads it; FSDP on 3 ranks resumes from it (a different N: an
# elastic restart) and its steps 11..20 must be equivalent to an uninterrupted single-process run.
set -u
F="--preset tiny --data $FIXTURE_TRAIN --val none --steps 20 --lr 1e-2 --log-every 1000 --seed 3 --clip 0"
"$REF_BUILD/01-trainer/train" $F --device cpu --batch 24 --dump ref.st >ref.log 2>&1 || { echo "grader error: reference run"; exit 2; }
"$MPIRUN" -np 2 "$SUB_BUILD/08-fsdp/train_fsdp" $F --batch 12 --save-every 10 --save ck.safetensors >a.log 2>&1 ||
    { echo "FSDP on 2 ranks failed:"; tail -n 10 a.log; exit 1; }
ls ck.step10.safetensors.rank0-of-2.safetensors ck.step10.safetensors.rank1-of-2.safetensors >/dev/null 2>&1 ||
    { echo "FAIL: --save-every 10 did not leave one shard file per rank (ck.step10.safetensors.rank{0,1}-of-2.safetensors)"; exit 1; }
"$SUB_BUILD/08-fsdp/fsdp_consolidate" --shards ck.step10.safetensors --out full.safetensors || exit 1
"$REF_BUILD/01-trainer/train" $F --batch 24 --steps 11 --resume full.safetensors >l01.log 2>&1 ||
    { echo "FAIL: lesson 01's trainer cannot load the consolidated checkpoint:"; tail -n 3 l01.log; exit 1; }
echo "lesson 01's trainer loads the consolidated checkpoint"
"$MPIRUN" -np 3 "$SUB_BUILD/08-fsdp/train_fsdp" $F --batch 8 --resume full.safetensors --dump resumed.st >b.log 2>&1 ||
    { echo "FSDP resuming on 3 ranks failed:"; tail -n 10 b.log; exit 1; }
exec "$EQUIV" ref.st resumed.st --ref-offset 10 --world 3
