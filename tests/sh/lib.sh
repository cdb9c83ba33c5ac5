# tests/sh/lib.sh — sourced by the shell tests: PASS/FAIL lines, scratch space, error checks.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 2
TMP=$(mktemp -d "${TMPDIR:-/tmp}/dpc-shtest.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
export OMPI_MCA_orte_tmpdir_base="$TMP"
MPIRUN=$ROOT/grading/mpirun
# the build under test: O=dir (tests/run exports it; build-asan, build-tsan for the sanitizer runs)
BUILD=$ROOT/${O:-build}
TRAIN=$BUILD/solutions/01-trainer/train
FIX=$ROOT/datasets/fixtures/tiny-train.tok
FIXVAL=$ROOT/datasets/fixtures/tiny-val.tok
QUICK="--preset tiny --data $FIX --val none --batch 8 --log-every 1000"

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1"; }

# expect_error NAME NEEDLE CMD...: CMD must exit non-zero, print exactly one line on stderr, and that
# line must contain NEEDLE.
expect_error() {
    name=$1 needle=$2
    shift 2
    "$@" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    lines=$(grep -c . "$TMP/err")
    if [ $rc = 0 ]; then
        fail "$name: exited 0"
    elif [ "$lines" != 1 ]; then
        fail "$name: $lines lines on stderr (want one): $(head -c 300 "$TMP/err")"
    elif ! grep -qF -- "$needle" "$TMP/err"; then
        fail "$name: stderr lacks '$needle': $(cat "$TMP/err")"
    else
        pass "$name: $(cat "$TMP/err")"
    fi
}

# The graders' oracle for a 2-rank run of 8 examples per rank (grading/lessons/train-equiv.sh and
# spread.sh, as the graders run them): the reference trainer on one process with the global batch 16
# into TMP/ref.st, and the same in two other summation orders. equiv_oracle B FLAGS...: B is the
# reference build; sets SPREAD (equiv's arguments). Returns 1 with the reason on stdout.
equiv_oracle() {
    _b=$1
    shift
    if ! "$_b/01-trainer/train" "$@" --device cpu --batch 16 --dump "$TMP/ref.st" >"$TMP/ref.log" 2>&1; then
        echo "the one-process reference run failed: $(tail -n 2 "$TMP/ref.log" | tr '\n' ' ')"
        return 1
    fi
    SPREAD=$(REF_BUILD=$_b sh grading/lessons/spread.sh "$TMP" 16 "$@" --device cpu) || {
        echo "the reference's spread runs failed: $SPREAD"
        return 1
    }
}
# equiv_2x8 NAME LABEL: TMP/NAME.st (2 ranks x 8) against the oracle; one PASS/FAIL line.
equiv_2x8() {
    # shellcheck disable=SC2086
    if "$BUILD/grading/equiv" "$TMP/ref.st" "$TMP/$1.st" --batch 8 --world 2 --lr 1e-2 $SPREAD >"$TMP/$1.eq" 2>&1; then
        pass "$2: equivalent to one process on the global batch: $(grep -m1 '^params' "$TMP/$1.eq")"
    else
        fail "$2: not equivalent to one process on the global batch: $(grep -m2 FAIL "$TMP/$1.eq" | tr '\n' ' ' | head -c 400)"
    fi
}
# The grader's message switch (grading/switch, in $SWITCH) for one run, as grading/grade starts it:
# start_switch NAME starts a fresh one logging to TMP/NAME.log, its socket in DPC_SWITCH (exported,
# so the ranks launched next use it); stop_switch ends it and unsets DPC_SWITCH.
start_switch() {
    rm -f "$TMP/sock"
    "$SWITCH" --socket "$TMP/sock" --log "$TMP/$1.log" &
    SP=$!
    i=0
    while [ ! -S "$TMP/sock" ] && [ $i -lt 50 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    DPC_SWITCH=$TMP/sock
    export DPC_SWITCH
}
stop_switch() {
    kill "$SP" 2>/dev/null
    wait "$SP" 2>/dev/null
    SP=""
    unset DPC_SWITCH
}
