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
for mk in solutions/*/lesson.mk; do
    d=$(basename "$(dirname "$mk")")
    for bin in $(sed -n 's/^L[0-9]*_MAINS[ \t]*:=[ \t]*//p' "$mk"); do
        b=$BUILD/lessons/$d/${bin%.c}
        if [ -x "$b" ]; then pass "skeleton of $d builds ($b)"; else fail "skeleton of $d did not build $b"; fi
    done
done
