# make student-release: the course as a student gets it, tested as a student uses it.
# The release holds no solution (no solutions/, no tests/, no marker, no student file equal to its
# reference) but a compiled reference (grading/reference/: stripped archives, no source text, debug
# section or local symbol); it refuses bad OUT directories and catches leaks (a leaking course, a
# reference comment in an archive, a release that links the reference as the student's own lesson).
# Then, with the repository (and so solutions/) hidden from every command (bubblewrap), the release
# builds; lesson NN links the compiled reference's earlier lessons and stops at lesson NN's first
# DP_TODO; STACK=own relinks to the student's own lessons, and back; grading/grade self-checks
# (skeleton 0, the reference copied in full marks and flagged as copied); a quiz is taken; every
# command of every text runs in release mode (tests/sh/doc_commands.sh, DOC_RELEASE); make bench runs
# in its short form. The instructor's --reference DIR still grades. RELEASE_FULL=1 (make
# test-release) grades every lesson both ways; make test grades a subset.
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
got=$(cd "$REL" && find . -path ./grading/reference -prune -o \( -type f -o -type l \) -print | wc -l) # a tracked link (the fortune fixture has one) is a file to git
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


# ---- the compiled reference ------------------------------------------------------------------------
FULL=${RELEASE_FULL:-0}
na=$(find "$REL/grading/reference/cpu" -name 'lib*.a' 2>/dev/null | wc -l)
nl=$(ls -d lessons/[0-9]*-*/ | wc -l)
if [ "$na" = "$nl" ] && [ "$(wc -l <"$REL/grading/reference/sums.txt")" = "$(ls solutions/[0-9]*/* | wc -l)" ]; then
    pass "the release has the compiled reference: $na archives (cpu$([ -d "$REL/grading/reference/cuda" ] && echo ", cuda"): $(du -sk "$REL/grading/reference" | cut -f1) KiB) and a sum per reference file"
else
    fail "the compiled reference: $na cpu archives for $nl lessons, $(wc -l <"$REL/grading/reference/sums.txt" 2>/dev/null) sums"
fi
# Independent of the script's own checks: what an archive may hold.
bad=""
for a in $(find "$REL/grading/reference" -name '*.a'); do
    readelf -SW "$a" | grep -qE '\.debug_|\.comment' && bad="$bad ${a#"$REL"/}(debug)"
    nm "$a" | awk 'NF == 3 && $2 ~ /^[tdbr]$/ && $3 !~ /^\.L/ { f = 1 } END { exit !f }' && bad="$bad ${a#"$REL"/}(static names)"
done
# every comment of the reference's student files against the archives' strings
find "$REL/grading/reference" -name '*.a' -exec strings -a -n 8 {} + >"$TMP/strings"
sed -n 's|^[ \t]*// \(.\{20,\}\)|\1|p' solutions/[0-9]*/*.c | grep -v 'SOLUTION' | sort -u >"$TMP/comments"
hits=$(grep -cF -f "$TMP/comments" "$TMP/strings")
[ "$hits" = 0 ] || bad="$bad comments($(grep -F -f "$TMP/comments" "$TMP/strings" | head -n 1))"
if [ -z "$bad" ]; then
    pass "no archive has debug sections, static names or any of the reference's $(wc -l <"$TMP/comments") comment lines"
else
    fail "the compiled reference leaks:$bad"
fi
if sh grading/student-release --check "$REL" >"$TMP/out" 2>&1; then pass "student-release --check: $(cat "$TMP/out")"; else fail "student-release --check on a fresh release: $(cat "$TMP/out")"; fi
# A seeded leak: a line of the reference's solution blocks (with its comment) left in an archive.
cp -R "$REL" "$TMP/leaky"
line=$(cat solutions/[0-9]*/*.c | awk '/BEGIN[ ]SOLUTION/ { i = 1; next } /END[ ]SOLUTION/ { i = 0 } i && /\/\*/ && !/["\\]/' |
    sed 's|^[ \t]*||' | awk 'length($0) >= 30' | head -n 1)
printf 'const char leaked_comment[] = "%s";\n' "$line" >"$TMP/leak.c"
cc -fno-ident -c "$TMP/leak.c" -o "$TMP/leak.o" && ar r "$TMP/leaky/grading/reference/cpu/01-trainer/lib01.a" "$TMP/leak.o" 2>/dev/null
expect_error "a line of the reference in an archive is a leak ('$line')" "the reference's text" sh grading/student-release --check "$TMP/leaky"
rm -rf "$TMP/leaky"

# ---- the release as a student uses it: the repository, and so solutions/, out of reach -------------
# Every command in the release runs under bubblewrap with the repository covered by an empty
# directory. Without bubblewrap they run as they are, and one line says that the reference sources
# were reachable.
if command -v bwrap >/dev/null 2>&1 && bwrap --dev-bind / / --tmpfs "$ROOT" -- true 2>/dev/null; then
    inrel() { bwrap --dev-bind / / --tmpfs "$ROOT" --chdir "$REL" -- "$@"; }
    if inrel sh -c "[ ! -e '$ROOT/solutions' ] && [ ! -e '$ROOT/Makefile' ]"; then
        pass "the repository ($ROOT, its solutions/ with it) is out of reach of every command run in the release"
    else
        fail "bubblewrap did not hide $ROOT"
    fi
else
    inrel() { (cd "$REL" && "$@"); }
    echo "note: no bubblewrap here: the release's commands run with the repository's solutions/ reachable"
fi
# the scripts the release-mode checks need, copied out of the repository before it is hidden
mkdir -p "$TMP/t/tests/sh"
cp tests/sh/doc_commands.sh tests/sh/lib.sh "$TMP/t/tests/sh/"

t0=$(date +%s)
if inrel make -s -j2 >"$TMP/make" 2>&1; then
    pass "the release builds, with no source of the reference ($(($(date +%s) - t0)) s)"
else
    fail "the release does not build: $(tail -n 5 "$TMP/make")"
fi
if grep -q "^make: build/lessons/ link the compiled reference's earlier lessons" "$TMP/make" &&
    [ -x "$REL/build/solutions/06-accum/train_accum" ] && [ -x "$REL/build/grading/quiz" ]; then
    pass "the release's build says which stack: $(grep '^make: build/lessons/' "$TMP/make")"
else
    fail "the release's build: no stack line or no reference programs: $(tail -n 3 "$TMP/make")"
fi

# Lesson NN runs on the reference's earlier lessons and stops at its own first TODO, in one line.
A06="--preset tiny --data $REL/datasets/fixtures/tiny-train.tok --val none --batch 8 --accum-steps 2 --steps 2"
todo_of() { # FILE: the lesson directory named by a DP_TODO line in FILE
    grep 'is not written yet' "$1" | head -n 1 | grep -oE '[0-9][0-9]-[a-z0-9-]+/[a-z_0-9]+\.c' | cut -d/ -f1
}
# shellcheck disable=SC2086
inrel grading/mpirun -np 2 build/lessons/06-accum/train_accum $A06 >"$TMP/run" 2>&1
rc=$?
if [ $rc != 0 ] && [ "$(todo_of "$TMP/run")" = 06-accum ] && [ "$(grep -c 'not written yet' "$TMP/run")" = 1 ]; then
    pass "lesson 06 on the skeleton, 2 ranks: links the reference's 01-05 and stops at its own TODO: $(grep 'not written yet' "$TMP/run")"
else
    fail "lesson 06 on the skeleton (exit $rc): $(tail -n 4 "$TMP/run" | tr '\n' ' ')"
fi

# STACK=own relinks lesson 06 to the student's own (unfinished) lessons, and the default relinks back;
# a make with nothing changed relinks nothing.
B=$REL/build/lessons/06-accum/train_accum
m0=$(stat -c %Y.%s "$B") && sleep 1
inrel make -s STACK=own build/lessons/06-accum/train_accum >"$TMP/make" 2>&1
m1=$(stat -c %Y.%s "$B")
# shellcheck disable=SC2086
inrel grading/mpirun -np 1 build/lessons/06-accum/train_accum $A06 >"$TMP/run" 2>&1
own=$(todo_of "$TMP/run")
sleep 1
inrel make -s build/lessons/06-accum/train_accum >"$TMP/make" 2>&1
m2=$(stat -c %Y.%s "$B")
inrel make -s build/lessons/06-accum/train_accum >"$TMP/make" 2>&1
m3=$(stat -c %Y.%s "$B")
# shellcheck disable=SC2086
inrel grading/mpirun -np 1 build/lessons/06-accum/train_accum $A06 >"$TMP/run" 2>&1
back=$(todo_of "$TMP/run")
if [ "$m1" != "$m0" ] && [ -n "$own" ] && [ "$own" != 06-accum ] && [ "$m2" != "$m1" ] && [ "$m3" = "$m2" ] && [ "$back" = 06-accum ]; then
    pass "STACK=own relinks lesson 06 onto your own lessons (it stops in $own's TODO), the default relinks it back, and a make with nothing changed relinks nothing"
else
    fail "the stack switch: relinked $([ "$m1" != "$m0" ] && echo yes || echo no)/$([ "$m2" != "$m1" ] && echo yes || echo no), idle make relinked $([ "$m3" != "$m2" ] && echo yes || echo no); stops in '$own' then '$back'"
fi

# ---- self-grading -------------------------------------------------------------------------------------
# The skeleton scores 0 and the reference copied into lessons/ full marks, flagged as copied; both
# against the compiled reference, which the grader says in one line. make test grades a subset.
# (tests/sh/grader.sh grades every lesson's skeleton and reference in the repository; here, the
# release's own paths: lesson 00's judge measuring the reference, and a lesson with ranks)
SKEL_LESSONS=${RELEASE_SKELETONS:-"06"}
REF_LESSONS=${RELEASE_REFERENCE:-"00 03"}
if [ "$FULL" = 1 ]; then
    SKEL_LESSONS=$(ls -d lessons/[0-9]*-*/ | cut -c9-10 | tr '\n' ' ')
    REF_LESSONS=$SKEL_LESSONS
fi
for n in $SKEL_LESSONS; do
    t0=$(date +%s)
    inrel grading/grade "$n" >"$TMP/out" 2>&1
    rc=$?
    if [ $rc = 1 ] && grep -qE '^Score: 0/[1-9]' "$TMP/out" && grep -q '^grade: a self-check' "$TMP/out"; then
        pass "self-grade of lesson $n's skeleton: $(tail -n 1 "$TMP/out") ($(($(date +%s) - t0)) s)"
    else
        fail "self-grade of lesson $n's skeleton: exit $rc, $(grep -E '^grade:|Score' "$TMP/out" | head -n 3 | tr '\n' ' ')"
    fi
done
cp -R "$REL/lessons" "$TMP/skeletons"
for n in $REF_LESSONS; do
    d=$(cd lessons && ls -d "$n"-*)
    cp solutions/"$d"/* "$REL/lessons/$d/"
    t0=$(date +%s)
    inrel grading/grade "$n" >"$TMP/out" 2>&1
    rc=$?
    max=$(sed -n 's|^Score: \([0-9]*\)/\([0-9]*\)$|\1 \2|p' "$TMP/out")
    if [ $rc = 0 ] && [ -n "$max" ] && [ "${max% *}" = "${max#* }" ] && grep -q "NOTE: copied" "$TMP/out"; then
        pass "self-grade of lesson $n with the reference copied in: $(tail -n 1 "$TMP/out"), flagged as copied ($(($(date +%s) - t0)) s)"
    else
        fail "self-grade of lesson $n with the reference copied in: exit $rc, $(grep -E 'NOTE|FAIL|Score|grade:' "$TMP/out" | head -n 4 | tr '\n' ' ')"
    fi
    cp "$TMP/skeletons/$d"/* "$REL/lessons/$d/"
done

# ---- a quiz ----------------------------------------------------------------------------------------------
inrel grading/quiz 04 --student alice --answer-key >"$TMP/key" 2>"$TMP/qerr"
inrel grading/quiz 04 --student alice --answers "$TMP/key" >"$TMP/out" 2>>"$TMP/qerr"
rc=$?
if [ $rc = 0 ] && grep -qE '^Score: ([0-9]+)/\1$' "$TMP/out" && grep -q '^quiz: a self-check' "$TMP/qerr"; then
    pass "grading/quiz 04 in the release: $(tail -n 1 "$TMP/out"), said to be a self-check"
else
    fail "grading/quiz 04 in the release: exit $rc, $(tail -n 2 "$TMP/out" | tr '\n' ' ') $(head -n 2 "$TMP/qerr")"
fi

# ---- every command of every text, in release mode, on the skeletons --------------------------------------
t0=$(date +%s)
DOC_RELEASE=$REL inrel sh "$TMP/t/tests/sh/doc_commands.sh" >"$TMP/doc" 2>&1
grep -E '^(PASS|FAIL) ' "$TMP/doc" | sed 's/^\(PASS\|FAIL\) /\1 release: /' | grep '^FAIL'
nf=$(grep -c '^FAIL' "$TMP/doc")
if [ "$nf" = 0 ] && grep -q '^doc_commands:' "$TMP/doc"; then
    pass "every command of the release's texts and make help works or says what to do first ($(($(date +%s) - t0)) s): $(grep '^doc_commands:' "$TMP/doc" | tail -n 1)"
else
    fail "the release's commands: $nf failed ($(grep '^doc_commands:' "$TMP/doc" | tail -n 1))"
fi

# ---- make bench, short form -----------------------------------------------------------------------------
t0=$(date +%s)
BENCH_QUICK=1 inrel make -s bench >"$TMP/bench" 2>&1
rc=$?
if [ $rc = 0 ] && grep -q 'the reference' "$TMP/bench"; then
    pass "make bench (BENCH_QUICK=1) in the release measures the compiled reference where your lesson is unfinished ($(($(date +%s) - t0)) s): $(grep -m1 'the reference' "$TMP/bench")"
else
    fail "make bench in the release: exit $rc, $(tail -n 4 "$TMP/bench" | tr '\n' ' ')"
fi

# ---- what stays: no tests, and the instructor's --reference --------------------------------------------
inrel make test >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ $rc = 2 ] && grep -q "the student release has no tests" "$TMP/err" && [ "$(grep -vc '^make: \*\*\*' "$TMP/err")" = 1 ]; then
    pass "make test in the release fails with one line: $(head -n 1 "$TMP/err")"
else
    fail "make test in the release: exit $rc, $(cat "$TMP/err")"
fi
cd "$REL" || exit 2
grading/grade 05 --reference "$ROOT/solutions" --only buckets >"$TMP/out" 2>&1
rc=$?
if [ $rc = 1 ] && grep -qE '^Score: 0/[1-9]' "$TMP/out" && ! grep -q 'a self-check' "$TMP/out"; then
    pass "the instructor's --reference DIR grades the release's skeleton: $(tail -n 1 "$TMP/out")"
else
    fail "grade --reference in the release: exit $rc, $(grep -E 'FAIL|Score|grade:' "$TMP/out" | head -n 4 | tr '\n' ' ')"
fi
# rebuilt from the compiled reference for what follows
make -s -j2 >/dev/null 2>&1

# ---- a seeded leak: a release whose build links the reference as the student's own lesson ---------------
cp Makefile "$TMP/Makefile.orig"
sed -i 's|$(LESSON_STACK_O),,$(STACK_STAMP))))|$(LESSON_STACK_O),,$(STACK_STAMP),ref_lib_obj)))|' Makefile
if cmp -s Makefile "$TMP/Makefile.orig"; then
    fail "the seeded leak could not be planted: the Makefile's lessons/ tree line changed"
else
    rm -f build/lessons/06-accum/accum_step.o
    make -s build/lessons/06-accum/lib06.a >/dev/null 2>&1
    expect_error "a release that links the reference as your own lesson 06 is caught" "the compiled reference's, linked as yours" sh "$ROOT/grading/student-release" --check "$REL"
fi
cp "$TMP/Makefile.orig" Makefile
