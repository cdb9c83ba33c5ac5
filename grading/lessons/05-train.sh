#!/bin/sh
# 05-train.sh NRANKS [flags]: lesson 05's DDP trainer through ddp-train.sh for each bucket cap —
# tiny (one tensor per bucket), left unset (0: PyTorch's default, 25 MiB after a 1 MiB first
# bucket: the option's path a student's trainer takes by default), huge (one bucket).
set -u
n=$1
shift
i=0
for cap in 0.000001 0 1000000; do
    i=$((i + 1))
    mkdir -p "cap$i" # each cap's run and judgement in a directory of its own
    [ "${PHASE:-run}" = judge ] && echo "== bucket_cap_mb $(echo "$cap" | sed 's/^0$/unset (25, first bucket 1 MiB)/') =="
    # the judge's view of this cap's run (the run has no RUN_DIR: its cwd is its scratch)
    (cd "cap$i" && { [ "${PHASE:-run}" != judge ] || export RUN_DIR="$RUN_DIR/cap$i"; } &&
        sh "$GRADING/lessons/ddp-train.sh" "$PROGS/05-ddp/train_ddp" "$n" 8 "$cap" "$@") || exit 1
done
