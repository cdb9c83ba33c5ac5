# The grader: full marks for the reference, zero for the skeletons (fast, no hang), results
# written whatever the submission does (crash, hang, compile error), Gradescope output valid,
# two graders side by side, and a class graded by grade-all.
. "$(dirname "$0")/lib.sh"
REPORT=$BUILD/grading/report
LESSONS=$(for mk in lessons/[0-9]*/lesson.mk; do basename "$(dirname "$mk")" | cut -c1-2; done)

# Every grading run below is made once: a result two checks need is shared, not graded twice.
# - The reference: each lesson here with no build (--submission solutions grades the reference's
#   own build); lesson 03 by the two graders side by side further down, lesson 01 also writing the
#   Gradescope results that the next check reads.
# - The skeletons: from the build of lessons/ that make already made (DPC_PREBUILT=1: the checks
#   run as always, in the sandbox; only the sandboxed build of the skeleton is skipped, which its
#   zero never depended on: a build failure scores 0 too, so skeleton() requires checks that ran).
#   The sandboxed build of a skeleton: grade-all's students below (lesson 01), tests/hostile's
#   batches (01, 02, 07) and the release's self-grade (06, tests/sh/student_release.sh); of every
#   lesson's code: tests/bugs. Lesson 01's skeleton is graded once, below, for the Gradescope
#   results on stdout.
skeleton() { # L STDOUT [grade's options...]: the skeleton of lesson L scores 0, quickly. The text
    # output in TMP/g; STDOUT, unless empty, gets the grader's stdout (a report without --out)
    L=$1 so=$2
    shift 2
    start=$(date +%s)
    if [ -n "$so" ]; then
        DPC_PREBUILT=1 grading/grade "$L" "$@" >"$so" 2>"$TMP/g"
    else
        DPC_PREBUILT=1 grading/grade "$L" "$@" >"$TMP/g" 2>&1
    fi
    rc=$?
    took=$(($(date +%s) - start))
    # its checks ran and failed: a zero for code that did not build proves nothing (a prebuilt tree
    # without the lesson scores 0 with no check run)
    if [ $rc = 1 ] && grep -q '^Score: 0/' "$TMP/g" && [ $took -lt 120 ] && grep -q "^$L [a-z_0-9]*: FAIL (" "$TMP/g" &&
        ! grep -q 'code did not build' "$TMP/g"; then
        pass "skeleton of lesson $L scores 0 in ${took}s"
    else
        fail "skeleton of lesson $L: exit $rc after ${took}s, $(tail -n 1 "$TMP/g")"
    fi
}

for L in $LESSONS; do
    if [ "$L" = 03 ]; then
        : # graded side by side below
    elif [ "$L" = 01 ]; then
        if grading/grade 01 --submission solutions --format gradescope --out "$TMP/results.json" >"$TMP/g" 2>&1; then
            pass "solution of lesson 01: $(tail -n 1 "$TMP/g")"
        else
            fail "solution of lesson 01 is not at full marks: $(grep -E 'FAIL|Score' "$TMP/g" | head -n 5)"
        fi
        # lesson 01's total on this machine (the GPU-only check counts only where it ran), for the check below
        T01=$(sed -n 's|^Score: [0-9]*/\([0-9]*\).*|\1|p' "$TMP/g" | tail -n 1)
    elif grading/grade "$L" --submission solutions >"$TMP/g" 2>&1; then
        pass "solution of lesson $L: $(tail -n 1 "$TMP/g")"
    else
        fail "solution of lesson $L is not at full marks: $(grep -E 'FAIL|Score' "$TMP/g" | head -n 5)"
    fi
    [ "$L" = 01 ] || skeleton "$L" "" # 01: below
done

# Gradescope and JSON output (the results of lesson 01's reference, graded above)
if $REPORT --validate "$TMP/results.json" >"$TMP/v" && grep -q "\"score\":	${T01:-0}" "$TMP/results.json"; then
    pass "gradescope output: $(cat "$TMP/v")"
else
    fail "gradescope output: $(cat "$TMP/v")"
fi
skeleton 01 "$TMP/stdout.json" --format gradescope
if $REPORT --validate "$TMP/stdout.json" >/dev/null && grep -q '"status":	"failed"' "$TMP/stdout.json"; then
    pass "gradescope output on stdout, skeleton: valid and failing"
else
    fail "gradescope output on stdout is not valid JSON"
fi

# A submission that crashes, one that hangs, one that does not compile: results are still written.
mk_sub() { # mk_sub NAME FILE SED_EXPR
    mkdir -p "$TMP/$1"
    cp -R solutions/. "$TMP/$1/"
    sed -i "$3" "$TMP/$1/01-trainer/$2"
}
mk_sub crash train_step.c 's|    model_zero_grad(m);|    model_zero_grad(m); if (t->step == 2) *(volatile int *)0 = 1;|'
mk_sub hang linear.c 's|    ops_colsum_acc(ops, dy, B, out, db);|    for (volatile int spin = 1; spin;) { } ops_colsum_acc(ops, dy, B, out, db);|'
mk_sub broken xent.c 's|    float scale = grad_scale / (float)B;|    float scale = grad_scale / (float)B syntax error|'
# -Wshadow is one of the course's warnings (an error under -Werror): the student sees the compiler's line.
mk_sub shadow adamw.c 's|        float g = grads\[i\];|        float g = grads[i]; { size_t n = 1; (void)n; }|'

grading/grade 01 --submission "$TMP/crash" --format gradescope --out "$TMP/crash.json" >"$TMP/g" 2>&1
# the student reads where: the function and line of their file that crashed (common/crash.h)
if grep -q 'signal 11 (SEGV)' "$TMP/g" && grep -qF 'a NULL pointer) in train_step (lessons/01-trainer/train_step.c:' "$TMP/g" &&
    $REPORT --validate "$TMP/crash.json" >/dev/null; then
    pass "a crashing submission: the signal and the function it crashed in are reported and results are written"
else
    fail "crashing submission: $(grep -E 'FAIL|Score' "$TMP/g" | head -n 4)"
fi
# The maximum is the machine's, never the submission's: a GPU-only check is skipped (0/0) where
# there is no GPU whatever the submission did (a build failure counted it: 130 against 110).
mkdir -p "$TMP/ctorcrash/01-trainer"
cp solutions/01-trainer/* "$TMP/ctorcrash/01-trainer/"
echo '__attribute__((constructor)) static void crash_first(void) { *(volatile int *)0 = 1; }' >>"$TMP/ctorcrash/01-trainer/linear.c"
maxima=""
for sub in solutions "$TMP/ctorcrash" "$TMP/broken"; do
    grading/grade 01 --submission "$sub" --only device,adamw >"$TMP/g" 2>&1
    maxima="$maxima $(sed -n 's|^Score: [0-9]*/\([0-9]*\).*|\1|p' "$TMP/g")"
done
set -- $maxima
TGA=${1:-0} # that maximum: the grade-all classes below are graded on these two checks
if [ $# = 3 ] && [ "$1" = "$2" ] && [ "$1" = "$3" ]; then
    pass "the reference, a submission that crashes before main and one that does not build have the same maximum ($1) on the GPU-only check and another"
else
    fail "the maximum depends on the submission: reference, crash, build failure:$maxima"
fi
start=$(date +%s)
# two checks (a C check and an mpirun-launched script) are enough: each hangs, is killed alike
grading/grade 01 --submission "$TMP/hang" --timeout 3 --only linear_backward,train --format gradescope --out "$TMP/hang.json" >"$TMP/g" 2>&1
took=$(($(date +%s) - start))
left=$(pgrep -f "$TMP/hang" | wc -l)
if grep -q 'timeout after 3 s' "$TMP/g" && $REPORT --validate "$TMP/hang.json" >/dev/null && [ "$left" = 0 ] && [ $took -lt 60 ]; then
    pass "a hanging submission is killed after --timeout 3 (grading took ${took}s, nothing left running)"
else
    fail "hanging submission: took ${took}s, $left processes left: $(grep -E 'FAIL|Score' "$TMP/g" | head -n 4)"
fi
grading/grade 01 --submission "$TMP/broken" --format gradescope --out "$TMP/broken.json" >"$TMP/g" 2>&1
rc=$?
if [ $rc = 1 ] && grep -q 'does not compile' "$TMP/g" && [ "$(grep -c 'syntax error' "$TMP/g")" = 1 ] &&
    grep -q 'did not build' "$TMP/broken.json" && $REPORT --validate "$TMP/broken.json" >/dev/null; then
    pass "a submission that does not compile: the compiler's error said once, every check at 0, results written"
else
    fail "non-compiling submission: exit $rc, $(head -n 5 "$TMP/g")"
fi
grading/grade 01 --submission "$TMP/shadow" >"$TMP/g" 2>&1
rc=$?
if [ $rc = 1 ] && grep -q "adamw.c:[0-9]*:[0-9]*: error: declaration of .*n.* shadows a parameter" "$TMP/g"; then
    pass "a shadowed variable does not build, and the grader shows the compiler's line"
else
    fail "shadowed variable: exit $rc, $(head -n 5 "$TMP/g")"
fi

# Two graders at once on one machine must not collide (scratch dirs, MPI session dirs, ports).
# Lesson 03: its checks are exact, so the result cannot depend on the load (lesson 00's link fit is
# a timing measurement and belongs on a quiet machine), and it has them all: ranks, the switch, the
# C checks' scratch. These two runs are the loop's grade of lesson 03's reference. (Two graders of
# lesson 01 at once: tests/sh/bad_values.sh, for the build lock.)
grading/grade 03 --submission solutions >"$TMP/a" 2>&1 &
pa=$!
grading/grade 03 --submission solutions >"$TMP/b" 2>&1 &
pb=$!
wait $pa
ra=$?
wait $pb
rb=$?
if [ $ra = 0 ] && [ $rb = 0 ]; then
    pass "solution of lesson 03, two graders side by side: both give full marks ($(tail -n 1 "$TMP/a"), $(tail -n 1 "$TMP/b"))"
else
    fail "solution of lesson 03, two graders side by side: $(grep -hE "FAIL|Score" "$TMP/a" "$TMP/b" | head -n 6)"
fi

# grade-all's own work (rows, layouts, names, links, similarity, a batch that goes on) does not
# depend on which checks run: its classes below are graded on the two checks of lesson 01 whose
# maximum is known from above (the GPU-only one and adamw), not on all nine again. That grade-all
# gives the reference full marks and the skeleton 0 on every check: the batches of
# tests/hostile/check.sh (zz-clean, zz-skeleton) in make test.
mkdir -p "$TMP/ga-checks"
{
    grep -E '^[A-Z]+=' grading/lessons/01.sh
    grep -E '^(check adamw|gpu_check device) ' grading/lessons/01.sh
} >"$TMP/ga-checks/01.sh"
[ "$(grep -cE "^(check|gpu_check) " "$TMP/ga-checks/01.sh")" = 2 ] || fail "grade-all: lesson 01's checks adamw and device are not where grader.sh looks (grading/lessons/01.sh)"

# A class: the reference, the skeleton, a broken submission and one in the flat layout.
mkdir -p "$TMP/class/alice/lessons" "$TMP/class/bob" "$TMP/class/carol/lessons" "$TMP/class/dave"
cp -R solutions/. "$TMP/class/alice/lessons/"
cp -R lessons/. "$TMP/class/bob/"
cp -R "$TMP/broken/." "$TMP/class/carol/lessons/"
cp -R solutions/. "$TMP/class/dave/"
echo "garbage" >"$TMP/class/alice/lessons/01-trainer/model.c" # not a student file: must be ignored
grading/grade-all "$TMP/class" --lessons "01" --checks "$TMP/ga-checks" --out "$TMP/grades.csv" >"$TMP/ga" 2>&1
# carol's code does not build: every check scores 0 of its points; the GPU-only one (20) counts
# for her exactly as for everyone else (skipped 0/0 where there is no GPU)
T=$TGA
C=$T
if [ "$(wc -l <"$TMP/grades.csv")" = 5 ] && grep -q "^\"alice\",$T,$T,0,$T,\"the reference 100% (L01); dave 100% (L01)[^\"]*\",\"copied: " "$TMP/grades.csv" &&
    grep -q "^\"bob\",0,$T,0,0,\"\",\"\"\$" "$TMP/grades.csv" && grep -q "^\"carol\",0,$C,0,0," "$TMP/grades.csv" &&
    grep -q "^\"dave\",$T,$T,0,$T,\"[^\"]*\",\"copied: " "$TMP/grades.csv"; then
    pass "grade-all: one row per student, non-student files ignored, a broken submission does not stop the batch, the reference flagged as copied and similar to the reference and to each other"
else
    fail "grade-all: $(cat "$TMP/grades.csv") / $(tail -n 3 "$TMP/ga")"
fi

# Folder names with spaces, commas, quotes and non-ASCII, two students at once: RFC 4180 rows.
mkdir -p "$TMP/names/Doe, Jane" "$TMP/names/Zoë \"Z\" Ng"
cp -R solutions/01-trainer "$TMP/names/Doe, Jane/"
cp -R lessons/01-trainer "$TMP/names/Zoë \"Z\" Ng/"
grading/grade-all "$TMP/names" --lessons 01 --checks "$TMP/ga-checks" -j 2 --out "$TMP/names.csv" >"$TMP/ga" 2>&1
if grep -q "^\"Doe, Jane\",$T,$T,0,$T," "$TMP/names.csv" && grep -q "^\"Zoë \"\"Z\"\" Ng\",0,$T,0,0,\"\",\"\"\$" "$TMP/names.csv"; then
    pass "grade-all -j 2: any folder name, RFC 4180 quoting"
else
    fail "grade-all with odd names: $(cat "$TMP/names.csv") / $(tail -n 3 "$TMP/ga")"
fi

# A student file that is a link (to a file only root may read, here the reference) is left out.
mkdir -p "$TMP/links/eve/01-trainer"
cp lessons/01-trainer/*.c "$TMP/links/eve/01-trainer/"
ln -sf "$PWD/solutions/01-trainer/adamw.c" "$TMP/links/eve/01-trainer/adamw.c"
grading/grade-all "$TMP/links" --lessons 01 --checks "$TMP/ga-checks" --out "$TMP/links.csv" >"$TMP/ga" 2>&1
if grep -q "^\"eve\",0,$T,0,0,\"\",\"links, not files, left out: 01-trainer/adamw.c\"\$" "$TMP/links.csv"; then
    pass "grade-all: a student file that is a link is left out, and the row says so"
else
    fail "grade-all with a linked student file: $(cat "$TMP/links.csv")"
fi

# The sandbox this machine gives (CI must have bubblewrap: the hostile catalogue relies on it).
mode=$(grading/sandbox --probe)
if [ "$(echo "$mode" | cut -d' ' -f1)" = bubblewrap ]; then
    pass "the grader's sandbox here: $mode"
else
    fail "the grader's sandbox here is not bubblewrap: $mode"
fi

# A grader killed in the middle still leaves a valid report of the checks decided so far, saying so.
grading/grade 01 --submission solutions --format gradescope --out "$TMP/killed.json" >/dev/null 2>&1 &
pk=$!
for _ in $(seq 1 100); do
    grep -q '"name":' "$TMP/killed.json" 2>/dev/null && break
    sleep 0.1
done
kill -9 $pk 2>/dev/null
wait $pk 2>/dev/null
if $REPORT --validate "$TMP/killed.json" >/dev/null && grep -q 'Grading did not finish' "$TMP/killed.json"; then
    pass "a killed grader leaves a valid results file that says grading did not finish"
else
    fail "killed grader: $(head -c 300 "$TMP/killed.json" 2>/dev/null)"
fi
# ... and no switch of its still running (it served the check in progress; it stops with its parent)
for _ in $(seq 1 50); do
    pgrep -f "$BUILD/grading/switch --socket" >/dev/null || break
    sleep 0.1
done
if pgrep -f "$BUILD/grading/switch --socket" >/dev/null; then
    fail "a grader killed with SIGKILL left its switch running: $(pgrep -af "$BUILD/grading/switch --socket" | head -n 2)"
    pkill -f "$BUILD/grading/switch --socket"
else
    pass "a grader killed with SIGKILL leaves no switch running"
fi

# The whole-grade limit: a hanging submission with long per-check limits is still bounded.
start=$(date +%s)
grading/grade 01 --submission "$TMP/hang" --total-timeout 8 --format json --out "$TMP/total.json" >"$TMP/g" 2>&1
took=$(($(date +%s) - start))
if [ $took -lt 40 ] && grep -q 'not run' "$TMP/g" && grep -q '"state":' "$TMP/total.json"; then
    pass "--total-timeout 8 bounds a hanging submission (${took}s; later checks 'not run')"
else
    fail "--total-timeout: ${took}s, $(grep -E 'FAIL|Score' "$TMP/g" | head -n 4)"
fi

# A timing check that cannot decide (judge exit 75) is measured again, then INCONCLUSIVE: 0 points,
# counted apart in text, JSON, Gradescope; exit 3 when nothing else was lost. --only picks checks.
mkdir -p "$TMP/noisy"
cat >"$TMP/noisy/01.sh" <<'EOS'
check noisy 10 30 "a timing check that cannot decide" -- sh -c 'case $PHASE in judge) echo "measured: ratio 1.31 (try $TRY)"; exit 75 ;; esac'
check steady 5 30 "a check that passes with a margin" -- sh -c 'case $PHASE in judge) echo "margin: 1.10 <= 1.25" ;; esac'
EOS
grading/grade 01 --submission solutions --checks "$TMP/noisy" >"$TMP/g" 2>&1
rc=$?
grading/grade 01 --submission solutions --checks "$TMP/noisy" --format json --out "$TMP/noisy.json" >/dev/null 2>&1
grading/grade 01 --submission solutions --checks "$TMP/noisy" --format gradescope --out "$TMP/noisy-gs.json" >/dev/null 2>&1
if [ $rc = 3 ] && [ "$(grep -c 'measuring again' "$TMP/g")" = 2 ] && grep -q 'noisy: INCONCLUSIVE' "$TMP/g" &&
    grep -q 'measured: ratio 1.31 (try 3)' "$TMP/g" && grep -q 'steady: OK.*margin: 1.10' "$TMP/g" &&
    grep -q '^Score: 5/15 (10 points INCONCLUSIVE' "$TMP/g" && grep -q '"inconclusive_points":	10' "$TMP/noisy.json" &&
    grep -q '"status":	"inconclusive"' "$TMP/noisy.json" && $REPORT --validate "$TMP/noisy-gs.json" >/dev/null &&
    grep -q '10 points INCONCLUSIVE' "$TMP/noisy-gs.json"; then
    pass "a check too noisy to decide: measured 3 times, then INCONCLUSIVE and counted apart (text, JSON, Gradescope; exit 3)"
else
    fail "inconclusive check: exit $rc, $(grep -E 'noisy|Score' "$TMP/g" | head -n 4 | tr '\n' ' ')"
fi
grading/grade 01 --submission solutions --only adamw,train_clip >"$TMP/g" 2>&1
rc=$?
grading/grade 01 --submission solutions --only adamw,nosuch >"$TMP/g2" 2>&1
rc2=$?
if [ $rc = 0 ] && [ "$(grep -c ': OK' "$TMP/g")" = 2 ] && grep -q '^Score: 30/30' "$TMP/g" && [ $rc2 = 1 ] &&
    grep -q "no check named 'nosuch'" "$TMP/g2"; then
    pass "--only grades just the named checks, and names a check that does not exist"
else
    fail "--only: exit $rc/$rc2, $(tail -n 2 "$TMP/g" "$TMP/g2" | tr '\n' ' ')"
fi

# A limit inherited from the instructor's shell, lower than the sandbox's: each of the five the
# sandbox sets applies (said in one line) and grading goes on; below what grading needs, one line
# and exit 2. Before, the sandbox's prlimit failed as a user ("failed to set the AS resource
# limit"): every submission "did not compile", exit 1.
for lim in "as 3072000000 1000000000 address" "cpu 300 30 CPU" "fsize 100000000 10000000 file" "nofile 512 100 open" "nproc 300 100 processes"; do
    set -- $lim
    prlimit "--$1=$2" grading/grade 01 --submission solutions --only adamw >"$TMP/g" 2>&1
    rc=$?
    prlimit "--$1=$3" grading/grade 01 --submission solutions --only adamw >"$TMP/g2" 2>&1
    rc2=$?
    if [ $rc = 0 ] && [ "$(grep -c "limit on $4.*below the sandbox's.*applies" "$TMP/g")" = 1 ] && grep -q '^Score: 20/20' "$TMP/g" &&
        [ $rc2 = 2 ] && [ "$(wc -l <"$TMP/g2")" = 1 ] && grep -q "limit on $4.*that grading needs" "$TMP/g2"; then
        pass "an inherited $1 limit: $2 applies, said once, full marks; $3 is refused in one line, exit 2"
    else
        fail "inherited $1 limit: exit $rc ($(grep -E 'limit|Score' "$TMP/g" | tr '\n' ' ')), at $3 exit $rc2 ($(head -n 2 "$TMP/g2" | tr '\n' ' '))"
    fi
done
# The build runs in the sandbox under it too: the skeleton builds (and scores 0), it does not "not compile".
prlimit --as=3072000000 grading/grade 01 --only adamw >"$TMP/g" 2>&1
rc=$?
if [ $rc = 1 ] && ! grep -q 'does not compile' "$TMP/g" && grep -q '^Score: 0/20' "$TMP/g"; then
    pass "under an inherited 2.9 GB address-space limit the skeleton builds in the sandbox and scores 0"
else
    fail "skeleton under an address-space limit: exit $rc, $(grep -E 'compile|FAIL|Score' "$TMP/g" | head -n 3 | tr '\n' ' ')"
fi

# What a run gets of the grader: no variable naming the phase (PHASE, CK_PHASE, RUN_DIR), no
# descriptor but 0, 1 and 2 (fd 3 was the grader's own output: a run wrote forged lines into it),
# and a scratch of its own: every earlier check's scratch is gone by then (the disk quota holds per
# run, not per grade).
mkdir -p "$TMP/reach"
cat >"$TMP/reach/01.sh" <<'EOS'
for k in 1 2 3; do
check reach$k 5 30 "what the run sees" -- sh -c 'case ${PHASE:-run} in
run) env >env.txt; ls /proc/self/fd >fds.txt; ls "$GRADING" >grading.txt; head -c 50000000 /dev/zero >big ;;
judge) grep -E "^(PHASE|CK_PHASE|RUN_DIR)=" "$RUN_DIR/env.txt" && exit 1
    echo "descriptors: $(tr "\n" " " <"$RUN_DIR/fds.txt")"; [ "$(tr "\n" " " <"$RUN_DIR/fds.txt")" = "0 1 2 3 " ] || exit 1
    echo "of grading/: $(tr "\n" " " <"$RUN_DIR/grading.txt")"; [ "$(tr "\n" " " <"$RUN_DIR/grading.txt")" = "lessons mpirun " ] || exit 1
    echo "scratches: $(ls "$(dirname "$RUN_DIR")" | tr "\n" " ")"; [ "$(ls "$(dirname "$RUN_DIR")")" = "$(basename "$RUN_DIR")" ] ;;
esac'
done
EOS
grading/grade 01 --submission solutions --checks "$TMP/reach" 5>"$TMP/fd5" >"$TMP/g" 2>&1
rc=$?
if [ $rc = 0 ] && grep -q '^Score: 15/15' "$TMP/g"; then
    pass "a run sees no variable naming its phase, no descriptor of the grader's, of grading/ only the scripts and mpirun, and no earlier check's scratch (each freed once decided)"
else
    fail "what a run sees: exit $rc, $(grep -vE '^==' "$TMP/g" | head -n 12 | tr '\n' ' ')"
fi
