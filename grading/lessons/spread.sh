#!/bin/sh
# spread.sh DIR GLOBAL_BATCH [trainer flags...]
#
# The reference trainer's run again in other correct summation orders, for grading/equiv --spread
# (equiv.c says why): gradient accumulation over K micro-batches (the reference lesson 06 on one
# process, always the CPU), for K the two smallest divisors of the global batch above 1. Writes
# DIR/spreadK.st and prints the equiv arguments ("--spread DIR/spread2.st ..."); nothing for a batch
# of one. Exit 2 (a grader error) when a run fails. Needs REF_BUILD (the reference build).
set -u
dir=$1 g=$2
shift 2
spread="" ns=0 k=2
while [ "$k" -le "$g" ] && [ "$ns" -lt 2 ]; do
    if [ $((g % k)) = 0 ]; then
        if ! "$REF_BUILD/06-accum/train_accum" "$@" --batch "$g" --accum-steps "$k" --dump "$dir/spread$k.st" \
            >"$dir/spread$k.log" 2>&1; then
            echo "grader error: the reference run with --accum-steps $k failed:"
            tail -n 5 "$dir/spread$k.log"
            exit 2
        fi
        spread="$spread --spread $dir/spread$k.st" ns=$((ns + 1))
    fi
    k=$((k + 1))
done
echo "$spread"
