#!/bin/sh
# 02-train.sh NRANKS [flags]: the parameter server on NRANKS ranks is equivalent to the reference
# trainer on the global batch, and its traffic is a parameter server's: per step the server
# receives (N−1)·|g| and sends (N−1)·|θ| bytes, each worker sends |g| and receives |θ|.
set -u
. "$GRADING/lessons/lib.sh"
n=$1
shift
SUB_EXTRA="--stats stats.json" sh "$GRADING/lessons/train-equiv.sh" "$PROGS/02-param-server/train_ps" "$n" 8 "$@" || exit 1
[ "${PHASE:-run}" = judge ] || exit 0
P=$(sed -n 's/^train: \([0-9]*\) parameters.*/\1/p' ref.log | head -n 1) # the reference's count, not the run's
K=8
g=$((P * 4))
echo "per step: |g| = |θ| = $P parameters = $g bytes"
exec "$STATCHECK" "$RUN_DIR/stats.json" \
    rank0.bytes_recv=$((K * (n - 1) * g)) rank0.bytes_sent=$((K * (n - 1) * g)) \
    rank0.msgs_recv=$((K * (n - 1))) rank0.msgs_sent=$((K * (n - 1))) \
    workers.bytes_sent=$((K * g)) workers.bytes_recv=$((K * g)) workers.msgs_sent=$K workers.msgs_recv=$K \
    all.lib_calls=0 all.other_msgs_sent=0 all.other_lib_calls=0 --ranks "$n" \
    --hint "per step the server receives one gradient from each of the N−1 workers and sends the parameters to each; a worker sends one gradient and receives the parameters once — no library collectives"
