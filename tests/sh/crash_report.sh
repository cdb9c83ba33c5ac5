# A crash and a multi-rank failure as the student reads them (common/crash.c, grading/symbolize,
# grading/tidy.awk): a crash names the student's function and line, a line every rank printed is
# shown once, Open MPI's banners never reach the student, and the symbolizer reads nothing outside
# the submission's build, whatever a line names.
. "$(dirname "$0")/lib.sh"
SYM="sh grading/symbolize"

# A program of the course's kind (cli_parse installs the report) that writes through a NULL pointer
# in a function of a "student file": one line, the same signal, and the function named from it.
mkdir -p "$TMP/sub/01-x" "$TMP/bin"
cat >"$TMP/sub/01-x/crashme.c" <<'EOF'
#include "cli.h"

#include <stddef.h>

float *grads; /* never set: NULL */
void average(float *g, size_t n);

__attribute__((noinline)) void average(float *g, size_t n) {
    for (size_t i = 0; i < n; i++) g[i] /= 3.0f;
}

int main(int argc, char **argv) {
    const cli_opt_t opts[] = {CLI_END};
    cli_parse(argc, argv, opts, "crashme");
    average(grads, 4);
    return 0;
}
EOF
if [ -n "${SANITIZE:-}" ]; then
    echo "SKIP crash line: a sanitizer build ($SANITIZE) installs no crash report (its own handler reports)"
elif ! cc -std=c11 -O2 -g -Icommon -o "$TMP/bin/crashme" "$TMP/sub/01-x/crashme.c" "$BUILD/common/libdpc.a" -lm -pthread \
    2>"$TMP/cc.err"; then
    fail "the crashing test program does not build: $(head -c 300 "$TMP/cc.err")"
else
    "$TMP/bin/crashme" >/dev/null 2>"$TMP/err.all"
    rc=$?
    grep -v '^Segmentation fault' "$TMP/err.all" >"$TMP/err" # dash says so into the same file
    want="crashme: crashed: signal 11 (SIGSEGV, a bad memory access at address 0x0: a NULL pointer) at $TMP/bin/crashme +0x"
    if [ $rc = 139 ] && [ "$(grep -c . "$TMP/err")" = 1 ] && grep -qF "$want" "$TMP/err"; then
        pass "a crash prints one line with the program and its frames, and still ends on signal 11 (exit $rc)"
    else
        fail "crash line (exit $rc, want 139): $(head -c 400 "$TMP/err")"
    fi
    $SYM "$TMP/bin" "$TMP/bin" "$TMP/sub" <"$TMP/err" >"$TMP/named"
    if grep -qF "crashme: crashed: signal 11 (SIGSEGV, a bad memory access at address 0x0: a NULL pointer) in average (lessons/01-x/crashme.c:9) <- main (lessons/01-x/crashme.c:" "$TMP/named"; then
        pass "symbolize names the function and line: $(cut -c1-160 "$TMP/named")"
    else
        fail "symbolize: $(cat "$TMP/named")"
    fi
    # the GPU bundle carries nm, not addr2line: the function without its line
    mkdir -p "$TMP/tools"
    for t in sh awk sed cut grep realpath timeout cat nm; do
        p=$(command -v $t) && ln -s "$p" "$TMP/tools/$t"
    done
    PATH=$TMP/tools $SYM "$TMP/bin" "$TMP/bin" "$TMP/sub" <"$TMP/err" >"$TMP/named-nm"
    if grep -qF "a NULL pointer) in average <- main" "$TMP/named-nm"; then
        pass "without addr2line, nm names the functions: $(sed 's/.* in average/in average/' "$TMP/named-nm")"
    else
        fail "nm fallback: $(cat "$TMP/named-nm")"
    fi
    # the run's text is untrusted: only a regular file inside PROGS is read, whatever the line names
    line=$(cat "$TMP/err")
    mkdir -p "$TMP/outside"
    cp "$TMP/bin/crashme" "$TMP/outside/crashme"
    ln -s "$TMP/outside/crashme" "$TMP/bin/link"
    {
        printf '%s\n' "$line" | sed "s| at $TMP/bin/crashme | at $TMP/outside/crashme |"
        printf '%s\n' "$line" | sed "s| at $TMP/bin/crashme | at $TMP/bin/link |"
        printf '%s\n' "$line" | sed "s| at $TMP/bin/crashme | at $TMP/bin/../outside/crashme |"
        printf '%s\n' "$line" | sed "s| at $TMP/bin/crashme | at $TMP/bin/\$(touch $TMP/pwned) |"
    } >"$TMP/forged"
    $SYM "$TMP/bin" "$TMP/bin" "$TMP/sub" <"$TMP/forged" >"$TMP/forged.out"
    if cmp -s "$TMP/forged" "$TMP/forged.out" && [ ! -e "$TMP/pwned" ]; then
        pass "a crash line naming a program outside the build, a link out of it, ../ or a command is left as printed"
    else
        fail "symbolize read or ran what a line named: $(diff "$TMP/forged" "$TMP/forged.out" | head -n 4)"
    fi
fi

# Several ranks' copies of a line, and Open MPI's banners, as check() shows them
cat >"$TMP/ranks.txt" <<'EOF'
FAIL: the run of your code stopped before producing this (zero_step bytes received)
FAIL: rank 1 sent 3 bytes to rank 0
FAIL: the run of your code stopped before producing this (zero_step bytes received)
FAIL: rank 0 sent 3 bytes to rank 0
FAIL: rank 2 sent 3 bytes to rank 0
FAIL: rank 2 sent 4 bytes to rank 0
FAIL: the run of your code stopped before producing this (zero_step bytes received)
--------------------------------------------------------------------------
Primary job  terminated normally, but 1 process returned
a non-zero exit code. Per user-direction, the job has been aborted.
--------------------------------------------------------------------------
--------------------------------------------------------------------------
mpirun detected that one or more processes exited with non-zero status, thus causing
the job to be terminated. The first process to do so was:

  Process name: [[22268,1],0]
  Exit code:    1
--------------------------------------------------------------------------
t: rank 1 crashed: signal 11 (SIGSEGV) in f (lessons/08-fsdp/zero_step.c:29) <- main
t: rank 0 crashed: signal 11 (SIGSEGV) in f (lessons/08-fsdp/zero_step.c:29) <- main
--------------------------------------------------------------------------
mpirun noticed that process rank 1 with PID 0 on node vm exited on signal 11 (Segmentation fault).
--------------------------------------------------------------------------
[vm:4242] 1 more process has sent help message help-mpi-api.txt / mpi-abort
--------------------------------------------------------------------------
There are not enough slots available in the system to satisfy the 9 slots
--------------------------------------------------------------------------
[the run ended: exit 139]
EOF
cat >"$TMP/ranks.want" <<'EOF'
FAIL: the run of your code stopped before producing this (zero_step bytes received) (3 ranks)
FAIL: ranks 0-2 sent 3 bytes to rank 0
FAIL: rank 2 sent 4 bytes to rank 0
t: ranks 0, 1 crashed: signal 11 (SIGSEGV) in f (lessons/08-fsdp/zero_step.c:29)
    called from main
rank 1 ended on signal 11 (Segmentation fault)
--------------------------------------------------------------------------
There are not enough slots available in the system to satisfy the 9 slots
--------------------------------------------------------------------------
[the run ended: exit 139]
EOF
awk -f grading/tidy.awk "$TMP/ranks.txt" >"$TMP/ranks.got"
if cmp -s "$TMP/ranks.want" "$TMP/ranks.got"; then
    pass "tidy: a line from 3 ranks once, ranks named where the lines name them, Open MPI's end-of-job banners gone, a failed launch's kept"
else
    fail "tidy: $(diff "$TMP/ranks.want" "$TMP/ranks.got" | head -n 12)"
fi

# The whole way, in the grader: lesson 08's zero_step writing through stage 2's NULL full gradients
# (the seeded bug 08/zero-stage2-own-loop) on 3 ranks
mkdir -p "$TMP/zero"
cp -R solutions/. "$TMP/zero/"
if patch -s -p1 -d "$TMP/zero/08-fsdp" <tests/bugs/08/zero-stage2-own-loop.patch; then
    grading/grade 08 --submission "$TMP/zero" --only zero --format json --out "$TMP/zero.json" >"$TMP/g" 2>&1
    fails=$(grep -c 'FAIL: the run of your code stopped before producing this' "$TMP/g")
    if [ -n "${SANITIZE:-}" ]; then
        echo "SKIP the crash in zero_step by name: under $SANITIZE the sanitizer's report names it"
    elif grep -qF 'crashed: signal 11 (SIGSEGV, a bad memory access at address 0x0: a NULL pointer) in zero_step (lessons/08-fsdp/zero_step.c:' "$TMP/g"; then
        pass "a crash in zero_step is reported by name: $(grep -F 'in zero_step' "$TMP/g" | sed 's/^ *| *//' | cut -c1-150)"
    else
        fail "the crash in zero_step is not named: $(grep -A12 'zero:' "$TMP/g" | head -n 14)"
    fi
    if [ "$fails" = 1 ] && grep -q 'stopped before producing this.*(3 ranks)$' "$TMP/g"; then
        pass "the 3 ranks' identical FAIL line is shown once, with (3 ranks)"
    else
        fail "the 3 ranks' FAIL line appears $fails times: $(grep -F 'stopped before' "$TMP/g" | head -n 3)"
    fi
    if grep -Eq 'Primary job|mpirun detected|Process name:|-{20}' "$TMP/g" "$TMP/zero.json"; then
        fail "Open MPI's banners reach the student: $(grep -hE 'Primary job|mpirun detected|-{20}' "$TMP/g" "$TMP/zero.json" | head -n 3)"
    elif build/grading/report --validate "$TMP/zero.json" >/dev/null; then
        pass "no Open MPI banner in the text or the JSON report (valid)"
    else
        fail "the JSON report is not valid: $(build/grading/report --validate "$TMP/zero.json" 2>&1 | head -c 300)"
    fi
else
    fail "tests/bugs/08/zero-stage2-own-loop.patch no longer applies to solutions/08-fsdp"
fi
