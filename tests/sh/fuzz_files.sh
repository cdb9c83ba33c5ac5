# File fuzzing: damaged (bit flips), truncated, crafted and wrong-type inputs for every reader of the
# course — the dataset (.tok), the checkpoint (--resume, also of train_fsdp), the FSDP shard set
# (fsdp_consolidate) and the grader tools' inputs (equiv: dumps; statcheck: --stats JSON; overlap:
# --trace TSV; report: results TSV and results.json). A clean refusal is a non-zero exit below 124
# (not a signal, not the timeout) and exactly one line on stderr. For inputs that carry no checksum
# (stats, trace, results) a flipped byte can still be a valid file: there only "no crash, no hang,
# at most one line on stderr" is required. FUZZ_BUILD=DIR runs another build's programs (to count
# the cases an older build got wrong); the crafted files are made with this tree's tools either way.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/sh/lib_safetensors.sh"
B=${FUZZ_BUILD:-$ROOT/build}
TR=$B/solutions/01-trainer/train
FS=$B/solutions/08-fsdp/train_fsdp
CONS=$B/solutions/08-fsdp/fsdp_consolidate
G=$B/grading
tried=0 clean=0 shown=0
W=$TMP/main

# verdict NAME KIND: KIND strict (refused: one line on stderr), tool (refused in the grader tools'
# format: a FAIL line or "tool: reason" on stdout, at most one line on stderr) or survive (any exit
# below 124, at most one line on stderr)
verdict() {
    tried=$((tried + 1))
    lines=$(grep -c . "$W.err")
    why=""
    if [ "$rc" -ge 124 ]; then why="exit status $rc (signal, sanitizer or timeout)"
    elif [ "$2" != survive ] && [ "$rc" = 0 ]; then why="accepted (exit 0)"
    elif [ "$2" = strict ] && [ "$lines" != 1 ]; then why="$lines lines on stderr"
    elif [ "$2" = tool ] && [ "$lines" = 0 ] && ! grep -q . "$W.out"; then why="no word of why"
    elif [ "$lines" -gt 1 ]; then why="$lines lines on stderr"
    fi
    if [ -z "$why" ]; then
        clean=$((clean + 1))
    elif [ $shown -lt 25 ]; then
        shown=$((shown + 1))
        echo "FAIL fuzz $1: $why: $(head -c 240 "$W.err" | tr '\n' ' ')"
    fi
}
run() { # NAME KIND CMD...
    n=$1 k=$2
    shift 2
    timeout -k 2 30 "$@" >"$W.out" 2>"$W.err" </dev/null
    rc=$?
    verdict "$n" "$k"
}
# multi-rank: Open MPI may print its abort banner around our line (another part of issue 11); here
# one line of ours must name the file (each rank reads it, so more than one may), nothing may crash
run_mpi() { # NAME NEEDLE CMD...
    n=$1 needle=$2
    shift 2
    timeout -k 2 60 "$@" >"$W.out" 2>"$W.err" </dev/null
    rc=$?
    grep -F -- "$needle" "$W.err" | grep -v "note:" | head -n 1 >"$W.err1"
    mv "$W.err1" "$W.err"
    verdict "$n" strict
}
# control NAME CMD...: the undamaged input is accepted (else every refusal above means nothing)
control() {
    n=$1
    shift
    timeout -k 2 60 "$@" >"$W.out" 2>&1 </dev/null || fail "fuzz control: $n: $(tail -n 2 "$W.out" | tr '\n' ' ')"
}
size() { wc -c <"$1" | tr -d ' '; }
# offsets: the first 16 bytes, then COUNT more spread over the file
offsets() { # FILE COUNT
    s=$(size "$1")
    echo 0 1 2 3 4 5 6 7 8 9 10 12 15
    i=1
    while [ $i -le "$2" ]; do echo $(((s - 17) * i / $2 + 16)); i=$((i + 1)); done
}
lengths() { # FILE COUNT: truncations
    s=$(size "$1")
    echo 0 1 7 8 9 31 32
    i=1
    while [ $i -lt "$2" ]; do echo $((s * i / $2)); i=$((i + 1)); done
    echo $((s - 1))
}
printf 'this is a text file, not a dataset\n' >"$TMP/text"
: >"$TMP/empty"
mkdir "$TMP/dir"
mkfifo "$TMP/fifo" # a reader that opens it without care blocks forever

# ---- the inputs, made by this build -----------------------------------------------------------
Q="--preset tiny --data $FIX --val none --batch 8 --log-every 1000"
$TRAIN $Q --steps 2 --save "$TMP/ck.st" --dump "$TMP/dump.st" >/dev/null 2>&1 || fail "fuzz: writing a checkpoint"
"$MPIRUN" -np 2 "$ROOT/build/solutions/08-fsdp/train_fsdp" $Q --steps 2 --save "$TMP/sh" >/dev/null 2>&1 ||
    fail "fuzz: train_fsdp --save on 2 ranks"
"$MPIRUN" -np 3 "$ROOT/build/solutions/08-fsdp/train_fsdp" $Q --steps 2 --save "$TMP/three" >/dev/null 2>&1 ||
    fail "fuzz: train_fsdp --save on 3 ranks"
"$MPIRUN" -np 2 "$ROOT/build/solutions/05-ddp/train_ddp" $Q --steps 3 --trace "$TMP/tr.json" --stats "$TMP/stats.json" \
    >/dev/null 2>&1 || fail "fuzz: train_ddp --trace --stats"
printf '01\tcheck\tdescription\t1\t1\t0.5\tpassed\t%s\n' "$TMP/empty" >"$TMP/results.tsv"
"$ROOT/build/grading/report" --format gradescope --out "$TMP/results.json" "$TMP/results.tsv" ||
    fail "fuzz: report --format gradescope"

section_dataset() {
# ---- the dataset --------------------------------------------------------------------------------
D=$TMP/tok
control "the intact dataset" $TR $Q --steps 1
control "the intact stats" "$G/statcheck" "$TMP/stats.json" --ranks 2
control "report --validate of an intact results.json" "$G/report" --validate "$TMP/results.json"
for o in 0 8 12 16 24 28 40 500; do flip_bit "$FIX" "$D" "$o"; run "dataset flip@$o" strict $TR $Q --data "$D" --steps 1; done
for l in 0 7 31 32 1000; do head -c "$l" "$FIX" >"$D"; run "dataset cut@$l" strict $TR $Q --data "$D" --steps 1; done
for w in "$TMP/ck.st" "$TMP/text" "$TMP/empty" /dev/null "$TMP/dir"; do
    run "dataset is $(basename "$w")" strict $TR $Q --data "$w" --steps 1
done
# crafted headers: vocabulary 0 and 300, a token count past the file, version 2
for c in '12 \000' '13 \001' '16 \377' '8 \002'; do
    cp "$FIX" "$D"
    # shellcheck disable=SC2059
    printf "${c#* }" | dd of="$D" bs=1 seek="${c%% *}" conv=notrunc 2>/dev/null
    run "dataset crafted byte ${c%% *}" strict $TR $Q --data "$D" --steps 1
done

# model sizes within each flag's range whose product is terabytes: refused before allocating
run "flags --hidden 65536 --embed 65536" strict $TR $Q --hidden 65536 --embed 65536 --steps 1
# a directory as the --save target; a stale temporary of a killed save (PID that cannot exist) goes
run "--save DIR" strict $TR $Q --steps 1 --save "$TMP/dir"
: >"$TMP/ck3.st.tmp.999999999"
control "--save next to a stale temporary" $TR $Q --steps 1 --save "$TMP/ck3.st"
[ -e "$TMP/ck3.st.tmp.999999999" ] && fail "fuzz: the stale temporary ck3.st.tmp.999999999 of a dead writer was left"

}

section_checkpoint() {
# ---- the checkpoint through --resume (the shared reader's many cases: on a dump, in the last section)
C=$TMP/c.st
control "train --resume of the intact checkpoint" $TR $Q --steps 4 --resume "$TMP/ck.st"
# the length, the header (its size is in the first 8 bytes), the data
hl=$(od -An -tu8 -N8 "$TMP/ck.st" | tr -d ' ')
cs=$(size "$TMP/ck.st")
for o in 0 3 7 8 9 $((hl / 3)) $((hl / 2)) $((hl + 4)) $((hl + 9)) $((cs / 2)) $((cs - 1)); do
    flip_bit "$TMP/ck.st" "$C" "$o"
    run "checkpoint flip@$o" strict $TR $Q --steps 4 --resume "$C"
done
for l in 0 100 3000 $(($(size "$TMP/ck.st") - 1)); do head -c "$l" "$TMP/ck.st" >"$C"; run "checkpoint cut@$l" strict $TR $Q --steps 4 --resume "$C"; done
for w in "$FIX" "$TMP/text" "$TMP/empty" /dev/null "$TMP/dir" "$TMP/sh.rank0-of-2.safetensors" "$TMP/dump.st"; do
    run "checkpoint is $(basename "$w")" strict $TR $Q --steps 4 --resume "$w"
done
# crafted, what checkpoint.c checks: its counters, shapes, dtype, model and format
for e in 's/"step":"2"/"step":"abc"/' 's/"step":"2"/"step":"2x"/' 's/"step":"2"/"step":"-1"/' \
    's/"step":"2"/"step":"99999999999999999999"/' 's/"step":"2"/"step":""/' 's/"optim_t":"2"/"optim_t":"abc"/' \
    's/"optim_t":"2"/"optim_t":"3"/' 's/"seed":"[0-9]*"/"seed":"1e3"/' 's/"global_batch":"8"/"global_batch":"8 "/' \
    's/"h.0.weight":{"dtype":"F32","shape":\[32,64\]/"h.0.weight":{"dtype":"F32","shape":[64,32]/' \
    's/"wte":{"dtype":"F32"/"wte":{"dtype":"I32"/' 's/hidden=32/hidden=2000000000/' 's/"format":"[^"]*"/"format":"x"/'; do
    st_edit "$TMP/ck.st" "$C" "$e"
    run "checkpoint crafted $e" strict $TR $Q --steps 4 --resume "$C"
done
}

section_shards_and_tools() {
# ---- the FSDP shard set -------------------------------------------------------------------------
J=$TMP/j
# train_fsdp --resume reads the same checkpoint on every rank
st_edit "$TMP/ck.st" "$J" 's/"step":"2"/"step":"abc"/'
run_mpi "train_fsdp --resume crafted step" "$J" "$MPIRUN" -np 2 $FS $Q --steps 4 --resume "$J"
flip_bit "$TMP/ck.st" "$J" 30000
run_mpi "train_fsdp --resume flipped" "$J" "$MPIRUN" -np 2 $FS $Q --steps 4 --resume "$J"

S=$TMP/set
mkdir "$S"
cons() { # NAME: consolidate $S/sh after the caller damaged it, then restore it
    run "$1" strict $CONS --shards "$S/sh" --out "$TMP/full.st"
    rm -f "$S"/*
    cp "$TMP"/sh.rank*-of-2.safetensors "$S/" 2>/dev/null
}
cp "$TMP"/sh.rank*-of-2.safetensors "$S/"
control "fsdp_consolidate of the intact shards" $CONS --shards "$S/sh" --out "$TMP/full.st"
control "train --resume of the consolidated checkpoint" $TR $Q --steps 4 --resume "$TMP/full.st"
R1=$S/sh.rank1-of-2.safetensors
for o in $(offsets "$R1" 6); do flip_bit "$TMP/sh.rank1-of-2.safetensors" "$R1" "$o"; cons "shard flip@$o"; done
for l in 0 8 100 5000; do head -c "$l" "$TMP/sh.rank1-of-2.safetensors" >"$R1"; cons "shard cut@$l"; done
for w in "$TMP/ck.st" "$FIX" "$TMP/empty" "$TMP/text" "$TMP/sh.rank0-of-2.safetensors"; do cp "$w" "$R1"; cons "shard 1 is $(basename "$w")"; done
rm "$R1"
cons "shard 1 missing"
for e in 's/"run_id":"[0-9a-f]*"/"run_id":"0123456789abcdef"/' 's/,"run_id":"[0-9a-f]*"//' 's/"step":"2"/"step":"3"/' \
    's/"world_size":"2"/"world_size":"3"/' 's/"rank":"1"/"rank":"abc"/' 's/"optim_t":"2"/"optim_t":"2x"/' \
    's/"optimizer":"adamw"/"optimizer":"sgd"/'; do
    st_edit "$TMP/sh.rank1-of-2.safetensors" "$R1" "$e"
    cons "shard 1 crafted $e"
done
for e in 's/layers=2/layers=-3/' 's/hidden=32/hidden=2000000000/' 's/layers=2/layers=2x/' 's/"optimizer":"adamw"/"optimizer":"foo"/' \
    's/"unit0.param":{"dtype":"F32","shape":\[[0-9]*\]/"unit0.param":{"dtype":"F32","shape":[0]/'; do
    for r in 0 1; do st_edit "$TMP/sh.rank$r-of-2.safetensors" "$S/sh.rank$r-of-2.safetensors" "$e"; done
    cons "both shards crafted $e"
done
for f in "$TMP"/three.rank*; do cp "$f" "$S/sh${f#"$TMP"/three}"; done
cons "2- and 3-rank shard sets side by side"

# ---- the grader tools' inputs (and the checkpoint reader's many cases, through equiv on a dump) ----
J=$TMP/j
control "equiv of the intact dump" "$G/equiv" "$TMP/dump.st" "$TMP/dump.st"
# every 9th byte of the header (names, shapes, offsets, metadata values, padding) and 100 more
hl=$(od -An -tu8 -N8 "$TMP/dump.st" | tr -d ' ')
for o in $(seq 8 9 $((hl + 7))) $(offsets "$TMP/dump.st" 40); do flip_bit "$TMP/dump.st" "$J" "$o"; run "dump flip@$o" tool "$G/equiv" "$TMP/dump.st" "$J"; done
for l in $(lengths "$TMP/dump.st" 12); do head -c "$l" "$TMP/dump.st" >"$J"; run "dump cut@$l" tool "$G/equiv" "$TMP/dump.st" "$J"; done
# crafted, what the shared reader checks (on a dump: equiv is quick): an element count whose byte
# count wraps around 2^64 to the right size, a fractional dimension, a count past 2^64, no header
# checksum, text after the header's JSON, a second metadata object
for e in 's/"grad.wte":{"dtype":"F32","shape":\[27,8\]/"grad.wte":{"dtype":"F32","shape":[89096,107743,960820933]/' \
    's/"grad.wte":{"dtype":"F32","shape":\[27,8\]/"grad.wte":{"dtype":"F32","shape":[27,8.5]/' \
    's/"grad.wte":{"dtype":"F32","shape":\[27,8\]/"grad.wte":{"dtype":"F32","shape":[1000000000000000,1000000000000000]/' \
    's/,"header_crc32":"[0-9a-f]*"//' 's/}$/}xyz/' \
    's/}}$/},"__metadata__":{"a":"1","b":"2","c":"3","d":"4","e":"5","f":"6","g":"7","h":"8","i":"9","j":"0"}}/'; do
    st_edit "$TMP/dump.st" "$J" "$e"
    run "dump crafted $e" tool "$G/equiv" "$TMP/dump.st" "$J"
done
for o in $(offsets "$TMP/stats.json" 20); do flip_bit "$TMP/stats.json" "$J" "$o"; run "stats flip@$o" survive "$G/statcheck" "$J" --ranks 2 all.ops=9; done
for l in $(lengths "$TMP/stats.json" 8); do head -c "$l" "$TMP/stats.json" >"$J"; run "stats cut@$l" tool "$G/statcheck" "$J" --ranks 2 all.ops=9; done
for o in $(offsets "$TMP/tr.json.tsv" 20); do flip_bit "$TMP/tr.json.tsv" "$J" "$o"; run "trace flip@$o" survive "$G/overlap" "$J" --ranks 2 --steps 3 --skip 1; done
for l in $(lengths "$TMP/tr.json.tsv" 8); do head -c "$l" "$TMP/tr.json.tsv" >"$J"; run "trace cut@$l" survive "$G/overlap" "$J" --ranks 2 --steps 3 --skip 1; done
for o in $(offsets "$TMP/results.json" 10); do flip_bit "$TMP/results.json" "$J" "$o"; run "results.json flip@$o" survive "$G/report" --validate "$J"; done
for o in $(offsets "$TMP/results.tsv" 10); do flip_bit "$TMP/results.tsv" "$J" "$o"; run "results.tsv flip@$o" survive "$G/report" --format json "$J"; done
for w in "$TMP/ck.st" "$FIX" "$TMP/text" "$TMP/empty" /dev/null "$TMP/dir" "$TMP/fifo"; do
    b=$(basename "$w")
    run "stats is $b" tool "$G/statcheck" "$w" --ranks 2 all.ops=9
    run "trace is $b" tool "$G/overlap" "$w" --ranks 2 --steps 3
    run "results.json is $b" tool "$G/report" --validate "$w"
    run "results.tsv is $b" survive "$G/report" --format json "$w"
    run "dump is $b" tool "$G/equiv" "$TMP/dump.st" "$w"
done

}

# The sections run side by side (a trainer's start is mostly waiting for MPI), each with its own
# scratch names and counts.
for sec in dataset checkpoint shards_and_tools; do
    (W=$TMP/$sec; section_$sec; echo "$tried $clean" >"$TMP/$sec.count") &
done
wait
tried=0 clean=0
for sec in dataset checkpoint shards_and_tools; do
    [ -s "$TMP/$sec.count" ] || { fail "fuzz: section $sec did not finish"; continue; }
    read -r t c <"$TMP/$sec.count"
    tried=$((tried + t)) clean=$((clean + c))
done
if [ "$clean" = "$tried" ]; then
    pass "fuzz: $clean of $tried damaged, truncated, crafted and wrong-type files refused cleanly"
else
    fail "fuzz: $clean of $tried cases clean ($((tried - clean)) not; the first ones above)"
fi
