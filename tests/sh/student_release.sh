# make student-release: the release holds no solution (no solutions/, no tests/, no marker, no student
# file equal to its reference), refuses bad OUT directories, catches a leak, builds fresh without a
# reference, and its grader refuses to run without one but grades with --reference: the skeleton 0,
# the reference files copied into its lessons/ full marks, lesson 05 linking the reference's earlier
# lessons built from --reference. About 60 s on 2 cores (the fresh build of the reference dominates).
. "$(dirname "$0")/lib.sh"
# The release is a fresh, plain build: nothing of the build under test (O, a sanitizer) and nothing
# of a calling make (its command-line variables travel in MAKEFLAGS) reaches it. CUDA is left out to
# keep the test short (nvcc takes longer than all the C); the release's GPU build is make's, as here.
unset O SANITIZE MAKEFLAGS MFLAGS MAKELEVEL
export NO_CUDA=1 NO_NCCL=1
chmod 755 "$TMP" # the grader's sandbox uid (as root) must reach the release
REL=$TMP/rel
MARKERS='BEGIN[ ]SOLUTION|END[ ]SOLUTION|SKELETON[:]'

if sh grading/student-release "$REL" >"$TMP/out" 2>&1; then
    pass "make student-release: $(tail -n 1 "$TMP/out")"
else
    fail "student-release failed: $(cat "$TMP/out")"
fi
for p in solutions tests tests/bugs grading/mkskel .ci .git; do
    if [ -e "$REL/$p" ]; then fail "the release holds $p"; else pass "the release has no $p"; fi
done
if grep -rlE "$MARKERS" "$REL" >"$TMP/leaks"; then
    fail "solution markers in the release: $(tr '\n' ' ' <"$TMP/leaks")"
else
    pass "no solution marker anywhere in the release"
fi
same=""
for f in solutions/[0-9]*/*; do cmp -s "$f" "$REL/lessons/${f#solutions/}" && same="$same $f"; done
if [ -z "$same" ]; then pass "no student file of the release is its reference"; else fail "the release hands out the reference:$same"; fi
# Exactly git's files: an untracked file of the course must not travel.
want=$(git ls-files -- . ':(exclude)solutions' ':(exclude)tests' ':(exclude)grading/mkskel' ':(exclude).ci' | wc -l)
got=$(cd "$REL" && find . -type f -o -type l | wc -l) # a tracked link (the fortune fixture has one) is a file to git
if [ "$want" = "$got" ] && [ -x "$REL/grading/grade" ]; then
    pass "the release is the $got tracked files (modes kept)"
else
    fail "the release has $got files, git tracks $want outside the excluded parts (or grading/grade lost its mode)"
fi

expect_error "OUT not empty" "exists and is not empty" sh grading/student-release "$REL"
expect_error "OUT inside the repository" "is inside the course's repository" sh grading/student-release "$ROOT/build/rel-$$"
[ -e "$ROOT/build/rel-$$" ] && fail "a refused OUT inside the repository was created" && rm -rf "$ROOT/build/rel-$$"
expect_error "no OUT" "make student-release OUT=dir" sh grading/student-release ""

# The checks of the release can fail: a small course, in git's index, that leaks in two ways.
F=$TMP/fake
mkdir -p "$F/grading" "$F/solutions/01-x" "$F/lessons/01-x"
cp grading/student-release grading/mkskel "$F/grading/"
echo 'L01_STUDENT := a.c' >"$F/lessons/01-x/lesson.mk"
printf 'int f(void) {\n    // BEGIN SOLUTION\n    return 1;\n    // END SOLUTION\n    // SKELETON: return 0;\n}\n' >"$F/solutions/01-x/a.c"
sh "$F/grading/mkskel" "$F/solutions" "$F/lessons" >/dev/null
mkdir "$TMP/fake-rel" # an empty OUT is taken; a refused release must leave it empty
echo 'static int helper(void) { return 42; }' | tee "$F/solutions/01-x/helper.c" >"$F/lessons/01-x/helper.c"
printf 'a lesson text quoting the reference:\n    // BEGIN SOLUTION\n' >"$F/lessons/01-x/README.md"
git -C "$F" init -q && git -C "$F" add -A
expect_error "a leaking course is refused" "helper.c (the reference itself)" sh "$F/grading/student-release" "$TMP/fake-rel"
if grep -q "lessons/01-x/README.md" "$TMP/err" && [ -z "$(ls -A "$TMP/fake-rel")" ]; then
    pass "the refusal names the file with a marker and leaves the release empty"
else
    fail "refused release: $(cat "$TMP/err"); left: $(ls -A "$TMP/fake-rel" | tr '\n' ' ')"
fi
echo '/* edited */' >>"$F/lessons/01-x/a.c"
expect_error "skeletons that drifted from the reference are refused" "run make skeletons" sh "$F/grading/student-release" "$TMP/fake-rel2"

# The release: builds without a reference (lesson 02 links your lesson 01), runs, and says what it lacks.
cd "$REL" || exit 2
t0=$(date +%s)
if make -s -j2 build/lessons/01-trainer/train build/lessons/02-param-server/train_ps >"$TMP/make" 2>&1; then
    pass "the release builds lessons 01 and 02 with no reference ($(($(date +%s) - t0)) s)"
else
    fail "the release does not build: $(tail -n 5 "$TMP/make")"
fi
if [ ! -e build/solutions ] && build/lessons/01-trainer/train $QUICK --steps 2 2>&1 | grep -q "look unfinished"; then
    pass "the release's lesson 01 runs its skeleton (and built no reference tree)"
else
    fail "the release's lesson 01 train: $(build/lessons/01-trainer/train $QUICK --steps 2 2>&1 | tail -n 2)"
fi
make test >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ $rc = 2 ] && grep -q "the student release has no tests" "$TMP/err" && [ "$(grep -vc '^make: \*\*\*' "$TMP/err")" = 1 ]; then
    pass "make test in the release fails with one line: $(head -n 1 "$TMP/err")"
else
    fail "make test in the release: exit $rc, $(cat "$TMP/err")"
fi
grading/grade 01 >"$TMP/out" 2>&1
rc=$?
if [ $rc = 2 ] && grep -q "there are no reference solutions here" "$TMP/out"; then
    pass "grading/grade 01 in the release says it has no reference: $(tail -n 1 "$TMP/out")"
else
    fail "grading/grade 01 in the release: exit $rc, $(tail -n 2 "$TMP/out")"
fi

t0=$(date +%s)
# The grader builds the reference from --reference first (its make, told -j2 through MAKEFLAGS).
MAKEFLAGS=-j2 grading/grade 01 05 --reference "$ROOT/solutions" --only linear_backward,buckets >"$TMP/out" 2>&1
rc=$?
if [ $rc = 1 ] && grep -q '^Score: 0/30$' "$TMP/out"; then
    pass "the release's skeleton with --reference: $(tail -n 1 "$TMP/out") ($(($(date +%s) - t0)) s, the reference built)"
else
    fail "the release's skeleton with --reference: exit $rc, $(grep -E 'FAIL|Score|grade:' "$TMP/out" | head -n 5)"
fi
for d in 01-trainer 05-ddp; do cp "$ROOT/solutions/$d"/* "lessons/$d/"; done
grading/grade 01 05 --reference "$ROOT/solutions" --only linear_backward,buckets >"$TMP/out" 2>&1
rc=$?
if [ $rc = 0 ] && grep -q '^Score: 30/30$' "$TMP/out"; then
    pass "the reference files in the release's lessons/ with --reference: $(tail -n 1 "$TMP/out")"
else
    fail "the reference files in the release's lessons/ with --reference: exit $rc, $(grep -E 'FAIL|Score|grade:' "$TMP/out" | head -n 5)"
fi
