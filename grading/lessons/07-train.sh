#!/bin/sh
# 07-train.sh NRANKS BATCH [flags]: DDP fed by YOUR sampler on the micro dataset (several epochs in
# 12 steps, padding included) must be equivalent to the reference trainer reading PyTorch's
# DistributedSampler order for NRANKS replicas with the global batch.
set -u
n=$1 b=$2
shift 2
STEPS=12 REF_EXTRA="--order sampler --sampler-replicas $n" SUB_EXTRA="--init-seed-per-rank" \
    exec sh "$GRADING/lessons/train-equiv.sh" "$PROGS/07-sampler/train_sampler" "$n" "$b" \
    --data "$ROOT/datasets/fixtures/micro-train.tok" "$@"
