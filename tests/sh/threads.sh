# --threads N splits the CPU ops over N threads (common/pool.h) without changing a bit: the dumps of
# lesson 01's trainer (losses, first-step gradients, final parameters) at 1, 2 and 3 threads are
# byte for byte the same, for the MLP and the GPT, and so are DDP's on 2 ranks, where the
# communication thread scales buckets with the compute thread's context (pool_for finds it busy and
# runs inline). Sizes are chosen so that every threaded op really splits at 3 threads: 96 rows x 512
# hidden = 49,152 tanh elements (3 parts of 16,384), 512 rows of the GPT's LayerNorm and
# cross-entropy, 32 (sequence, head) pairs, 3 tiles of 64 bias channels and more, and over 3 x 16,384
# parameters for AdamW's chunks (gpt-mini has 110,400).
# shellcheck disable=SC2086 # the flag strings are meant to split into words
. "$(dirname "$0")/lib.sh"
SOL=$BUILD/solutions
MLP="--model mlp --preset small --hidden 512 --data $FIX --val none --batch 96 --steps 3 --log-every 1000"
GPT="--model gpt-mini --data $FIX --val none --batch 8 --steps 3 --log-every 1000"

same_at_threads() { # NAME CMD...: the dump at --threads 1, 2 and 3
    name=$1
    shift
    for t in 1 2 3; do
        if ! "$@" --threads $t --dump "$TMP/t$t.st" >"$TMP/log" 2>&1; then
            fail "$name --threads $t: $(tail -n 2 "$TMP/log")"
            return
        fi
    done
    if cmp -s "$TMP/t1.st" "$TMP/t2.st" && cmp -s "$TMP/t1.st" "$TMP/t3.st"; then
        pass "$name: dumps at 1, 2 and 3 threads byte for byte the same ($(wc -c <"$TMP/t1.st") bytes)"
    else
        fail "$name: the dumps differ between thread counts ($(cmp "$TMP/t1.st" "$TMP/t2.st"; cmp "$TMP/t1.st" "$TMP/t3.st"))"
    fi
}

same_at_threads "MLP, lesson 01" $TRAIN $MLP
same_at_threads "gpt-mini, lesson 01" $TRAIN $GPT
same_at_threads "gpt-mini, DDP on 2 ranks, overlap" "$MPIRUN" -np 2 $SOL/05-ddp/train_ddp $GPT --bucket-cap-mb 0.05
