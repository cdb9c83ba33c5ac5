#!/bin/sh
# 06-train.sh PROGRAM NRANKS BATCH CAP K [flags]: lesson 06's trainer with --accum-steps K.
#
# First ddp-train.sh: equivalence with the reference on the global batch, buckets launched once each,
# one ring all-reduce per bucket per optimizer step (the counters). None of that can tell
# accumulation from ONE forward/backward over the whole batch — the weights b_i/B make the numbers
# identical — so the run is also traced (--trace), and the judge reads the trace:
#   - exactly K forward passes in every optimizer step, of chunk_range's sizes of the rank's BATCH
#     examples ("fwd b=N" spans that model_forward records, "fwd b=N t=T" a GPT's: K passes over
#     the whole batch, weighted 1/K, would give the same numbers too);
#   - exactly K backward passes in every optimizer step (one per micro-batch), counted from the
#     "bwd head" / "bwd wte" spans that model_backward itself records ("bwd embeddings" ends a
#     GPT's; the reference model, not the student's file);
#   - every all-reduce of a step starts after the last backward of the step began (no_sync: the
#     first K−1 micro-batches send nothing).
# The trace was written by the submission's process, so its structure is checked before it is
# believed (as grading/overlap.c does): exactly NRANKS ranks, STEPS "step" spans on each, every
# span with a rank in range, finite times and t1 >= t0, at most 200000 spans.
set -u
. "$GRADING/lessons/lib.sh"
prog=$1 n=$2 b=$3 cap=$4 k=$5
shift 5
K=${STEPS:-8}
if [ "${PHASE:-run}" != judge ]; then
    SUB_EXTRA="--accum-steps $k --trace trace.json" sh "$GRADING/lessons/ddp-train.sh" "$prog" "$n" "$b" "$cap" "$@"
    exit $?
fi
# The judge holds the equivalence's report back until the trace is read: a trace failure names the
# cause ("an all-reduce started during micro-batch 1 of 3"), the first divergence only its effect,
# with hints about formulas — so the most specific diagnosis is printed first.
eq_out=$(SUB_EXTRA="--accum-steps $k --trace trace.json" sh "$GRADING/lessons/ddp-train.sh" "$prog" "$n" "$b" "$cap" "$@" 2>&1)
status=$?
report_eq() { [ -n "$eq_out" ] && printf '%s\n' "$eq_out"; }
# A run that did not finish has been reported; its trace (if any) would only add noise. Otherwise
# the trace is read even when the numbers were wrong: synchronising on the wrong micro-batch keeps
# the traffic right and breaks equivalence with hints about formulas — the trace names the cause.
launched sub.log "your program" >/dev/null || { report_eq; exit $status; }
tsv=$RUN_DIR/trace.json.tsv
if [ ! -f "$tsv" ]; then
    report_eq
    echo "FAIL: your run wrote no trace (--trace trace.json → trace.json.tsv): did trainer_finish run?"
    exit 1
fi
trace_out=$(awk -F '\t' -v N="$n" -v K="$K" -v k="$k" -v B="$b" '
function bad(msg) { print "FAIL: " msg; failed = 1; exit 1 }
function num(x) { return x ~ /^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/ }
/^#/ { next }
{
    if (++spans > 200000) bad("the trace holds more than 200000 spans: not a trace of this run")
    if (NF != 5 || $1 !~ /^[0-9]+$/ || !num($3) || !num($4))
        bad("the trace has a line that is not a span (rank, track, start, end, name): " substr($0, 1, 80))
    r = $1 + 0; t0 = $3 + 0; t1 = $4 + 0
    if (r >= N) bad("the trace has a span of rank " r ": the run had " N " ranks")
    if (t1 < t0) bad("the trace has a span that ends before it starts (rank " r ", " $3 ".." $4 " ms)")
    seen[r] = 1
    if ($5 == "step" && $2 == "compute") { i = ++nstep[r]; a[r, i] = t0; z[r, i] = t1 }
    else if ($5 ~ /^fwd b=[0-9]+( t=[0-9]+)?$/ && $2 == "compute") { nf[r]++; fs[r, nf[r]] = t0; fb[r, nf[r]] = substr($5, 7) + 0 }
    else if ($5 == "bwd head" && $2 == "compute") { nh[r]++; hs[r, nh[r]] = t0 }
    else if (($5 == "bwd wte" || $5 == "bwd embeddings") && $2 == "compute") { nw[r]++; we[r, nw[r]] = t0 }
    else if ($2 == "comm" && $5 ~ /^allreduce/) { nc[r]++; cs[r, nc[r]] = t0 }
}
END {
    if (failed) exit 1
    for (r = 0; r < N; r++) {
        if (!(r in seen)) bad("the trace holds no span of rank " r ": the run had " N " ranks")
        if (nstep[r] != K) bad("rank " r "\047s trace holds " nstep[r] + 0 " steps, the run had " K)
    }
    for (r = 0; r < N; r++)
        for (i = 1; i <= K; i++) {
            # the step spans: backward passes (starts and ends) and all-reduce starts inside it
            last = -1; ends = 0; starts = 0
            for (j = 1; j <= nh[r]; j++)
                if (hs[r, j] >= a[r, i] && hs[r, j] <= z[r, i]) { starts++; if (hs[r, j] > last) last = hs[r, j] }
            for (j = 1; j <= nw[r]; j++) if (we[r, j] >= a[r, i] && we[r, j] <= z[r, i]) ends++
            if (starts != ends)
                bad("rank " r ", optimizer step " i ": " starts " backward passes began, " ends " finished: not a trace of this run")
            if (starts != k) {
                if (starts == 1 && k > 1)
                    bad("rank " r ", optimizer step " i ": 1 backward pass, expected k = " k " (one per micro-batch): --accum-steps is ignored — one forward/backward over the whole batch gives the same numbers but none of the memory saving; run k micro-batches of b_i examples each (chunk_range)")
                bad("rank " r ", optimizer step " i ": " starts " backward passes, expected k = " k " (one forward and one backward per micro-batch)")
            }
            # the forward passes: k of them, together the B examples of the rank, split as chunk_range
            # splits (sizes floor(B/k) or ceil(B/k)) — not k passes over the whole batch
            fwd = 0; ex = 0; sizes = ""
            for (j = 1; j <= nf[r]; j++)
                if (fs[r, j] >= a[r, i] && fs[r, j] <= z[r, i]) {
                    fwd++; ex += fb[r, j]; sizes = sizes (fwd > 1 ? "+" : "") fb[r, j]
                    if (fb[r, j] < int(B / k) || fb[r, j] > int((B + k - 1) / k)) uneq = 1
                }
            if (fwd != k)
                bad("rank " r ", optimizer step " i ": " fwd " forward passes, expected k = " k " (one per micro-batch)")
            if (ex != B)
                bad("rank " r ", optimizer step " i ": the forward passes held " sizes " = " ex " examples, expected the rank\047s " B " split into " k " micro-batches: each micro-batch is a slice of the local batch (chunk_range), not the whole batch again")
            if (uneq)
                bad("rank " r ", optimizer step " i ": micro-batches of " sizes " examples: chunk_range splits " B " into sizes " int(B / k) " or " int((B + k - 1) / k))
            for (j = 1; j <= nc[r]; j++) {
                c = cs[r, j]
                if (c < a[r, i] || c > z[r, i]) continue
                inside[r, j] = 1
                if (c >= last) continue
                m = 0
                for (q = 1; q <= nh[r]; q++) if (hs[r, q] >= a[r, i] && hs[r, q] <= c) m++
                bad("rank " r ", optimizer step " i ": an all-reduce started during micro-batch " m " of " k ": only the last micro-batch may synchronise, the others run under no_sync")
            }
        }
    for (r = 0; r < N; r++)
        for (j = 1; j <= nc[r]; j++)
            if (!((r, j) in inside)) bad("rank " r ": an all-reduce ran outside every optimizer step: not a trace of this run")
    printf "trace: %d ranks x %d optimizer steps, each with %d forward and backward passes over %d examples and its all-reduces in the last\n", N, K, k, B
}' "$tsv")
trace=$?
if [ $trace != 0 ]; then
    printf '%s\n' "$trace_out"
    [ -n "$eq_out" ] && echo "  (the cause above, first; what it did to the numbers and the traffic follows)"
    report_eq
    exit 1
fi
report_eq
printf '%s\n' "$trace_out"
exit $status
