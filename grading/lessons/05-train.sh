#!/bin/sh
# 05-train.sh NRANKS [flags]: lesson 05's DDP trainer through ddp-train.sh for each bucket cap —
# tiny (one tensor per bucket), PyTorch's default 25, huge (one bucket).
set -u
n=$1
shift
for cap in 0.000001 25 1000000; do
    echo "== bucket_cap_mb $cap =="
    sh "$GRADING/lessons/ddp-train.sh" "$SUB_BUILD/05-ddp/train_ddp" "$n" 8 "$cap" "$@" || exit 1
done
