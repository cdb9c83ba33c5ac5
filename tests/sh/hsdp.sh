# Hybrid sharding (train_fsdp --hybrid K, lessons/08-fsdp/hsdp.c; the README's "Hybrid sharding"):
# FSDP over the K ranks of a node, an all-reduce of the gradient shard across the M nodes.
#   - equivalent to one process on the global batch (the graders' judge: the reference trainer and
#     its spread runs, grading/equiv) on 2x2, 3x2 and 2x3 (spread, prefetch), and on 4 ranks without
#     --topology (groups of 2 consecutive ranks);
#   - its traffic per rank and link class, to the byte, against the formula computed here from the
#     ring's definition (lesson 04): the node's communicator only intra-node, the replicas' only
#     inter-node, nothing on the world's; --placement spread moves the nodes' ranks, not the classes;
#   - every rank's peak model state = FSDP's over K ranks, to the byte (padding included);
#   - --hybrid 4 on 4 ranks is plain FSDP, dump for dump; node 0's shard files consolidate and resume;
#   - one line for each misuse.
# shellcheck disable=SC2086 # the flag strings are meant to split into words
. "$(dirname "$0")/lib.sh"
SOL=$BUILD/solutions
FSDP=$SOL/08-fsdp/train_fsdp
EQUIV=$BUILD/grading/equiv
# train-equiv.sh's flags: the tiny MLP (units of 216, 2080, 1056 and 891 parameters), 8 per rank
STEPS=8
A="--preset tiny --data $FIX --val none --lr 1e-2 --log-every 1000 --seed 3"
UNITS="216 2080 1056 891"
t0=$(date +%s)

# oracle G: the reference on one process with the global batch G into TMP/refG.st (once per G), and
# its spread runs into TMP/spG/; sets SPREAD
oracle() {
    mkdir -p "$TMP/sp$1"
    if [ ! -f "$TMP/ref$1.st" ]; then
        $TRAIN $A --steps $STEPS --device cpu --batch "$1" --dump "$TMP/ref$1.st" >"$TMP/ref$1.log" 2>&1 ||
            { echo "the one-process reference failed: $(tail -n 1 "$TMP/ref$1.log")"; return 1; }
    fi
    SPREAD=$(REF_BUILD=$SOL sh grading/lessons/spread.sh "$TMP/sp$1" "$1" $A --steps $STEPS --device cpu) ||
        { echo "$SPREAD"; return 1; }
}

# want M K PLACEMENT: per world rank, what the run's --stats must say, computed from the definitions:
# rank r sits on node r/K (block) or r%M (spread), at place r%K or r/M in it. Per step, on the node's
# communicator, per unit of n parameters (chunk c = ceil(n/K)) an all-gather in forward, one in
# backward and a reduce-scatter, K−1 ring messages of c floats each; and the squared norm's ring
# all-reduce of one float. On the replicas', one ring all-reduce of the S = Σ c floats of the shard.
# A ring all-reduce of n floats over G ranks (lesson 04: chunk i of n has n/G floats, one more for
# the first n%G) has rank i send every chunk but its own in the reduce-scatter and every chunk but
# chunk i+1 in the all-gather: 2n − len(i) − len(i+1) floats in 2(G−1) messages.
want() {
    awk -v m="$1" -v k="$2" -v pl="$3" -v steps=$STEPS -v units="$UNITS" '
    function len(n, g, i) { return int(n / g) + (i < n % g ? 1 : 0) }
    function ar(n, g, i) { return g == 1 ? 0 : 2 * n - len(n, g, i) - len(n, g, (i + 1) % g) }
    BEGIN {
        U = split(units, u, " "); S = 0
        for (x = 1; x <= U; x++) S += int((u[x] + k - 1) / k)
        for (r = 0; r < m * k; r++) {
            node = pl == "spread" ? r % m : int(r / k); place = pl == "spread" ? int(r / m) : r % k
            printf "%d shard msgs %d intra %d inter 0 replica msgs %d intra 0 inter %d\n", r,
                steps * (3 * U + 2) * (k - 1), steps * 4 * (3 * (k - 1) * S + ar(1, k, place)),
                steps * 2 * (m - 1), steps * 4 * ar(S, m, node)
        }
    }'
}

# got STATS: the same lines from the run, and the world communicator's bytes (must be none)
got() {
    python3 - "$1" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["ranks"]:
    s, p = r["comms"]["hsdp_shard"], r["comms"]["hsdp_replica"]
    assert s["msgs_sent"] == s["intra_msgs_sent"] + s["inter_msgs_sent"]
    print(r["rank"], "shard msgs", s["msgs_sent"], "intra", s["intra_bytes_sent"], "inter", s["inter_bytes_sent"],
          "replica msgs", p["msgs_sent"], "intra", p["intra_bytes_sent"], "inter", p["inter_bytes_sent"],
          "world", r["bytes_sent"])
PY
}

# memory K STATS: every rank's peak model state against FSDP's over K ranks, exactly: the shards of
# parameters, gradients, m and v (16 bytes a float, S floats with the padding), plus the largest
# unit's gathered parameters and full gradient (8 bytes, K·c_max floats) while its backward runs
memory() {
    python3 - "$1" "$2" "$UNITS" <<'PY'
import json, math, sys
K, units = int(sys.argv[1]), [int(x) for x in sys.argv[3].split()]
c = [math.ceil(n / K) for n in units]
want = 16 * sum(c) + 8 * K * max(c)
P, nmax = sum(units), max(units)
peaks = [r["mem_peak_model_bytes"] for r in json.load(open(sys.argv[2]))["ranks"]]
print(f"peaks {sorted(set(peaks))} B; 16·S + 8·K·c_max = {want} (16P/K + 8·n_max = {16 * P / K + 8 * nmax:.0f}; "
      f"unsharded 16P = {16 * P})")
sys.exit(any(p != want for p in peaks))
PY
}

# hsdp NAME NP M K PLACEMENT FLAGS...: run, then equivalence, traffic (when M K PLACEMENT name a
# topology; "-" for none) and memory (without --prefetch)
hsdp() {
    name=$1 np=$2 m=$3 k=$4 pl=$5
    shift 5
    s=$(date +%s)
    if ! DP_TIMEOUT_S=60 timeout -k 5 120 "$MPIRUN" -np "$np" $FSDP $A --steps $STEPS --batch 8 "$@" \
        --dump "$TMP/$name.st" --stats "$TMP/$name.json" >"$TMP/$name.log" 2>&1; then
        fail "hsdp $name: the run failed: $(tail -n 2 "$TMP/$name.log" | tr '\n' ' ')"
        return
    fi
    took=$(($(date +%s) - s))
    if why=$(oracle $((8 * np))) && "$EQUIV" "$TMP/ref$((8 * np)).st" "$TMP/$name.st" --batch 8 --world "$np" \
        --lr 1e-2 $SPREAD >"$TMP/$name.eq" 2>&1; then
        pass "hsdp $name ($*, ${took}s): equivalent to 1 x $((8 * np)): $(grep -m1 '^params' "$TMP/$name.eq")"
    else
        fail "hsdp $name ($*): not equivalent to one process: $why $(grep -m2 FAIL "$TMP/$name.eq" | tr '\n' ' ' | head -c 400)"
    fi
    [ "$pl" = - ] && return
    want "$m" "$k" "$pl" | sed 's/$/ world 0/' >"$TMP/$name.want"
    if got "$TMP/$name.json" >"$TMP/$name.got" 2>&1 && cmp -s "$TMP/$name.want" "$TMP/$name.got"; then
        pass "hsdp $name traffic per rank over $STEPS steps, to the byte: $(awk '!seen[$6 " " $15]++ { printf "rank %s: node %s B intra, replicas %s B inter; ", $1, $6, $15 }' "$TMP/$name.got")nothing on the world's communicator"
    else
        fail "hsdp $name traffic, got/wanted: $(diff "$TMP/$name.got" "$TMP/$name.want" | head -n 6 | tr '\n' ' ')"
    fi
    case " $* " in *" --prefetch "*) return ;; esac
    if memory "$k" "$TMP/$name.json" >"$TMP/$name.mem" 2>&1; then
        pass "hsdp $name memory per rank = FSDP's over $k ranks: $(cat "$TMP/$name.mem")"
    else
        fail "hsdp $name memory: $(cat "$TMP/$name.mem")"
    fi
}

hsdp 2x2 4 2 2 block --topology 2x2 --hybrid 2
hsdp 2x2-spread 4 2 2 spread --topology 2x2 --placement spread --hybrid 2
hsdp 3x2 6 3 2 block --topology 3x2 --hybrid 2
hsdp 2x3-spread-prefetch 6 2 3 spread --topology 2x3 --placement spread --hybrid 3 --prefetch
# without --topology: groups of K consecutive ranks, on one machine (so all of it intra)
hsdp flat 4 2 2 - --hybrid 2
if python3 -c "import json, sys
r = json.load(open(sys.argv[1]))['ranks']
sys.exit(not all(x['comms']['hsdp_replica']['inter_bytes_sent'] == 0 and x['comms']['hsdp_replica']['bytes_sent'] > 0 for x in r))" "$TMP/flat.json"; then
    pass "hsdp without --topology: the replicas' all-reduce runs, on one machine (intra)"
else
    fail "hsdp without --topology: $(head -c 300 "$TMP/flat.json")"
fi

# K = the world: one node, plain FSDP (no splits), the same dump to the bit
DP_TIMEOUT_S=60 "$MPIRUN" -np 4 $FSDP $A --steps 2 --batch 8 --dump "$TMP/h0.st" >/dev/null 2>&1
DP_TIMEOUT_S=60 "$MPIRUN" -np 4 $FSDP $A --steps 2 --batch 8 --hybrid 4 --dump "$TMP/h4.st" >/dev/null 2>&1
if [ -s "$TMP/h0.st" ] && cmp -s "$TMP/h0.st" "$TMP/h4.st"; then
    pass "hsdp --hybrid 4 on 4 ranks: plain FSDP, the same dump to the bit"
else
    fail "hsdp --hybrid 4 on 4 ranks: its dump differs from plain FSDP's"
fi

# Checkpoints: node 0's K ranks write the shards (the other nodes' are the same bits), as FSDP on K
# ranks; they consolidate, and the resumed run matches the one process resumed at the same step.
C=$TMP/ck/c.st
DP_TIMEOUT_S=60 "$MPIRUN" -np 4 $FSDP $A --steps 4 --batch 8 --topology 2x2 --placement spread --hybrid 2 \
    --save "$C" >"$TMP/save.log" 2>&1
files=$(cd "$TMP/ck" 2>/dev/null && ls | tr '\n' ' ')
if [ "$files" = "c.st.rank0-of-2.safetensors c.st.rank1-of-2.safetensors " ] &&
    $SOL/08-fsdp/fsdp_consolidate --shards "$C" --out "$TMP/ck/full.st" >"$TMP/cons.log" 2>&1 &&
    DP_TIMEOUT_S=60 "$MPIRUN" -np 4 $FSDP $A --steps 8 --batch 8 --hybrid 2 --resume "$TMP/ck/full.st" \
        --dump "$TMP/res.st" >"$TMP/res.log" 2>&1 &&
    $TRAIN $A --steps 4 --batch 32 --device cpu --save "$TMP/r4.st" >/dev/null 2>&1 &&
    $TRAIN $A --steps 8 --batch 32 --device cpu --resume "$TMP/r4.st" --dump "$TMP/refres.st" >/dev/null 2>&1 &&
    "$EQUIV" "$TMP/refres.st" "$TMP/res.st" --batch 8 --world 4 --lr 1e-2 >"$TMP/res.eq" 2>&1; then
    pass "hsdp checkpoints: node 0 writes $files; consolidated and resumed on 4 ranks, equivalent to one process resumed"
else
    fail "hsdp checkpoints: files '$files'; $(tail -n 1 "$TMP/cons.log") $(grep -m2 FAIL "$TMP/res.eq" 2>/dev/null | tr '\n' ' ')"
fi

# Misuse: one line each (mpirun's ranks all end; one says why)
Q="$A --steps 1 --batch 8"
expect_error "hsdp: K not dividing the world" "4 ranks do not split into groups of 3" \
    "$MPIRUN" -np 4 $FSDP $Q --hybrid 3
expect_error "hsdp: K not the topology's" "--topology 2x2's nodes have 2: give --hybrid 2" \
    "$MPIRUN" -np 4 $FSDP $Q --topology 2x2 --hybrid 4
expect_error "hsdp: a ZeRO stage below 3" "--zero-stage 3 (FSDP) only" "$MPIRUN" -np 2 $FSDP $Q --hybrid 1 --zero-stage 2
echo "# hsdp.sh took $(($(date +%s) - t0))s"
