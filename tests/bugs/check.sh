#!/bin/sh
# tests/bugs/check.sh LESSON... — every seeded bug of the catalogue must be caught.
#
# tests/bugs/NN/<bug>.patch is a realistic mistake in the student files of lesson NN, as a patch
# against the reference solution, headed by the message the grader must print for it:
#     # expect: <text the grader's output must contain>
#     # bug: <what the mistake is>
# For each: copy solutions/, apply the patch, grade lesson NN; the bug is caught when the score is
# below full marks AND the expected text is in the grader's output. One line per bug:
#     PASS bug 01/no-zero-grad: caught (80/100) with "zeroed"
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
status=0
for L in "$@"; do
    for p in "$ROOT"/tests/bugs/"$L"/*.patch; do
        [ -f "$p" ] || continue
        bug=$(basename "$p" .patch)
        expect=$(sed -n 's/^# expect: //p' "$p")
        sub=$(mktemp -d "${TMPDIR:-/tmp}/dpc-bug.XXXXXX")
        cp -R "$ROOT/solutions/." "$sub/"
        dir=$(cd "$ROOT/solutions" && ls -d "$L"-*)
        if ! patch -s -p1 -d "$sub/$dir" <"$p" >"$sub/patch.log" 2>&1; then
            echo "FAIL bug $L/$bug: the patch no longer applies to solutions/$dir:"
            sed 's/^/    /' "$sub/patch.log"
            status=1
            rm -rf "$sub"
            continue
        fi
        "$ROOT/grading/grade" "$L" --submission "$sub" >"$sub/grade.out" 2>&1
        rc=$?
        score=$(sed -n 's/^Score: //p' "$sub/grade.out" | tail -n 1)
        if [ $rc = 0 ]; then
            echo "FAIL bug $L/$bug: NOT caught — full score ($score)"
            status=1
        elif [ $rc != 1 ]; then
            echo "FAIL bug $L/$bug: the grader itself failed (exit $rc):"
            tail -n 5 "$sub/grade.out" | sed 's/^/    /'
            status=1
        elif ! grep -qF -- "$expect" "$sub/grade.out"; then
            echo "FAIL bug $L/$bug: caught ($score) but the output never says \"$expect\":"
            grep -E 'FAIL|hint' "$sub/grade.out" | head -n 8 | sed 's/^/    /'
            status=1
        else
            echo "PASS bug $L/$bug: caught ($score) with \"$expect\""
        fi
        rm -rf "$sub"
    done
done
exit $status
