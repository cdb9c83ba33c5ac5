#!/bin/sh
# 08-memory.sh: FSDP's memory, two ways.
#   1. What the submission's functions really allocate (check08 memory, on 2 and 3 ranks): over 8 steps
#      fsdp_gather, fsdp_reduce_grads and fsdp_clip leave nothing allocated (the ops allocator's own
#      count, and the C library's heap for buffers taken with malloc), and allocate at once no more than
#      the reference plus one chunk: a temporary never freed, or a second copy of a unit, fails.
#   2. The trainer's peak model state per rank within 10% of 16·P/N + 8·n_max (params, grads and the two
#      AdamW moments sharded; one gathered unit's parameters and gradients in full), from --stats.
#   run:   check08 memory (its tapes; its output into alloc-runN.log), the submission's FSDP trainer on 2
#          and 4 ranks with --stats
#   judge: check08 memory on the tapes; the reference DDP trainer (unsharded, for comparison), then the
#          formula on each rank's peak
set -u
. "$GRADING/lessons/lib.sh"
F="--preset small --data $FIXTURE_TRAIN --val none --batch 8 --steps 2 --log-every 1000"
P=36939
NMAX=16512
case ${PHASE:-run} in
run)
    for n in 2 3; do launch $n alloc-run$n.log "$PROGS/grading/check08" memory; done
    for n in 2 4; do
        # shellcheck disable=SC2086
        launch $n fsdp$n.log "$PROGS/08-fsdp/train_fsdp" $F --stats fsdp$n.json
    done
    ;;
judge)
    for n in 2 3; do
        # the judge's verdict, then how the run ended when it did not end well (an unwritten function's
        # DP_TODO line, a crash): what stopped it before it recorded what the judge asked for
        "$MPIRUN" -np $n "$PROGS/grading/check08" memory >alloc$n.log 2>&1 || {
            grep -v '^memory: ' alloc$n.log | sed '/^-----/,$d'
            launched alloc-run$n.log "check08 memory on $n ranks (your functions)"
            exit 1
        }
        grep '^N=' alloc$n.log
    done
    # shellcheck disable=SC2086
    "$MPIRUN" -np 2 "$REF_BUILD/05-ddp/train_ddp" $F --stats ddp.json >ddp.log 2>&1 || { echo "grader error: the DDP run failed"; tail -n 5 ddp.log; exit 2; }
    ddp=$(json_int ddp.json mem_peak_model_bytes)
    echo "unsharded (DDP, 2 ranks): peak model state $ddp bytes = $(awk -v b="$ddp" -v p=$P 'BEGIN { printf "%.2f", b / p }') bytes per parameter"
    status=0
    for n in 2 4; do
        launched fsdp$n.log "your FSDP trainer on $n ranks" || exit 1
        peaks=$(sed -n 's/.*"mem_peak_model_bytes":[[:space:]]*\([0-9]*\).*/\1/p' "$RUN_DIR/fsdp$n.json" | head -n 64)
        [ "$(echo "$peaks" | grep -c .)" = $n ] || { echo "FAIL: fsdp$n.json holds $(echo "$peaks" | grep -c .) ranks' peaks, the run had $n"; exit 1; }
        for got in $peaks; do
            awk -v g="$got" -v p=$P -v n=$n -v m=$NMAX 'BEGIN {
                want = 16 * p / n + 8 * m
                printf "FSDP, %d ranks: peak model state %d bytes; 16P/N + 8·n_max = %d (%.0f%%)\n", n, g, want, 100 * g / want
                if (g > 1.1 * want || g < 0.9 * want) { print "FAIL: not within 10% of 16·P/N + 8·n_max: is the full model still allocated, or are gathered units not freed?"; exit 1 } }' || status=1
        done
    done
    exit $status
    ;;
esac
