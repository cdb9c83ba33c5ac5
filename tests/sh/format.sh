# Every C, CUDA and header file is in the course's one style (make format-check), and the check and
# make format do what they say. A missing clang-format is a failure here, never a silent pass.
. "$(dirname "$0")/lib.sh"
FORMAT="sh common/mk/format.sh"

if $FORMAT --check >"$TMP/check.out" 2>&1; then
    pass "every C, CUDA and header file matches .clang-format: $(tail -n 1 "$TMP/check.out")"
else
    fail "make format-check: $(head -n 25 "$TMP/check.out")"
fi

# What is covered: the reference student files, not the skeletons generated from them (the
# skeletons test checks those against solutions/), and the given files beside the lesson text.
$FORMAT --list >"$TMP/list"
if grep -qx 'solutions/01-trainer/linear.c' "$TMP/list" && grep -qx 'lessons/01-trainer/model.c' "$TMP/list" &&
    grep -qx 'common/comm.h' "$TMP/list" && ! grep -qx 'lessons/01-trainer/linear.c' "$TMP/list"; then
    pass "the check covers solutions/, the given files and common/, not the generated skeletons ($(grep -c . "$TMP/list") files)"
else
    fail "the list of checked files is wrong: $(head -c 300 "$TMP/list")"
fi

# A misformatted copy of a file in the style: the check names it and writes nothing, make format's
# rewrite gives back the file in the style.
sed 's/^    /  /; s/) {$/)\n{/' common/crc32.c >"$TMP/bad.c"
cp "$TMP/bad.c" "$TMP/bad.orig"
$FORMAT --check "$TMP/bad.c" >"$TMP/out" 2>&1
rc=$?
if [ $rc = 1 ] && grep -qF "$TMP/bad.c" "$TMP/out" && cmp -s "$TMP/bad.c" "$TMP/bad.orig"; then
    pass "the check lists a misformatted file, exits 1 and leaves it as it was"
else
    fail "the check on a misformatted file: exit $rc (want 1), output: $(head -c 300 "$TMP/out")"
fi
if $FORMAT "$TMP/bad.c" >"$TMP/out" 2>&1 && cmp -s "$TMP/bad.c" common/crc32.c; then
    pass "make format's rewrite restores the style ($(cat "$TMP/out"))"
else
    fail "formatting the misformatted copy did not give common/crc32.c back: $(diff common/crc32.c "$TMP/bad.c" | head -n 6)"
fi

# The skeleton markers survive formatting: ReflowComments is off, so a marker or a TODO longer than
# the column limit is never rewrapped into lines grading/mkskel would not recognise.
long="the comment goes on past the column limit of one hundred and twenty characters, which would be rewrapped"
cat >"$TMP/markers.c" <<EOF
int f(int x);
int f(int x) {
    // TODO(01 example): $long
    // BEGIN SOLUTION
    return   x+1;
    // END SOLUTION
    // SKELETON: return 0; /* $long */
}
EOF
$FORMAT "$TMP/markers.c" >/dev/null 2>&1
missing=""
for m in "    // TODO(01 example): $long" "    // BEGIN SOLUTION" "    return x + 1;" "    // END SOLUTION" \
    "    // SKELETON: return 0; /* $long */"; do
    grep -qxF -- "$m" "$TMP/markers.c" || missing="$missing [$m]"
done
if [ -z "$missing" ]; then
    pass "formatting keeps the mkskel markers and long TODO lines whole (and formats the code)"
else
    fail "after formatting these lines are gone:$missing; the file is: $(cat "$TMP/markers.c")"
fi

# No clang-format: one line that says what to do, and a failure.
CLANG_FORMAT=/nonexistent/clang-format expect_error "no clang-format fails the check" \
    "clang-format not found (/nonexistent/clang-format): run make deps" $FORMAT --check
