#!/bin/sh
# site/quiz_wasm.sh WORKDIR OUT.js — grading/quiz's C program (grading/quizzes/*.c) compiled to
# WebAssembly for the site's quiz page, written as OUT.js (the module in base64, so that the page
# works from file:// where a browser will not fetch() a local file).
#
# The quiz links the reference the way build/grading/quiz does, but only what it calls: every
# candidate (common/*.c, the reference solutions, the lessons' given sources, the sampler oracle) that
# compiles for wasm32-wasi goes into an archive, and the linker takes the members the quizzes need.
# One that does not compile (MPI, BLAS, threads) is skipped; if the quiz needed it, the link names the
# missing symbol. The registry of quizzes comes from the qNN.c files present, as in grading/grading.mk.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 2
W=$1 OUTJS=$2
REF=${REF:-solutions}
ls "$REF"/[0-9][0-9]-*/*.c >/dev/null 2>&1 || {
    echo "site: the quizzes compute their answers with the reference solutions and there are none at $REF/: give their folder, REF=dir make site" >&2
    exit 2
}
rm -rf "$W" && mkdir -p "$W/ref" "$W/quiz" || exit 2

CC="clang --target=wasm32-wasi"
# The same floating point as the native build (no contraction, no errno); the numbers must not change
# (-w: the native build already holds this code to -Wall -Wextra -Werror; clang warns about other things)
CFLAGS="-std=c11 -O2 -ffp-contract=off -fno-math-errno -w"
echo 'int main(void) { return 0; }' >"$W/probe.c"
$CC -o "$W/probe.wasm" "$W/probe.c" 2>"$W/probe.log" || {
    echo "site: clang cannot build for wasm32-wasi ($(grep -m1 error "$W/probe.log")); make deps installs lld, wasi-libc and libclang-rt-14-dev-wasm32" >&2
    exit 2
}

lessons=""
for f in grading/quizzes/q[0-9]*.c; do n=$(basename "$f" .c); lessons="$lessons QUIZ_LESSON(${n#q})"; done
printf '#define QUIZ_LESSONS%s\n' "$lessons" >"$W/quiz_lessons.h"
INC="-Isite/wasm -Icommon -Icommon/oracle -Igrading -Igrading/quizzes -I$W"
for d in lessons/[0-9][0-9]-*/; do INC="$INC -I${d%/}"; done

for f in grading/quizzes/*.c; do
    $CC $CFLAGS $INC -c "$f" -o "$W/quiz/$(basename "$f" .c).o" || { echo "site: $f does not compile for WebAssembly (above)" >&2; exit 2; }
done
# candidates: the reference's files, the lessons' given ones (not the student files, not the mains)
for f in common/*.c common/oracle/sampler_oracle.c "$REF"/[0-9][0-9]-*/*.c lessons/[0-9][0-9]-*/*.c; do
    case $f in lessons/*) [ -f "$REF/$(basename "$(dirname "$f")")/$(basename "$f")" ] && continue ;; esac
    grep -q '^int main' "$f" && continue
    o="$W/ref/$(printf '%s' "$f" | tr / _ | sed 's/\.c$/.o/')"
    $CC $CFLAGS $INC -c "$f" -o "$o" 2>>"$W/skipped.log" || echo "skipped $f" >>"$W/skipped.log"
done
llvm-ar rcs "$W/ref.a" "$W"/ref/*.o || exit 2
$CC -O2 -s -o "$W/quiz.wasm" "$W"/quiz/*.o "$W/ref.a" -lm 2>"$W/link.log" || {
    echo "site: the quiz does not link for WebAssembly: $(grep -m1 'undefined symbol' "$W/link.log" || tail -n 1 "$W/link.log") (a file it needs did not compile: $(grep '^skipped' "$W/skipped.log" | cut -d' ' -f2 | tr '\n' ' '))" >&2
    exit 2
}
{
    printf '/* grading/quiz compiled to WebAssembly by site/quiz_wasm.sh (quizzes:%s) */\n' "$(printf '%s' "$lessons" | sed 's/QUIZ_LESSON(\([0-9]*\))/\1/g')"
    printf 'var QUIZ_WASM_BASE64 = "'
    base64 -w0 "$W/quiz.wasm"
    printf '";\n'
} >"$OUTJS"
