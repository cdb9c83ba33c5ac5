#!/bin/sh
# tests/bugs/sanitize.sh [--subset | LESSON...] — the seeded-bug catalogue graded under ASan+UBSan
# (make test-bugs-sanitize: all of it; make test: --subset).
#
# Given code must never crash on a student's mistake: it checks its preconditions and stops with one
# line that names the mistake. Each bug of tests/bugs/NN/ is graded by tests/bugs/check.sh from
# build-asan/ (make SANITIZE=address,undefined), and every check's captured output is searched for
# sanitizer reports (tests/bugs/san-frames.sh): a report whose top frame is outside the student's
# files fails the bug, naming the report and the frame. Only that: a student's own bad access ends in
# a report here rather than a signal, so the grader's wording may differ (the plain catalogue, make
# test, checks every bug's message).
#
#   --subset    SUBSET below: a few bugs per lesson that drive the given entry points (about 2
#               minutes on 2 idle cores, once build-asan/ is built)
#   LESSON...   those lessons' whole catalogues (none: every lesson; about 7 minutes on 2 quiet cores, longer under load);
#               a tests/bugs/NN/BUG.patch names one bug
#
# Leaks are not looked for (detect_leaks=0): a run the grader stops, or that ends in dp_fatal, leaves
# its allocations behind by design; tests/sanitize.sh checks the reference's leaks.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 2
SUBSET="01/linear-writes-null-dx 02/worker-steps 03/worker-scratch-unallocated 04/chunk-off-by-one
05/reset-before-wait 05/slice-in-bytes 05/finish-launches-past-last 06/sync-every-micro-step 06/targets-offset-by-T 07/pad-past-end
08/zero-wrong-chunk 08/zero-stage2-full-grads 10/noise-rank-own 11/inter-whole-buffer 12/slices-overlap"
patches=""
case ${1:-} in
--subset) for b in $SUBSET; do patches="$patches tests/bugs/$b.patch"; done ;;
-*) echo "usage: sh tests/bugs/sanitize.sh [--subset | LESSON...]" >&2; exit 2 ;;
*)
    lessons=${*:-$(cd tests/bugs && ls -d [0-9][0-9])}
    for L in $lessons; do
        case $L in
        *.patch) patches="$patches $L" ;; # one bug
        *) patches="$patches $(ls tests/bugs/"$L"/*.patch 2>/dev/null)" ;;
        esac
    done
    ;;
esac
for p in $patches; do [ -f "$p" ] || { echo "FAIL bugs-sanitize: no $p (SUBSET names a bug that is gone)"; exit 1; }; done
start=$(date +%s)

export NO_CUDA=1 # CUDA code would be uninstrumented (tests/sanitize.sh)
export OMPI_MCA_mca_base_component_disable_dlclose=1
export DPC_LIMIT_AS_MB=134217728 # ASan's shadow reserves ~20 TiB of address space
log=$(mktemp "${TMPDIR:-/tmp}/dpc-bugs-san.XXXXXX")
trap 'rm -f "$log"' EXIT
make -s -j"${JOBS:-2}" O=build-asan SANITIZE=address,undefined grader-ready >"$log" 2>&1 ||
    { echo "FAIL bugs-sanitize: build-asan/ does not build:"; tail -n 20 "$log" | sed 's/^/    /'; exit 1; }
export SANITIZE=address,undefined O=build-asan
# In the grader's sandbox no log file can be written: reports go to stderr (the captured output the
# grader keeps with --keep) and end the program.
export ASAN_OPTIONS="halt_on_error=1:detect_leaks=0:abort_on_error=0"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
# ASan's slowdown: a deadlock bug still ends at the watchdog, only later
export DP_TIMEOUT_S=${DP_TIMEOUT_S:-8}
export BUGS_SANITIZE=1

status=0
n=0
for p in $patches; do echo "$p"; done | awk -v out="$log" '{ printf "%s %s.%04d\n", $0, out, NR }' |
    xargs -n 2 -P "${BUG_JOBS:-2}" sh -c 'sh tests/bugs/check.sh --one "$0" >"$1" 2>&1'
for f in "$log".[0-9]*; do
    [ -f "$f" ] || continue
    n=$((n + 1))
    sed 's/^\(PASS\|FAIL\) bug/\1 bug (asan)/' "$f"
    grep -q '^FAIL' "$f" && status=1
    rm -f "$f"
done
echo "bugs-sanitize: $n bugs under ASan+UBSan in $(($(date +%s) - start)) s$([ $status = 0 ] || echo '; some FAILED')"
exit $status
