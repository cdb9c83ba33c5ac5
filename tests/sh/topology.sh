# The emulated two-level cluster (--topology MxK, common/topology.h) and the split communicators
# (comm_split_node, comm_split_local), through MPI and through the grader's switch: which world ranks
# each split holds, a ring on each moving exactly its bytes over the class it should (intra on the
# node split, inter on the local split), the same bytes per WORLD pair in the seam's process counters
# and in the switch's log, the emulated cost of one message of each class against the model computed
# here from the presets' figures (the wall clock only from below), and one line for each misuse.
. "$(dirname "$0")/lib.sh"
P=$BUILD/tests/progs/topo_probe
SWITCH=$BUILD/grading/switch
SP=""
trap '[ -n "$SP" ] && kill "$SP" 2>/dev/null; rm -rf "$TMP"' EXIT
BASE=1000

if [ ! -x "$P" ] || [ ! -x "$SWITCH" ]; then
    fail "topology: $P or $SWITCH not built (make test-build)"
    exit 0
fi

# want M K PLACEMENT: what topo_probe ring must print (layout, class, peer and lib lines), sorted,
# computed from the definition of the placements, not from the code under test.
want() {
    awk -v m="$1" -v k="$2" -v pl="$3" -v base=$BASE 'function node(q) { return pl == "spread" ? q % m : int(q / k) }
    function loc(q) { return pl == "spread" ? int(q / m) : q % k }
    BEGIN {
        n = m * k
        for (r = 0; r < n; r++) {
            # the node split: the ranks on the node of r by world rank; the local split: the ranks
            # with the local index of r, by node
            nn = 0; nl = 0; ln = ""; ll = ""
            for (q = 0; q < n; q++) if (node(q) == node(r)) { if (q == r) ir = nn; mem[nn++] = q; ln = ln (nn > 1 ? " " : "") q }
            nextn[r] = mem[(ir + 1) % nn]; sizen[r] = nn
            for (x = 0; x < m; x++) for (q = 0; q < n; q++) if (loc(q) == loc(r) && node(q) == x) {
                if (q == r) jr = nl; mem[nl++] = q; ll = ll (nl > 1 ? " " : "") q }
            nextl[r] = mem[(jr + 1) % nl]; sizel[r] = nl
            printf "layout %d node %d nodecomm %d/%d [%s] localcomm %d/%d [%s]\n", r, node(r), ir, nn, ln, jr, nl, ll
            b = 4 * (base + r)
            printf "class %d node intra %d inter 0 local intra 0 inter %d\n", r, (nn > 1 ? b : 0), (nl > 1 ? b : 0)
            printf "lib %d calls 4\n", r # two splits (an all-gather each), an all-reduce on each split
        }
        for (r = 0; r < n; r++) for (p = 0; p < n; p++) {
            if (p == r) continue
            ms = (sizen[r] > 1 && nextn[r] == p) + (sizel[r] > 1 && nextl[r] == p)
            mr = (sizen[p] > 1 && nextn[p] == r) + (sizel[p] > 1 && nextl[p] == r)
            printf "peer %d %d msgs_sent %d bytes_sent %d msgs_recv %d bytes_recv %d\n", r, p, ms, ms * 4 * (base + r), mr, mr * 4 * (base + p)
        }
    }' | sort
}

# ring TRANSPORT M K PLACEMENT: topo_probe ring on M*K ranks, its lines against want(); through the
# switch, the switch's log against them too
ring() {
    tr=$1 m=$2 k=$3 pl=$4
    name="$tr ${m}x$k $pl"
    want "$m" "$k" "$pl" >"$TMP/want"
    t0=$(date +%s)
    if [ "$tr" = switch ]; then
        start_switch "ring-${m}x$k-$pl"
        DP_TIMEOUT_S=60 timeout -k 5 120 "$MPIRUN" -np $((m * k)) "$P" ring \
            --topology "${m}x$k" --placement "$pl" >"$TMP/out" 2>&1
        rc=$?
        stop_switch
    else
        DP_TIMEOUT_S=60 timeout -k 5 120 "$MPIRUN" -np $((m * k)) "$P" ring --topology "${m}x$k" --placement "$pl" \
            >"$TMP/out" 2>&1
        rc=$?
    fi
    took=$(($(date +%s) - t0))
    grep '^layout \|^class \|^peer \|^lib ' "$TMP/out" | sort >"$TMP/seam"
    if [ $rc != 0 ] || ! cmp -s "$TMP/seam" "$TMP/want"; then
        fail "topology $name: exit $rc, seam/wanted: $(diff "$TMP/seam" "$TMP/want" | head -6 | tr '\n' ' ') $(head -c 300 "$TMP/out")"
        return
    fi
    inter=$(awk '$1 == "class" { s += $12 } END { print s }' "$TMP/seam")
    if [ "$tr" = switch ]; then
        # the switch counts per pair of processes: world ranks, whatever communicator they used
        log=$TMP/ring-${m}x$k-$pl.log
        { sed -n 's/^peer 0 /peer /p' "$log"; sed -n 's/^lib 0 \([0-9]*\) calls \([0-9]*\) .*/lib \1 calls \2/p' "$log"; } |
            sort >"$TMP/sw"
        grep '^peer \|^lib ' "$TMP/want" >"$TMP/want_sw"
        if grep -q "^job 0 key [^ ]* size $((m * k)) complete$" "$log" && cmp -s "$TMP/sw" "$TMP/want_sw"; then
            pass "topology $name through the switch (${took}s): splits, per-class bytes and the switch's log per world pair as defined ($inter bytes inter in all)"
        else
            fail "topology $name: the switch's log against the seam: $(diff "$TMP/sw" "$TMP/want_sw" | head -6 | tr '\n' ' ')"
        fi
    else
        pass "topology $name over MPI (${took}s): splits and per-class bytes as defined ($inter bytes inter in all)"
    fi
}

ring mpi 2 2 block
ring mpi 2 2 spread
ring mpi 3 2 block
ring switch 2 3 spread
ring switch 2 2 block

# Flat (no --topology): the nodes are the machines, and this job is on one: one node split of every
# rank, local splits of one, everything intra.
DP_TIMEOUT_S=60 timeout -k 5 60 "$MPIRUN" -np 2 "$P" ring >"$TMP/out" 2>&1
rc=$?
if [ $rc = 0 ] && grep -q "^layout 1 node 0 nodecomm 1/2 \[0 1\] localcomm 0/1 \[1\]$" "$TMP/out" &&
    grep -q "^class 1 node intra 4004 inter 0 local intra 0 inter 0$" "$TMP/out"; then
    pass "flat: the node split is the machine (both ranks), the local split one rank, all bytes intra"
else
    fail "flat: exit $rc: $(head -c 400 "$TMP/out")"
fi

# The emulated cost of one 256 KiB message of each class, with --nic node (2 ranks share a card:
# beta/2 across), against the model from the presets' figures at the default slowdown of 1000:
# nvlink 3 us + b / 450 GB/s, ib-hdr 5 us + b / (25 GB/s / 2). The wall clock may only be later.
B=262144
DP_TIMEOUT_S=60 timeout -k 5 60 "$MPIRUN" -np 4 "$P" ring --topology 2x2 --placement spread --nic node \
    --timed-bytes $B >"$TMP/out" 2>&1
rc=$?
check=$(awk -v b=$B '$1 == "time" {
        want = $3 == "intra" ? 3e-6 * 1000 + b / (450e9 / 1000) : 5e-6 * 1000 + b / (25e9 / 1000 / 2)
        want *= 1e3
        if ($5 - want > 1e-3 || want - $5 > 1e-3) { print "model " $5 " ms for " $3 ", want " want; exit }
        if ($7 < $5) { print "wall " $7 " ms below the model " $5 " ms for " $3; exit }
        seen[$3]++; ratio[$3] = $5
    } END { if (seen["intra"] != 2 || seen["inter"] != 2) print "want 2 intra and 2 inter time lines" }' "$TMP/out")
if [ $rc = 0 ] && [ -z "$check" ]; then
    pass "per-class cost of a 256 KiB message (nic node): $(grep -m1 '^time.*intra' "$TMP/out" | cut -d' ' -f3-), $(grep -m1 '^time.*inter' "$TMP/out" | cut -d' ' -f3-) ms: the model, never faster"
else
    fail "per-class cost: exit $rc: $check $(head -c 300 "$TMP/out")"
fi

# Misuse: one line each (the program's own; mpirun's banner, if any, is not counted).
one_line() { # NAME NEEDLE NP ARGS...
    name=$1 needle=$2 np=$3
    shift 3
    DP_TIMEOUT_S=30 timeout -k 5 60 "$MPIRUN" -np "$np" "$P" "$@" >"$TMP/out" 2>&1
    rc=$?
    if [ $rc != 0 ] && [ "$(grep -c '^topo_probe: ' "$TMP/out")" = 1 ] && grep -qF -- "$needle" "$TMP/out"; then
        pass "$name: $(grep '^topo_probe: ' "$TMP/out" | cut -c1-150)"
    else
        fail "$name: exit $rc, $(grep -c '^topo_probe: ' "$TMP/out") lines (want 1) with '$needle': $(head -c 400 "$TMP/out")"
    fi
}
one_line "a topology for 6 ranks on 4" "--topology 3x2 places 6 ranks, but this job has 4: launch 6 ranks" 4 ring --topology 3x2
one_line "a topology that is no MxK" "--topology expects MxK" 2 ring --topology 2by1
one_line "--placement without --topology" "--placement describes an emulated cluster of nodes: give --topology MxK" 2 ring --placement spread
one_line "--link with --topology" "with --topology, set the link inside a node with --intra" 2 ring --topology 2x1 --link ib
one_line "a split of a freed communicator" "rank 0: comm_split_node of a communicator that was freed" 2 freed
one_line "a split with color -1" "rank 2: comm_split with color -1: colors are 0 or more" 3 color

# --trace under --topology: every message on the track of its link, one span per message. Lesson
# 11's train_ddp on 2x2 (block) with the hierarchical all-reduce, 2 steps of one bucket: each rank
# sends 2(K-1) = 2 messages inside its node and 2(M-1) = 2 across per step, to its node ring's next
# rank and to the rank of its local index on the other node; rank 0 also broadcasts the model at
# the start (to 1 inside, to 2 and 3 across). A flat run has no such tracks.
HIER=$BUILD/solutions/11-topology/train_ddp
Q="--preset tiny --data datasets/fixtures/tiny-train.tok --val none --steps 2 --log-every 1000"
# shellcheck disable=SC2086
if DP_TIMEOUT_S=60 timeout -k 5 120 "$MPIRUN" -np 4 "$HIER" $Q --allreduce hier --topology 2x2 --trace "$TMP/t.json" \
    >"$TMP/out" 2>&1; then
    got=$(awk -F '\t' '$2 == "intra" || $2 == "inter" { sub(/,.*/, "", $5); print $1, $2, $5 }' "$TMP/t.json.tsv" | sort | uniq -c |
        awk '{ printf "%s %s %s %s=%d;", $2, $3, $4, $5, $1 }')
    want="0 inter to 2=5;0 inter to 3=1;0 intra to 1=5;1 inter to 3=4;1 intra to 0=4;2 inter to 0=4;2 intra to 3=4;3 inter to 1=4;3 intra to 2=4;"
    if [ "$got" = "$want" ]; then
        pass "--trace on 2x2: each message on its link's track (rank 0: 5 intra to 1, 5 inter to 2, 1 to 3; the others 4 and 4)"
    else
        fail "--trace on 2x2: message spans per rank, track and peer: got '$got', want '$want'"
    fi
else
    fail "train_ddp --allreduce hier --topology 2x2 --trace: $(tail -n 3 "$TMP/out")"
fi
# shellcheck disable=SC2086
DP_TIMEOUT_S=60 timeout -k 5 120 "$MPIRUN" -np 2 "$HIER" $Q --trace "$TMP/f.json" >"$TMP/out" 2>&1
if [ -f "$TMP/f.json.tsv" ] && ! awk -F '\t' '$2 == "intra" || $2 == "inter" { found = 1 } END { exit !found }' "$TMP/f.json.tsv"; then
    pass "--trace without --topology: no link tracks (a flat run's trace is as before)"
else
    fail "--trace without --topology: $(tail -n 2 "$TMP/out") $(grep -cE 'intra|inter' "$TMP/f.json.tsv" 2>/dev/null) link spans"
fi
