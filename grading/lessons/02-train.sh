#!/bin/sh
# 02-train.sh NRANKS [flags]: the parameter server on NRANKS ranks is equivalent to the reference
# trainer on the global batch, and its traffic is a parameter server's: per step the server
# receives (N−1)·|g| and sends (N−1)·|θ| bytes, each worker sends |g| and receives |θ|.
set -u
. "$GRADING/lessons/lib.sh"
n=$1
shift
if [ "${PHASE:-run}" != judge ]; then
    SUB_EXTRA="--stats stats.json" sh "$GRADING/lessons/train-equiv.sh" "$PROGS/02-param-server/train_ps" "$n" 8 "$@"
    exit $?
fi
# The traffic is judged even when the numbers differ, and its failure is printed FIRST: a worker that
# sends the wrong thing, or a server that skips one, names the cause; the first divergence and the
# per-tensor hints are only its effect.
eq_out=$(SUB_EXTRA="--stats stats.json" sh "$GRADING/lessons/train-equiv.sh" "$PROGS/02-param-server/train_ps" "$n" 8 "$@" 2>&1)
equiv=$?
[ $equiv = 2 ] && { printf '%s\n' "$eq_out"; exit 2; } # the grader's own failure
P=$(sed -n 's/^train: \([0-9]*\) parameters.*/\1/p' ref.log 2>/dev/null | head -n 1) # the reference's count, not the run's
if [ -z "$P" ] || [ ! -f "$RUN_DIR/stats.json" ]; then # the run failed before there was traffic to judge
    printf '%s\n' "$eq_out"
    exit 1
fi
K=8
g=$((P * 4))
traffic=$("$STATCHECK" "$RUN_DIR/stats.json" \
    rank0.bytes_recv=$((K * (n - 1) * g)) rank0.bytes_sent=$((K * (n - 1) * g)) \
    rank0.msgs_recv=$((K * (n - 1))) rank0.msgs_sent=$((K * (n - 1))) \
    workers.bytes_sent=$((K * g)) workers.bytes_recv=$((K * g)) workers.msgs_sent=$K workers.msgs_recv=$K \
    all.lib_calls=0 all.other_msgs_sent=0 all.other_lib_calls=0 --ranks "$n" $(switch_args "$n") \
    --hint "per step the server receives one gradient from each of the N−1 workers and sends the parameters to each; a worker sends one gradient and receives the parameters once — no library collectives" 2>&1)
ok=$?
if [ $ok != 0 ] && [ $equiv != 0 ]; then
    echo "per step: |g| = |θ| = $P parameters = $g bytes"
    printf '%s\n' "$traffic"
    echo "  (the cause above, first; what it did to the numbers follows)"
    printf '%s\n' "$eq_out"
    exit 1
fi
printf '%s\n' "$eq_out"
echo "per step: |g| = |θ| = $P parameters = $g bytes"
printf '%s\n' "$traffic"
[ $equiv = 0 ] && [ $ok = 0 ] && exit 0
exit 1
