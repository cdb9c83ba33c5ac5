#!/bin/sh
# tests/hostile/check.sh [CASE...] — the hostile-submission catalogue: submissions that attack the
# grader rather than solve the lesson. Each tests/hostile/CASE.c is a student file with a header:
#     // lesson: 01                  the lesson it is graded in
#     // base: skeleton|solutions    where the lesson's other student files come from
#     // file: linear.c              the student file this case replaces, or
#     // append: linear.c            the student file this case is appended to
#     // score: 0|full|below         the score it must get (below: more than 0, less than full)
#     // expect: TEXT                text the grader's output must contain (optional)
#     // note: TEXT                  text the CSV note and the JSON report must contain (optional)
#     // forbid: TEXT                text that must appear in no output at all (optional)
#     // args: --timeout 5           grading options (optional)
#     // why: what the attack is
# Each case is graded by grade-all followed by the reference solution ("clean") and the skeleton
# (--batch: all the cases in one batch, then those two). It must hold that: the case gets its score in the text log,
# the JSON report, the Gradescope results (made from the same results by grading/report) and the
# CSV row, all agreeing, with no score above the maximum; the JSON and Gradescope files are valid;
# the expected texts are there and the forbidden ones nowhere; the clean submission scores full
# and the skeleton 0 AFTER it (nothing leaked into later grades); no process of the sandbox is left.
# One line per case: PASS/FAIL hostile CASE: ...  No CASE: every case.
#   tests/hostile/check.sh [--batch] [CASE...]
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/dpc-hostile.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
REPORT=$ROOT/build/grading/report
export DP_TIMEOUT_S=${DP_TIMEOUT_S:-4}

field() { sed -n "s|^// $1: ||p" "$2" | head -n 1; }

# A hidden check, kept outside the repository, with a secret no output may ever show.
SECRET="hidden-check-secret-$$"
mkdir -p "$TMP/hidden"
for l in "$ROOT"/grading/lessons/[0-9][0-9].sh; do cp "$l" "$TMP/hidden/"; done
printf '# %s\nhidden_check secret 0 30 "a hidden check" -- true\n' "$SECRET" >>"$TMP/hidden/01.sh"
export HOSTILE_SECRET_DIR="$TMP/hidden"
# A secret in the grader's own environment (a grading service's token): no run may see it.
export GRADER_API_TOKEN=hostile-env-secret-42

# The batch's sandbox uid: a process still running under it was left behind (as root only; a
# grader that is not root runs the sandbox under its own uid).
export DPC_SANDBOX_UID=$((65000 + $$ % 500))
# Zombies waiting for init to reap them are already dead and do not count.
sandbox_procs() {
    [ "$(id -u)" = 0 ] || { echo 0; return; }
    ps -eo uid=,stat= 2>/dev/null | awk -v u="$DPC_SANDBOX_UID" '$1 == u && $2 !~ /^Z/' | wc -l
}

# stage CASE DIR: the case's submission (its lesson's student files) in DIR
stage() {
    c=$1
    L=$(field lesson "$c")
    d=$(cd "$ROOT/solutions" && ls -d "$L"-*)
    base=$(field base "$c")
    [ "$base" = skeleton ] && base=lessons
    mkdir -p "$2/$d"
    cp -R "$ROOT/$base/$d/." "$2/$d/"
    if [ -n "$(field file "$c")" ]; then
        cp "$c" "$2/$d/$(field file "$c")"
    else
        cat "$c" >>"$2/$d/$(field append "$c")"
    fi
}

# verify CASE K W: the case graded as student K (0001, ...) of the batch in W; appends to $problems
verify() {
    c=$1 k=$2 w=$3
    name=$(basename "$c" .c)
    want=$(field score "$c")
    expect=$(field expect "$c")
    note=$(field note "$c")
    forbid=$(field forbid "$c")
    bad() { problems="$problems; $*"; }
    row=$(grep "^\"$name\"," "$w/grades.csv")
    total=$(echo "$row" | cut -d, -f2) max=$(echo "$row" | cut -d, -f3)
    [ -n "$total" ] || { bad "no CSV row: $(tail -n 2 "$w/batch.log")"; return; }
    case $want in
    0) [ "$total" = 0 ] || bad "scored $total/$max, expected 0" ;;
    full) [ "$total" = "$max" ] || bad "scored $total/$max, expected full marks" ;;
    below) [ "$total" -gt 0 ] && [ "$total" -lt "$max" ] || bad "scored $total/$max, expected between 0 and full" ;;
    esac
    [ "$total" -le "$max" ] || bad "score $total above the maximum $max"
    j=$w/reports/$k.json
    "$REPORT" --format gradescope --out "$w/gs$k.json" "$w/reports/$k.tsv" 2>/dev/null
    "$REPORT" --validate "$w/gs$k.json" >"$w/gs.v" 2>&1 || bad "Gradescope results invalid: $(cat "$w/gs.v")"
    js=$(sed -n 's/^[[:space:]]*"score":[[:space:]]*\([0-9.]*\),*$/\1/p' "$j" | head -n 1)
    gs=$(sed -n 's/^[[:space:]]*"score":[[:space:]]*\([0-9.]*\),*$/\1/p' "$w/gs$k.json" | head -n 1)
    [ "$js" = "$total" ] || bad "the JSON report says $js, the CSV $total"
    [ "$gs" = "$total" ] || bad "the Gradescope results say $gs, the CSV $total"
    grep -q '"state":[[:space:]]*"complete"' "$j" || bad "the JSON report is not complete: $(grep '"state"' "$j")"
    tail -n 1 "$w/reports/$k.txt" | grep -q "^Score: $total/$max\$" || bad "the text log ends '$(tail -n 1 "$w/reports/$k.txt")', not Score: $total/$max"
    if [ -n "$expect" ] && ! grep -qF -- "$expect" "$w/reports/$k.txt"; then bad "the text never says \"$expect\""; fi
    if [ -n "$note" ]; then
        echo "$row" | grep -qF -- "$note" || bad "the CSV note lacks \"$note\": $row"
        grep -qF -- "$note" "$j" || bad "the JSON report lacks the note \"$note\""
    fi
    if [ -n "$forbid" ] && grep -qF -- "$forbid" "$w/reports/$k".* "$w/grades.csv" "$w/batch.log"; then bad "an output shows \"$forbid\""; fi
    if grep -qF -- "$SECRET" "$w/reports/$k.txt" "$w/reports/$k.tsv" "$w/gs$k.json" "$w/grades.csv"; then
        bad "the hidden check's secret reached the student's output"
    fi
}

# batch W ARGS CASE...: one grade-all over the cases in order, then the reference ("zz-clean") and
# the skeleton ("zz-skeleton"); the clean and skeleton rows must be exactly full and zero.
batch() {
    w=$1 args=$2
    shift 2
    mkdir -p "$w/class" "$w/reports"
    L=""
    for c in "$@"; do
        stage "$c" "$w/class/$(basename "$c" .c)"
        L="$L $(field lesson "$c")"
    done
    L=$(echo "$L" | tr ' ' '\n' | sed '/^$/d' | sort -u | tr '\n' ' ')
    for l in $L; do
        d=$(cd "$ROOT/solutions" && ls -d "$l"-*)
        mkdir -p "$w/class/zz-clean" "$w/class/zz-skeleton"
        cp -R "$ROOT/solutions/$d" "$w/class/zz-clean/"
        cp -R "$ROOT/lessons/$d" "$w/class/zz-skeleton/"
    done
    touch "$w/start"
    # shellcheck disable=SC2086
    "$ROOT/grading/grade-all" "$w/class" --lessons "$L" --out "$w/grades.csv" --reports "$w/reports" \
        --checks "$TMP/hidden" $args >"$w/batch.log" 2>&1
    after=""
    grep -q '^"zz-clean",\([0-9]*\),\1,' "$w/grades.csv" || after="$after; the clean submission after it: $(grep '^"zz-clean"' "$w/grades.csv")"
    grep -q '^"zz-skeleton",0,' "$w/grades.csv" || after="$after; the skeleton after it: $(grep '^"zz-skeleton"' "$w/grades.csv")"
    for _ in 1 2 3 4 5; do [ "$(sandbox_procs)" = 0 ] && break; sleep 1; done
    left=$(sandbox_procs)
    [ "$left" = 0 ] || after="$after; $left sandbox processes left running"
    changed=$(cd "$ROOT" && find build/grading build/solutions grading -type f -newer "$w/start" 2>/dev/null | head -n 3)
    [ -z "$changed" ] || after="$after; the grader's files changed: $changed"
    for c in "$@"; do
        problems=$after
        name=$(basename "$c" .c)
        # grade-all numbers its reports in the (byte) order of the folder names
        k=$(cd "$w/class" && ls -1 | LC_ALL=C sort | grep -nxF -- "$name" | cut -d: -f1)
        k=$(printf '%04d' "$k")
        verify "$c" "$k" "$w"
        if [ -z "$problems" ]; then
            echo "PASS hostile $name: $(grep "^\"$name\"," "$w/grades.csv" | cut -d, -f2-3 | tr , /) as expected, then full and zero for the reference and the skeleton ($(field why "$c"))"
        else
            echo "FAIL hostile $name:${problems#;}"
            sed -n '1,12p' "$w/reports/$k.txt" 2>/dev/null | sed 's/^/    /'
        fi
    done
}

# --batch: the cases of each lesson in one grade-all batch (make test: fast, one clean and one
# skeleton grade at the end prove that no case left anything behind); otherwise each case in a
# batch of its own.
mode=each
[ "${1:-}" = --batch ] && { mode=batch; shift; }
cases=""
if [ $# = 0 ]; then
    cases=$(ls "$ROOT"/tests/hostile/*.c)
else
    for c in "$@"; do cases="$cases $ROOT/tests/hostile/$c.c"; done
fi
for c in $cases; do [ -f "$c" ] || { echo "FAIL hostile $(basename "$c" .c): no such case"; exit 1; }; done
if [ $mode = batch ]; then
    for c in $cases; do [ -z "$(field args "$c")" ] || { echo "FAIL hostile $(basename "$c" .c): has grading options, cannot be batched"; exit 1; }; done
    # one batch per lesson (a batch grades every student on every lesson of its cases)
    out=$(for l in $(for c in $cases; do field lesson "$c"; done | sort -u); do
        # shellcheck disable=SC2046
        batch "$TMP/batch-$l" "" $(for c in $cases; do [ "$(field lesson "$c")" = "$l" ] && echo "$c"; done)
    done)
else
    out=$(for c in $cases; do batch "$TMP/$(basename "$c" .c)" "$(field args "$c")" "$c"; done)
fi
echo "$out"
case $out in *FAIL*) exit 1 ;; esac
exit 0
