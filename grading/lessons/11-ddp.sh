#!/bin/sh
# 11-ddp.sh TOPOLOGY BATCH CAP [flags]: lesson 11's DDP trainer with --allreduce hier on an emulated
# cluster (--topology TOPOLOGY, M*K ranks; --placement block, then spread, each in a directory of its
# own), each rank initialised from another seed, with
# bucket_cap_mb CAP, must be equivalent to the reference trainer on one process with the global
# batch, and send, per bucket per step, the hierarchical all-reduce's 2(K-1) + 2(M-1) messages per
# rank on its two sub-communicators (and nothing else but the initial broadcast and the two splits).
set -u
. "$GRADING/lessons/lib.sh"
if [ -z "${PLACE:-}" ]; then
    for p in block spread; do
        mkdir -p "$p"
        [ "${PHASE:-run}" = judge ] && echo "== --placement $p =="
        # the judge's view of this placement's run (the run has no RUN_DIR: its cwd is its scratch)
        (cd "$p" && { [ "${PHASE:-run}" != judge ] || export RUN_DIR="$RUN_DIR/$p"; } &&
            PLACE=$p sh "$GRADING/lessons/11-ddp.sh" "$@") || exit 1
    done
    exit 0
fi
place=$PLACE topo=$1 b=$2 cap=$3
shift 3
m=${topo%%x*} k=${topo#*x}
n=$((m * k))
K=${STEPS:-8}
prog=$PROGS/11-topology/train_ddp
extra="--stats stats.json --ddp-log ddp.json --init-seed-per-rank --bucket-cap-mb $cap --allreduce hier --topology $topo --placement $place"
if [ "${PHASE:-run}" != judge ]; then
    SUB_EXTRA="$extra" sh "$GRADING/lessons/train-equiv.sh" "$prog" "$n" "$b" "$@"
    exit 0
fi
eq_out=$(SUB_EXTRA="$extra" sh "$GRADING/lessons/train-equiv.sh" "$prog" "$n" "$b" "$@" 2>&1)
equiv=$?
sw=$(switch_args "$n") # this launch among the run's, counted before anything can stop the judge
cd "$RUN_DIR" || exit 2 # the run's files, read only
[ -f ddp.json ] && [ -f stats.json ] || { printf '%s\n' "$eq_out"; exit 1; }
nb=$(json_int ddp.json nbuckets | cut -c1-6)
echo "buckets: $nb; $topo ($place): per bucket and step 2(K-1) + 2(M-1) = $((2 * (k - 1) + 2 * (m - 1))) messages per rank"
per_step=$((${nb:-0} * (2 * (k - 1) + 2 * (m - 1))))
# the trainer's communicator: rank 0's broadcast, and the two splits' library all-gathers (the
# communication thread's dup shares its counters); the sub-communicators: the all-reduces
"$STATCHECK" stats.json --ranks "$n" $sw \
    rank0.msgs_sent=$((n - 1)) rank0.msgs_recv=0 workers.msgs_sent=0 workers.msgs_recv=1 all.lib_calls=2 \
    all.other_msgs_sent=$((K * per_step)) all.other_lib_calls=0 \
    --hint "per optimizer step every bucket must be all-reduced once by hier_allreduce: 2(K-1) messages inside the node (h->intra) and 2(M-1) across (h->inter) per rank, nothing on the trainer's own communicator but rank 0's broadcast" || {
    [ -n "$eq_out" ] && printf '  (what it did to the numbers:)\n%s\n' "$eq_out"
    exit 1
}
printf '%s\n' "$eq_out"
exit $equiv
