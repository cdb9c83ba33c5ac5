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
