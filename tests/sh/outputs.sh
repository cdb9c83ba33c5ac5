# No output lost: every output path is checked before training (one line naming the flag), every
# write and close is checked (a full disk is an error, never an empty file and exit 0), and the loss
# CSV survives a kill and continues correctly on resume.
. "$(dirname "$0")/lib.sh"
DDP=$ROOT/build/solutions/05-ddp/train_ddp
CONS=$ROOT/build/solutions/08-fsdp/fsdp_consolidate
# a run that would take minutes: refused before it starts, or the timeout says it was not
LONG="--steps 100000000"

# ---- 1. output paths checked up front --------------------------------------------------------------
mkdir "$TMP/adir"
echo x >"$TMP/afile"
for flag in --save --dump --loss-csv --stats --trace; do
    expect_error "$flag into a directory, up front" "$flag $TMP/adir is a directory" timeout 30 $TRAIN $QUICK $LONG $flag "$TMP/adir"
    expect_error "$flag under a file, up front" "$TMP/afile is not a directory" timeout 30 $TRAIN $QUICK $LONG $flag "$TMP/afile/sub/out"
done
expect_error "--sample-out into a directory, up front" "--sample-out $TMP/adir is a directory" timeout 30 $TRAIN $QUICK $LONG --sample 10 --sample-out "$TMP/adir"
# /sys takes no new files, not even from root (access(2) would say it does: the check creates a probe)
expect_error "--stats where no file can be created, up front" "cannot create files in /sys" timeout 30 $TRAIN $QUICK $LONG --stats /sys/dpc-stats.json
expect_error "--trace's .tsv companion is checked too" "--trace $TMP/adir/t.json.tsv is a directory" \
    sh -c "mkdir -p '$TMP/adir/t.json.tsv' && exec timeout 30 $TRAIN $QUICK $LONG --trace '$TMP/adir/t.json'"
# checkpoints and dumps are renamed into place: that would replace a device (as root, /dev/null itself)
expect_error "--save onto a device, up front" "--save /dev/null is not a regular file" timeout 30 $TRAIN $QUICK $LONG --save /dev/null
expect_error "--dump onto a device, up front" "--dump /dev/null is not a regular file" timeout 30 $TRAIN $QUICK $LONG --dump /dev/null
expect_error "fsdp_consolidate --out into a directory" "--out $TMP/adir is a directory" "$CONS" --shards "$TMP/none" --out "$TMP/adir"
# multi-rank: rank 0 checks, and its fatal error ends the other rank too (promptly, not at its
# timeout). Open MPI may add its abort banner (another part of issue 11): our line must be there.
expect_line() { # NAME LINE CMD...: CMD exits non-zero and one line of its stderr is LINE
    name=$1 line=$2
    shift 2
    if timeout 60 "$@" >/dev/null 2>"$TMP/err"; then
        fail "$name: exited 0"
    elif ! grep -qxF -- "$line" "$TMP/err"; then
        fail "$name: no line '$line': $(head -c 300 "$TMP/err")"
    else
        pass "$name: $line"
    fi
}
expect_line "train_ddp -np 2 --ddp-log under a file, up front" "train_ddp: --ddp-log $TMP/afile/ddp.json: $TMP/afile is not a directory" \
    "$MPIRUN" -np 2 "$DDP" $QUICK $LONG --ddp-log "$TMP/afile/ddp.json"
expect_line "measure --out into a directory, up front" "measure: --out $TMP/adir is a directory; give a file name" \
    "$MPIRUN" -np 2 build/solutions/00-launch/measure --out "$TMP/adir"
# writable devices are legitimate targets, and a missing directory is created
if $TRAIN $QUICK --steps 2 --loss-csv /dev/null --stats /dev/null --trace /dev/null --sample 5 --sample-out /dev/null \
    --dump "$TMP/new/dir/d.st" >/dev/null 2>"$TMP/err" && [ -s "$TMP/new/dir/d.st" ] && [ -c /dev/null ]; then
    pass "/dev/null accepted as an output (and left a device), missing directories created"
else
    fail "writing to /dev/null or to a new directory: $(head -c 300 "$TMP/err")"
fi
# a probe left by a killed process whose id this one now has is stale, not a reason to refuse
mkdir "$TMP/stale"
if sh -c 'touch "$1/.dpc-probe.$$" && exec "$2" $3 --steps 1 --stats "$1/s.json"' sh "$TMP/stale" "$TRAIN" "$QUICK" >/dev/null 2>"$TMP/err"; then
    pass "a stale probe file of this process id is replaced"
else
    fail "a stale probe file of this process id: $(head -c 300 "$TMP/err")"
fi
left=$(find "$TMP" -name '.dpc-probe.*' -o -name '*.tmp.*' | head -n 3)
[ -z "$left" ] && pass "the checks left no probe or temporary files" || fail "left behind: $left"

# ---- 2. every write and close checked --------------------------------------------------------------
for o in "--loss-csv /dev/full" "--sample 20 --sample-out /dev/full" "--stats /dev/full" "--trace /dev/full"; do
    expect_error "${o#--sample 20 } on a full disk" "cannot write /dev/full: No space left on device" $TRAIN $QUICK --steps 3 $o
done
expect_line "bench_allreduce --tsv on a full disk" "bench_allreduce: cannot write /dev/full: No space left on device" \
    "$MPIRUN" -np 2 build/solutions/04-ring-allreduce/bench_allreduce --begin 4 --end 64 --tsv /dev/full
expect_error "--ddp-log on a full disk" "cannot write /dev/full: No space left on device" $DDP $QUICK --steps 3 --ddp-log /dev/full
# a full disk behind a regular file (a file size limit, its signal ignored: writes fail with EFBIG);
# under mpirun, whose daemon (not the limited rank) keeps Open MPI's own session files
for o in stats trace sample-out; do
    extra=; [ $o = sample-out ] && extra="--sample 2000"
    rm -f "$TMP"/full*
    timeout 60 "$MPIRUN" -np 1 sh -c "trap '' XFSZ; ulimit -f 1; exec $TRAIN $QUICK --steps 3 $extra --$o $TMP/full.out" >/dev/null 2>"$TMP/err"
    rc=$?
    files=$(cd "$TMP" && ls full* 2>/dev/null | tr '\n' ' ')
    if [ $rc = 0 ] || ! grep -q "cannot write $TMP/full.out: File too large" "$TMP/err"; then
        fail "--$o past a file size limit: rc $rc, $(head -c 200 "$TMP/err")"
    elif [ -n "$files" ]; then
        fail "--$o past a file size limit left $files"
    else
        pass "--$o past a file size limit: one line, no empty or partial file left"
    fi
done

# ---- 3. the loss CSV: kept by a killed run, continued on resume --------------------------------------
steps() { grep -v '^step,' "$1" | cut -d, -f1 | tr '\n' ' '; }
increasing() { awk -F, 'NR == 1 { if ($0 != "step,loss,lr,val_loss") exit 1; next } $1 <= last { exit 1 } { last = $1 } END { exit NR < 2 }' "$1"; }
# steps of ~20 ms (the default model), so that the kill comes a few rows after the line it waits for,
# long before stdio's 4 KiB buffer would have filled and been written anyway
$TRAIN --data "$FIX" --val none --batch 8 --log-every 1 $LONG --loss-csv "$TMP/slow.csv" >"$TMP/slow.out" 2>&1 &
pid=$!
i=0
while ! grep -q '^step *20/' "$TMP/slow.out" && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
rows=$(grep -c '^[0-9]' "$TMP/slow.csv")
if ! grep -q '^step *20/' "$TMP/slow.out"; then
    fail "the run to kill never logged step 20: $(tail -c 200 "$TMP/slow.out")"
elif [ "$rows" -ge 19 ] && increasing "$TMP/slow.csv"; then
    pass "a run killed with SIGKILL after logging step 20 kept its $rows rows"
else
    fail "a run killed with SIGKILL after logging step 20 kept $rows rows"
fi
# a killed run that got past its last checkpoint
$TRAIN $QUICK $LONG --save-every 200 --save "$TMP/k.st" --loss-csv "$TMP/k.csv" >/dev/null 2>&1 &
pid=$!
i=0
while [ ! -f "$TMP/k.step400.st" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
[ -f "$TMP/k.step400.st" ] || fail "the run to kill never reached step 400"
# resume from step 200: the killed run's rows past 200 are replaced, not duplicated
$TRAIN $QUICK --steps 500 --resume "$TMP/k.step200.st" --loss-csv "$TMP/k.csv" >/dev/null 2>"$TMP/err" || fail "resuming: $(cat "$TMP/err")"
if [ "$(grep -c '^step,' "$TMP/k.csv")" = 1 ] && increasing "$TMP/k.csv" && [ "$(grep -c '^[0-9]' "$TMP/k.csv")" = 500 ]; then
    pass "resumed CSV: one header, steps 1..500 strictly increasing"
else
    fail "resumed CSV: $(grep -c '^step,' "$TMP/k.csv") headers, steps $(steps "$TMP/k.csv" | head -c 200)..."
fi
# a killed run that left an empty CSV (or none): the resumed run starts it with its header
: >"$TMP/e.csv"
$TRAIN $QUICK --steps 205 --resume "$TMP/k.step200.st" --loss-csv "$TMP/e.csv" >/dev/null 2>&1
[ "$(steps "$TMP/e.csv")" = "201 202 203 204 205 " ] && increasing "$TMP/e.csv" && pass "resume into an empty CSV writes its header" ||
    fail "resume into an empty CSV: $(head -n 2 "$TMP/e.csv" | tr '\n' '|')"
# with validation: the final evaluation goes into the last step's row (one row per step), and a
# run resumed from the end of another continues after it
$TRAIN $QUICK --val "$FIXVAL" --eval-batches 2 --steps 10 --save "$TMP/f.st" --loss-csv "$TMP/f.csv" >/dev/null 2>&1
$TRAIN $QUICK --val "$FIXVAL" --eval-batches 2 --steps 12 --resume "$TMP/f.st" --loss-csv "$TMP/f.csv" >/dev/null 2>&1
if increasing "$TMP/f.csv" && [ "$(steps "$TMP/f.csv")" = "1 2 3 4 5 6 7 8 9 10 11 12 " ] &&
    grep -q '^10,[0-9.]*,[0-9.e+-]*,[0-9]' "$TMP/f.csv" && grep -q '^12,[0-9.]*,[0-9.e+-]*,[0-9]' "$TMP/f.csv"; then
    pass "final evaluations in their step's row: steps 1..12 once each, val_loss at 10 and 12"
else
    fail "final evaluation rows: $(tail -n 4 "$TMP/f.csv" | tr '\n' '|')"
fi
