#!/bin/sh
# 08-train.sh NRANKS [flags]: FSDP on NRANKS ranks (tiny preset: units of 216, 2080, 1056 and 891
# parameters — most not multiples of N) is equivalent to the reference trainer on the global batch,
# and its traffic is exactly FSDP's: per step and unit an all-gather in forward, another in backward
# and a reduce-scatter, N−1 ring messages each, plus one ring all-reduce of the squared norm.
# With --model gpt-tiny the units are wte+wpe (560), two blocks (3280 each) and ln_f (32), and unit 0
# is gathered once per step: the head is tied to wte, so it stays gathered from the embedding through
# the head and the whole backward (lessons/08-fsdp/README.md); its peak model state is checked too.
# SUB_EXTRA="--zero-stage 1" (or 2): ZeRO stage 1 or 2 instead — per step and unit one reduce-scatter
# and one all-gather, and every rank's peak model state within 10% of the stage's formula.
# With --mixed-precision bf16 (both runs) the memory formulas are the bf16 ones; the traffic is the
# same (the CPU's bf16 values travel in float32 messages); EQUIV_EXTRA gives the bf16 tolerances.
set -u
. "$GRADING/lessons/lib.sh"
n=$1
shift
# a directory per world size: 08.sh runs this twice in one check
mkdir -p "n$n" && cd "n$n" || exit 2
# the judge's view of this size's run (the run has no RUN_DIR: its cwd is its scratch)
if [ "${PHASE:-run}" = judge ]; then
    RUN_DIR=$RUN_DIR/n$n
    export RUN_DIR
fi
K=8
if [ "${PHASE:-run}" != judge ]; then
    SUB_EXTRA="--stats stats.json ${SUB_EXTRA:-}" sh "$GRADING/lessons/train-equiv.sh" "$PROGS/08-fsdp/train_fsdp" "$n" 8 "$@"
    exit 0
fi
# The judge prints the traffic's and the memory's failures BEFORE the equivalence report: they name
# the cause (a unit gathered with the wrong size, an all-gather too many), the first divergence only
# its effect, with hints about formulas.
eq_out=$(SUB_EXTRA="--stats stats.json ${SUB_EXTRA:-}" sh "$GRADING/lessons/train-equiv.sh" "$PROGS/08-fsdp/train_fsdp" "$n" 8 "$@" 2>&1)
equiv=$?
fail() {
    if [ -n "$eq_out" ]; then
        echo "  (the cause above, first; what it did to the numbers follows)"
        printf '%s\n' "$eq_out"
    fi
    exit 1
}
[ -f "$RUN_DIR/stats.json" ] || { printf '%s\n' "$eq_out"; exit 1; }
# the units' sizes; kept: 1 when unit 0 is gathered once per step instead of twice (the GPT's)
case " $* " in
*" --model gpt-tiny "*) units="560 3280 3280 32" kept=1 ;;
*) units="216 2080 1056 891" kept=0 ;;
esac
# ZeRO stages 1 and 2 (SUB_EXTRA=--zero-stage S): per step and unit one reduce-scatter and one all-gather
stage=$(echo " ${SUB_EXTRA:-} " | sed -n 's/.* --zero-stage \([123]\) .*/\1/p')
stage=${stage:-3}
per=3
if [ "$stage" != 3 ]; then per=2 kept=0; fi
U=$(echo "$units" | wc -w)
msgs=$((K * ((per * U - kept) * (n - 1) + 2 * (n - 1))))
bytes=$(awk -v n="$n" -v K="$K" -v units="$units" -v kept="$kept" -v per=$per 'BEGIN { U = split(units, u, " "); s = 0
    for (i = 1; i <= U; i++) s += (i == 1 ? per - kept : per) * (n - 1) * int((u[i] + n - 1) / n) * 4
    printf "%d", K * s }')
hint="per step and unit: all-gather (forward), all-gather (backward), reduce-scatter — N−1 ring messages of one chunk c = ceil(n/N) each (a GPT's unit 0: one all-gather per step) — and one all-reduce of the squared norm for clipping; nothing more on any other communicator"
[ "$stage" = 3 ] || hint="ZeRO stage $stage, per step and unit: one reduce-scatter of the gradient and one all-gather of the updated parameters — N−1 ring messages of one chunk c = ceil(n/N) each, the bytes of one ring all-reduce — and one all-reduce of the squared norm for clipping; nothing more on any other communicator" 
# on the bookkeeping communicator, only the given code's two assemblies of the full model for the
# grader's dump (first-step gradients, final parameters): an all-gather per unit each
other=$((2 * U * (n - 1)))
"$STATCHECK" "$RUN_DIR/stats.json" --ranks "$n" $(switch_args "$n") all.msgs_sent=$msgs all.msgs_recv=$msgs "all.bytes_sent=$bytes~$((K * 8 * n))" all.lib_calls=0 \
    all.other_msgs_sent=$other all.other_lib_calls=0 \
    --hint "$hint" || fail
# --mixed-precision bf16 (lesson 08's "Mixed precision with ZeRO"): parameters and gradients take 2
# bytes (pb), the sharded state 12 (os: float32 master, m and v) instead of float32's 4 and 8
bf=$(echo " $* " | grep -c ' --mixed-precision bf16 ')
# ZeRO stages 1 and 2: every rank's peak model state within 10% of the stage's formula
if [ "$stage" != 3 ]; then
    peaks=$(sed -n 's/.*"mem_peak_model_bytes":[[:space:]]*\([0-9]*\).*/\1/p' "$RUN_DIR/stats.json" | head -n 64)
    [ "$(echo "$peaks" | grep -c .)" = "$n" ] || { echo "FAIL: stats.json holds $(echo "$peaks" | grep -c .) ranks' peaks, the run had $n"; fail; }
    for got in $peaks; do
        awk -v g="$got" -v n="$n" -v units="$units" -v s="$stage" -v bf="$bf" -v gpt="$(echo " $* " | grep -c ' --model gpt-tiny ')" 'BEGIN {
            U = split(units, u, " "); p = 0; m = 0
            for (i = 1; i <= U; i++) { p += u[i]; if (u[i] > m) m = u[i] }
            pb = bf ? 2 : 4; os = bf ? 12 : 8
            # stage 2: a unit'"'"'s full gradient lives through its backward (a GPT'"'"'s unit 0: through all of it)
            if (s == 1) { want = 2 * pb * p + os * p / n; f = sprintf("%dP + %dP + %dP/N", pb, pb, os) }
            else { want = pb * p + (pb + os) * p / n + pb * (m + (gpt ? u[1] : 0)); f = sprintf("%dP + %dP/N + %dP/N + %d·(%s)", pb, pb, os, pb, gpt ? "n_0 + n_max" : "n_max") }
            printf "ZeRO stage %d: peak model state %d bytes; %s = %d (%.0f%%)\n", s, g, f, want, 100 * g / want
            if (g > 1.1 * want || g < 0.9 * want) { print "FAIL: not within 10%: stage 1 keeps parameters and gradients in full and 1/N of the optimizer state; stage 2 only 1/N of the gradients (a unit'"'"'s full gradient only through its backward)"; exit 1 } }' || fail
    done
fi
# the GPT's memory: every rank's peak model state within 10% of 16·P/N + 8·(n_0 + n_max), unit 0
# (kept) and the largest block gathered with their full gradients (+ 4·n_max: the prefetched block)
if [ "$kept" = 1 ]; then
    pf=0
    case " ${SUB_EXTRA:-} " in *" --prefetch "*) pf=1 ;; esac
    peaks=$(sed -n 's/.*"mem_peak_model_bytes":[[:space:]]*\([0-9]*\).*/\1/p' "$RUN_DIR/stats.json" | head -n 64)
    [ "$(echo "$peaks" | grep -c .)" = "$n" ] || { echo "FAIL: stats.json holds $(echo "$peaks" | grep -c .) ranks' peaks, the run had $n"; fail; }
    for got in $peaks; do
        awk -v g="$got" -v n="$n" -v units="$units" -v pf=$pf -v bf="$bf" 'BEGIN { U = split(units, u, " "); p = 0; m = 0
            for (i = 1; i <= U; i++) { p += u[i]; if (i > 1 && u[i] > m) m = u[i] }
            pb = bf ? 2 : 4
            want = 16 * p / n + 2 * pb * (u[1] + m) + pb * m * pf
            printf "peak model state %d bytes; 16·P/N + %d·(n_0 + n_max)%s = %d (%.0f%%)\n", g, 2 * pb, pf ? sprintf(" + %d·n_max", pb) : "", want, 100 * g / want
            if (g > 1.1 * want || g < 0.9 * want) { print "FAIL: not within 10%: unit 0 stays gathered with its gradient through backward, every other unit only while it computes"; exit 1 } }' || fail
    done
fi
printf '%s\n' "$eq_out"
exit $equiv
