#!/bin/sh
# ddp-train.sh PROGRAM NRANKS BATCH CAP [flags]: a DDP program (lessons 05–07) on NRANKS ranks, each
# initialised from a different seed, with bucket_cap_mb CAP, must be equivalent to the reference
# trainer on the global batch, launch its buckets in order, and send exactly one ring all-reduce per
# bucket per optimizer step (2(N−1) messages each) plus the initial broadcast.
set -u
. "$GRADING/lessons/lib.sh"
prog=$1 n=$2 b=$3 cap=$4
shift 4
K=${STEPS:-8}
k=$(echo "${SUB_EXTRA:-}" | sed -n 's/.*--accum-steps \([0-9]*\).*/\1/p')
# report equivalence AND traffic: each explains a different mistake
# The judge prints the launch order's and the traffic's failures BEFORE the equivalence report: they
# name the cause (a bucket launched twice, an all-reduce per micro-batch), the first divergence only
# its effect, with hints about formulas.
if [ "${PHASE:-run}" != judge ]; then
    EQUIV_EXTRA="--accum ${k:-1}" SUB_EXTRA="--stats stats.json --ddp-log ddp.json --init-seed-per-rank --bucket-cap-mb $cap ${SUB_EXTRA:-}" \
        sh "$GRADING/lessons/train-equiv.sh" "$prog" "$n" "$b" "$@"
    exit 0
fi
eq_out=$(EQUIV_EXTRA="--accum ${k:-1}" SUB_EXTRA="--stats stats.json --ddp-log ddp.json --init-seed-per-rank --bucket-cap-mb $cap ${SUB_EXTRA:-}" \
    sh "$GRADING/lessons/train-equiv.sh" "$prog" "$n" "$b" "$@" 2>&1)
equiv=$?
sw=$(switch_args "$n") # this launch among the run's, counted before anything can stop the judge
# after a failure above: the equivalence report, as what the cause did to the numbers
then_eq() {
    [ -n "$eq_out" ] || return 0
    echo "  (the cause above, first; what it did to the numbers follows)"
    printf '%s\n' "$eq_out"
}
cd "$RUN_DIR" || exit 2 # the run's files, read only
[ -f ddp.json ] && [ -f stats.json ] || { printf '%s\n' "$eq_out"; exit 1; }
nb=$(json_int ddp.json nbuckets | cut -c1-6)
order=$(sed -n 's/.*"launch_order": *\[\([0-9, ]*\)\].*/\1/p' ddp.json | head -n 1 | cut -c1-2000 | tr -d ' ')
want=$(awk -v n="$nb" 'BEGIN { for (i = 0; i < n; i++) printf "%s%d", i ? "," : "", i }')
echo "buckets: $nb, launch order of the last step: [$order]"
if [ "${nb:-0}" -lt 1 ]; then
    echo "FAIL: the gradients were put in no bucket at all (ddp_assign_buckets built none)"
    then_eq
    exit 1
fi
if [ "$order" != "$want" ]; then
    echo "FAIL: the buckets were launched in the order [$order] in the last step, expected [$want] (once each)"
    got=$(echo "$order" | awk -F, '{ print ($0 == "" ? 0 : NF) }')
    if [ "$got" -gt "$nb" ]; then
        echo "  hint: $got launches for $nb buckets in one optimizer step: a synchronisation per micro-batch — only the last micro-batch may synchronise, the others run under no_sync"
    elif [ "$got" -lt "$nb" ]; then
        echo "  hint: $got launches for $nb buckets: the last backward of the step did not synchronise (is require_backward_grad_sync on for the last micro-batch?)"
    fi
    then_eq
    exit 1
fi
per_step=$((nb * 2 * (n - 1)))
"$STATCHECK" stats.json --ranks "$n" $sw \
    rank0.msgs_sent=$((K * per_step + n - 1)) rank0.msgs_recv=$((K * per_step)) \
    workers.msgs_sent=$((K * per_step)) workers.msgs_recv=$((K * per_step + 1)) all.lib_calls=0 \
    all.other_msgs_sent=0 all.other_lib_calls=0 \
    --hint "per optimizer step every bucket must be all-reduced exactly once by the ring (2(N−1) messages per rank) — not once per micro-batch — after rank 0 broadcast the parameters once at construction; and nothing sent on any other communicator (a dup of your own, or the trainer's bookkeeping one)" || {
    then_eq
    exit 1
}
printf '%s\n' "$eq_out"
exit $equiv
