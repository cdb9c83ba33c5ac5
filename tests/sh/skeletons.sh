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
# An unfinished lesson 01 says so when run, instead of printing zero losses at absurd speeds.
"$BUILD/lessons/01-trainer/train" $QUICK --steps 2 >"$TMP/skel.out" 2>&1
if grep -q "lesson 01's functions look unfinished" "$TMP/skel.out"; then
    pass "the lesson 01 skeleton's train warns that the functions look unfinished"
else
    fail "the lesson 01 skeleton's train gave no warning: $(head -c 300 "$TMP/skel.out")"
fi
$TRAIN $QUICK --steps 2 >"$TMP/ref.out" 2>&1
if grep -q "warning" "$TMP/ref.out"; then fail "the reference train warns: $(grep warning "$TMP/ref.out")"
else pass "the reference train does not warn"; fi
