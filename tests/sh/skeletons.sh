# lessons/ is exactly what grading/mkskel generates from solutions/, and the check can fail.
. "$(dirname "$0")/lib.sh"
if out=$(sh grading/mkskel solutions lessons --check 2>&1); then
    pass "lessons/ matches the skeletons generated from solutions/"
else
    fail "skeletons drifted: $out"
fi
cp -R lessons "$TMP/lessons"
f=$(ls "$TMP"/lessons/01-*/linear.c)
echo "/* edited */" >>"$f"
if sh grading/mkskel solutions "$TMP/lessons" --check >/dev/null 2>&1; then
    fail "the drift check did not notice an edited skeleton"
else
    pass "the drift check notices an edited skeleton"
fi
for mk in lessons/*/lesson.mk; do
    d=$(basename "$(dirname "$mk")")
    for bin in $(sed -n 's/^L[0-9]*_MAINS[ \t]*:=[ \t]*//p' "$mk"); do
        b=$BUILD/lessons/$d/${bin%.c}
        if [ -x "$b" ]; then pass "skeleton of $d builds ($b)"; else fail "skeleton of $d did not build $b"; fi
    done
done
# An unfinished lesson says so when run, in one line naming the function, and stops (exit 2),
# instead of printing zero losses at absurd speeds: lesson 01's train stops in train_step, and a
# multi-rank lesson 05 run prints the line once, not once per rank.
"$BUILD/lessons/01-trainer/train" $QUICK --steps 2 >"$TMP/skel.out" 2>"$TMP/skel.err"
rc=$?
if [ $rc = 2 ] && [ "$(grep -c . "$TMP/skel.err")" = 1 ] &&
    grep -q "^train: train_step() in .*01-trainer/train_step.c is not written yet: write its TODO, then delete the DP_TODO() line (grading/grade 01 checks it)$" "$TMP/skel.err"; then
    pass "the lesson 01 skeleton's train stops with one line: $(cat "$TMP/skel.err")"
else
    fail "the lesson 01 skeleton's train: exit $rc (want 2), stderr: $(head -c 300 "$TMP/skel.err")"
fi
if [ -x "$BUILD/lessons/05-ddp/train_ddp" ] && ! grep -q '^HAVE_MPI := 0' "$BUILD/config.mk" 2>/dev/null; then
    timeout -k 5 60 "$MPIRUN" -np 3 "$BUILD/lessons/05-ddp/train_ddp" $QUICK --steps 2 >"$TMP/skel.out" 2>"$TMP/skel.err"
    rc=$?
    if [ $rc = 2 ] && [ "$(grep -c . "$TMP/skel.err")" = 1 ] && grep -q "^train_ddp: ddp_assign_buckets() in .* is not written yet" "$TMP/skel.err"; then
        pass "the lesson 05 skeleton's train_ddp on 3 ranks stops with one line"
    else
        fail "the lesson 05 skeleton's train_ddp on 3 ranks: exit $rc (want 2), stderr: $(head -c 400 "$TMP/skel.err")"
    fi
fi
# Every function of a student file that has a TODO calls DP_TODO() in the skeleton (a "// SKELETON:
# DP_TODO();" line in solutions/), so that no unwritten function runs on as if it worked. todo_rule
# FILE... lists each function that breaks the rule (a function: from a line at column 0 to the "}"
# that closes it at column 0).
todo_rule() {
    awk '
        FNR == 1 { infn = 0; pending = 0 }
        !infn && /^[A-Za-z_]/ && /\(/ {
            name = $0; sub(/\(.*/, "", name); sub(/.*[ *]/, "", name)
            pending = 1; todo = 0; dp = 0
        }
        pending && !infn && /\{[ \t]*$/ { infn = 1; pending = 0 }
        pending && !infn && /\}[ \t]*$/ { pending = 0 } # a function on one line
        infn && /\/\/ TODO\(/ { todo = 1 }
        infn && /^[ \t]*DP_TODO\(\);/ { dp = 1 }
        infn && /^}/ {
            if (todo && !dp) printf "%s: %s() has a TODO but no DP_TODO()\n", FILENAME, name
            infn = 0
        }' "$@"
}
student_c=$(for mk in lessons/*/lesson.mk; do
    d=$(dirname "$mk")
    for f in $(sed -n 's/^L[0-9]*_STUDENT[ \t]*:=[ \t]*//p' "$mk"); do
        case $f in *.c) echo "$d/$f" ;; esac
    done
done)
# shellcheck disable=SC2086
nfun=$(grep -c "^[ \t]*DP_TODO();" $student_c | awk -F: '{ n += $2 } END { print n }')
# shellcheck disable=SC2086
broken=$(todo_rule $student_c)
if [ -z "$broken" ] && [ "$nfun" -gt 0 ]; then
    pass "every function with a TODO in the $(echo "$student_c" | wc -l) student .c files stops at DP_TODO() in its skeleton ($nfun functions)"
else
    fail "functions with a TODO but no DP_TODO() in the skeleton (add '// SKELETON: DP_TODO();' in solutions/, then make skeletons): $broken"
fi
f=$(ls "$TMP"/lessons/06-*/accum_step.c)
grep -v "DP_TODO();" "$f" >"$TMP/no-todo.c"
if todo_rule "$TMP/no-todo.c" | grep -q "accum_train_step() has a TODO but no DP_TODO()"; then
    pass "the rule notices a function whose DP_TODO() is missing"
else
    fail "the rule did not notice accum_train_step without its DP_TODO(): $(todo_rule "$TMP/no-todo.c")"
fi
$TRAIN $QUICK --steps 2 >"$TMP/ref.out" 2>&1
if grep -q "warning" "$TMP/ref.out"; then fail "the reference train warns: $(grep warning "$TMP/ref.out")"
else pass "the reference train does not warn"; fi
