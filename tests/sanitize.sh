#!/bin/sh
# tests/sanitize.sh — the reference under the sanitizers (make test-sanitize; .ci/run runs it).
#
#   sh tests/sanitize.sh [asan] [tsan]      (no part named: both; 2.5 to 6 minutes here, by load)
#
#   asan   build-asan/ (make SANITIZE=address,undefined): the unit tests and the shell tests through
#          tests/run, then grading/grade 01 05 08 --submission solutions (full marks required)
#   tsan   build-tsan/ (make SANITIZE=thread): train_ddp (lesson 05: its communication thread, ring
#          and tree, overlap on and off; the data loader's thread with --prefetch-depth 2) and train_fsdp (lesson 08: its prefetch thread) on 2, 3 and
#          4 ranks with tests/sh/lib.sh's QUICK options; on 2 ranks the GPT with --threads 3 (the ops'
#          pool, common/pool.h), and the pool's unit test (tests/unit/test_pairwise.c)
#
# Any sanitizer report fails the run: UBSan and ASan halt on the first one; every report also goes
# to a log file (log_path) that is checked at the end, so a report is seen even where a test expects
# the program to fail anyway. Leaks are checked (detect_leaks=1, at exit, with full unwinding so that
# Open MPI's own allocations can be told apart); tests/sanitize/lsan.supp names the libraries whose
# leaks are not ours, tests/sanitize/tsan.supp likewise for TSan. Inside the grader's sandbox the
# log files cannot be written: there a report ends the program (non-zero exit), and the lost marks
# fail the run.
#
# CUDA code is not built (NO_CUDA=1): it would be uninstrumented, there is no GPU in CI, and the CUDA
# runtime and ASan need ASAN_OPTIONS=protect_shadow_gap=0 to coexist.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 2
parts=""
for a in "$@"; do
    case $a in
    asan | tsan) parts="$parts $a" ;;
    *) echo "usage: sh tests/sanitize.sh [asan] [tsan]" >&2; exit 2 ;;
    esac
done
[ -n "$parts" ] || parts="asan tsan"
LOGS=$(mktemp -d "${TMPDIR:-/tmp}/dpc-sanitize.XXXXXX")
failed=""
trap '[ -z "$failed" ] && rm -rf "$LOGS" || echo "sanitize: the reports and logs are kept in $LOGS"' EXIT
export NO_CUDA=1
# Open MPI keeps its components loaded: a leak inside one then has a named module the suppressions
# can match (dlclose'd code shows as "<unknown module>").
export OMPI_MCA_mca_base_component_disable_dlclose=1
# ASan reserves ~20 TiB of address space for its shadow: the grader's 4 GiB limit would stop it.
export DPC_LIMIT_AS_MB=134217728
SUPP=$ROOT/tests/sanitize
start=$(date +%s)

# The shell tests run under ASan. Left out: grader.sh (it grades every lesson of the reference and
# of the skeletons, with a time limit per skeleton that ASan's slowdown breaks; the graders of 01,
# 05 and 08 below cover it), the bug catalogue and the hostile submissions (they grade broken code,
# not the reference).
SAN_SHELL="^test_\|^comm$\|^dataset$\|^equiv-hints$\|^equiv-sweep$\|^resume$\|^safetensors_python$\|^skeletons$\|^trainer_errors$\|^loader$\|^noise_scale$\|^seeded_programs$\|^topology$"

# reports LABEL: fail when a sanitizer wrote a log file since the last call (then show its start).
reports() {
    n=0
    for f in "$LOGS"/san.[0-9]*; do
        [ -f "$f" ] || continue
        case $f in *.seen) continue ;; esac
        # (a report, not only the table of suppressions used)
        grep -qE 'ERROR|WARNING|runtime error' "$f" || { rm -f "$f"; continue; }
        n=$((n + 1))
        echo "FAIL sanitize $1: a sanitizer report ($f):"
        grep -E 'ERROR|WARNING|SUMMARY|runtime error|^    #[0-9] ' "$f" | head -n 14 | sed 's/^/    /'
        mv "$f" "$f.seen"
    done
    [ $n = 0 ] || failed="$failed $1"
}

asan() {
    echo "sanitize: building build-asan/ (ASan + UBSan)"
    make -s -j"${JOBS:-2}" O=build-asan SANITIZE=address,undefined test-build >"$LOGS/build.log" 2>&1 ||
        { tail -n 20 "$LOGS/build.log"; failed="$failed asan-build"; return; }
    export SANITIZE=address,undefined O=build-asan
    export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:fast_unwind_on_malloc=0:log_path=$LOGS/san"
    export LSAN_OPTIONS="suppressions=$SUPP/lsan.supp:print_suppressions=0"
    export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:log_path=$LOGS/san"
    pat=$SAN_SHELL
    t0=$(date +%s)
    TESTS=$pat sh tests/run >"$LOGS/tests.log" 2>&1 || failed="$failed asan-tests"
    grep -v '^PASS' "$LOGS/tests.log" | tail -n 40
    reports asan-tests
    echo "sanitize: unit and shell tests under ASan+UBSan took $(($(date +%s) - t0)) s"
    t0=$(date +%s)
    # In the grader's sandbox log_path cannot be written: reports go to stderr and end the program.
    export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:fast_unwind_on_malloc=0"
    export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
    # --keep: every check's captured output is then searched for a report (one that did not cost marks)
    grading/grade 01 05 08 --submission solutions --keep >"$LOGS/grade.log" 2>&1
    grep -E 'FAIL|Score|INCONCLUSIVE' "$LOGS/grade.log" | sed 's/^/    /'
    grep '^Score:' "$LOGS/grade.log" | tail -n 1 | grep -q '^Score: \([0-9]*\)/\1$' || failed="$failed asan-grade"
    work=$(sed -n 's/^grade: kept //p' "$LOGS/grade.log")
    if [ -n "$work" ] && [ -d "$work" ]; then
        if grep -rlE 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$work" >"$LOGS/grade-reports" 2>/dev/null; then
            echo "FAIL sanitize asan-grade: sanitizer reports in $(wc -l <"$LOGS/grade-reports") check outputs:"
            grep -hE 'ERROR: (Address|Leak)Sanitizer|runtime error:|^    #[0-9] ' $(cat "$LOGS/grade-reports") | head -n 14 | sed 's/^/    /'
            failed="$failed asan-grade-reports"
        fi
        rm -rf "$work"
    fi
    echo "sanitize: grading 01 05 08 under ASan+UBSan took $(($(date +%s) - t0)) s"
    unset SANITIZE O ASAN_OPTIONS LSAN_OPTIONS UBSAN_OPTIONS
}

tsan() {
    echo "sanitize: building build-tsan/ (TSan): the DDP and FSDP trainers"
    make -s -j"${JOBS:-2}" O=build-tsan SANITIZE=thread build-tsan/solutions/05-ddp/train_ddp \
        build-tsan/solutions/08-fsdp/train_fsdp build-tsan/tests/test_pairwise >"$LOGS/build-tsan.log" 2>&1 ||
        { tail -n 20 "$LOGS/build-tsan.log"; failed="$failed tsan-build"; return; }
    export TSAN_OPTIONS="halt_on_error=1:exitcode=66:second_deadlock_stack=1:suppressions=$SUPP/tsan.supp:log_path=$LOGS/san"
    quick="--preset tiny --data datasets/fixtures/tiny-train.tok --val none --batch 8 --log-every 1000"
    for np in 2 3 4; do
        for run in "05-ddp/train_ddp --allreduce ring --bucket-cap-mb 0.01" "05-ddp/train_ddp --allreduce tree --bucket-cap-mb 0.01" \
            "05-ddp/train_ddp --no-overlap --prefetch-depth 2 --loader-delay-ms 1" "08-fsdp/train_fsdp"; do
            # on 2 ranks, the ops' threads too (common/pool.h): the GPT's every threaded op at 3
            # threads, beside DDP's communication thread, which finds the pool busy
            [ "$np" = 2 ] && run="$run --threads 3 --model gpt-mini"
            set -- $run
            prog=build-tsan/solutions/$1
            shift
            label="tsan np=$np $(basename "$prog") $*"
            DP_TIMEOUT_S=120 timeout -k 10 600 grading/mpirun -np "$np" "$prog" $quick --steps 6 "$@" \
                >"$LOGS/run.log" 2>&1
            rc=$?
            if [ $rc != 0 ]; then
                echo "FAIL $label: exit status $rc"
                tail -n 8 "$LOGS/run.log" | sed 's/^/    /'
                failed="$failed tsan"
            fi
            reports "$label"
        done
    done
    build-tsan/tests/test_pairwise >"$LOGS/run.log" 2>&1 || { echo "FAIL tsan test_pairwise (the pool)"; tail -n 8 "$LOGS/run.log" | sed 's/^/    /'; failed="$failed tsan"; }
    reports "tsan test_pairwise"
    unset TSAN_OPTIONS
    case $failed in *tsan*) ;; *) echo "sanitize: 12 DDP/FSDP runs on 2-4 ranks (3 threads each on 2) and the pool's unit test under TSan: no report" ;; esac
}

for p in $parts; do $p; done
echo "sanitize: $parts took $(($(date +%s) - start)) s${failed:+; failed:$failed}"
[ -z "$failed" ]
