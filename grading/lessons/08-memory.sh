#!/bin/sh
# 08-memory.sh: FSDP's memory, two ways.
#   1. What the submission's functions really allocate (check08 memory, on 2 and 3 ranks): over 8 steps
#      fsdp_gather, fsdp_reduce_grads and fsdp_clip leave nothing allocated (the ops allocator's own
#      count, and the C library's heap for buffers taken with malloc), and allocate at once no more than
#      the reference plus one chunk: a temporary never freed, or a second copy of a unit, fails.
#   2. The trainer's peak model state per rank within 10% of 16·P/N + 8·n_max (params, grads and the two
#      AdamW moments sharded; one gathered unit's parameters and gradients in full), from --stats; for
#      gpt-tiny 16·P/N + 8·(n_0 + n_max): unit 0 (wte, wpe) stays gathered with its full gradient
#      through the whole backward (the tied head), next to the largest block's.
#   run:   check08 memory (its tapes), the submission's FSDP trainer on 2 and 4 ranks with --stats, and
#          with --model gpt-tiny on 2 ranks
#   judge: check08 memory on the tapes; the reference DDP trainer (unsharded, for comparison), then the
#          formula on each rank's peak
set -u
. "$GRADING/lessons/lib.sh"
F="--preset small --data $FIXTURE_TRAIN --val none --batch 8 --steps 2 --log-every 1000"
P=36939
NMAX=16512
# gpt-tiny: 7,152 parameters; unit 0 = wte + wpe = 27·16 + 8·16, the largest block 12·16² + 13·16
GPT_P=7152
GPT_N0=560
GPT_NMAX=3280
case $PHASE in
run)
    for n in 2 3; do "$MPIRUN" -np $n "$PROGS/grading/check08" memory; done
    for n in 2 4; do
        # shellcheck disable=SC2086
        launch $n fsdp$n.log "$PROGS/08-fsdp/train_fsdp" $F --stats fsdp$n.json
    done
    # shellcheck disable=SC2086
    launch 2 gpt2.log "$PROGS/08-fsdp/train_fsdp" $F --model gpt-tiny --stats gpt2.json
    ;;
judge)
    for n in 2 3; do
        "$MPIRUN" -np $n "$PROGS/grading/check08" memory >alloc$n.log 2>&1 || { grep -v '^memory: ' alloc$n.log | sed '/^-----/,$d'; exit 1; }
        grep '^N=' alloc$n.log
    done
    # shellcheck disable=SC2086
    "$MPIRUN" -np 2 "$REF_BUILD/05-ddp/train_ddp" $F --stats ddp.json >ddp.log 2>&1 || { echo "grader error: the DDP run failed"; tail -n 5 ddp.log; exit 2; }
    ddp=$(json_int ddp.json mem_peak_model_bytes)
    echo "unsharded (DDP, 2 ranks): peak model state $ddp bytes = $(awk -v b="$ddp" -v p=$P 'BEGIN { printf "%.2f", b / p }') bytes per parameter"
    status=0
    # peaks NAME N P EXTRA WHAT: every rank's peak of run NAME (N ranks) within 10% of 16·P/N + EXTRA
    peaks() {
        launched "$1.log" "your FSDP trainer ($5) on $2 ranks" || return 1
        _peaks=$(sed -n 's/.*"mem_peak_model_bytes":[[:space:]]*\([0-9]*\).*/\1/p' "$RUN_DIR/$1.json" | head -n 64)
        [ "$(echo "$_peaks" | grep -c .)" = "$2" ] || { echo "FAIL: $1.json holds $(echo "$_peaks" | grep -c .) ranks' peaks, the run had $2"; return 1; }
        for got in $_peaks; do
            awk -v g="$got" -v p="$3" -v n="$2" -v x="$4" -v what="$5" 'BEGIN {
                want = 16 * p / n + x
                printf "FSDP (%s), %d ranks: peak model state %d bytes; expected %d (%.0f%%)\n", what, n, g, want, 100 * g / want
                if (g > 1.1 * want || g < 0.9 * want) { print "FAIL: not within 10% of the expected peak: is the full model still allocated, or are gathered units not freed?"; exit 1 } }' || return 1
        done
    }
    for n in 2 4; do peaks fsdp$n $n $P $((8 * NMAX)) "small MLP: 16P/N + 8·n_max" || status=1; done
    peaks gpt2 2 $GPT_P $((8 * (GPT_N0 + GPT_NMAX))) "gpt-tiny: 16P/N + 8·(n_0 + n_max)" || status=1
    exit $status
    ;;
esac
