#!/bin/sh
# deps.sh — install the Debian/Ubuntu packages this course needs, and only those that are missing.
#
#   common/mk/deps.sh          install what is missing (through sudo when not root), say what it does
#   common/mk/deps.sh --check  only report; exit 1 if something is missing
#
# CUDA and NCCL are optional and are not installed here (see README.md, "GPU notes").
set -u

# package            why
PACKAGES="
build-essential      compiler and make
openmpi-bin          mpirun: multi-rank runs
libopenmpi-dev       mpicc and mpi.h
libcmocka-dev        unit tests
libopenblas-dev      GEMM (CBLAS)
libcjson-dev         checkpoint headers, stats and grader reports
gnuplot-nox          PNG plots
wamerican            the word list the default dataset is built from
fortunes             the fortune-cookie files the GPT's English corpus is built from (make dataset)
patch                applying the seeded-bug catalogue in tests/
bubblewrap           the grader's sandbox for submitted code
clang-format         the course's C style: make format, make format-check (version 14 on Debian 12)
clang                make site: the quizzes compiled to WebAssembly
lld                  make site: wasm-ld
llvm                 make site: llvm-ar
wasi-libc            make site: the C library for WebAssembly
libclang-rt-14-dev-wasm32  make site: the compiler runtime for WebAssembly
chromium-headless-shell    make test-site: the browser the site is tested in
libjs-katex          make site: KaTeX, which draws the formulas (0.16 on Debian 12)
python3-venv         make site: the venv MkDocs is installed into from PyPI (build/mkdocs-venv)
"

check_only=0
[ "${1:-}" = "--check" ] && check_only=1

if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "deps: this is not a Debian/Ubuntu system; install by hand: a C11 compiler, make, Open MPI," \
        "cmocka, OpenBLAS, cJSON, gnuplot, a words list (/usr/share/dict/words) and fortune(6)'s files" \
        "(/usr/share/games/fortunes)" >&2
    exit 1
fi

missing=""
for pkg in $(printf '%s\n' "$PACKAGES" | awk 'NF { print $1 }'); do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
        missing="$missing $pkg"
    fi
done

if [ -z "$missing" ]; then
    echo "deps: all packages present"
    exit 0
fi

echo "deps: missing:$missing"
[ "$check_only" = 1 ] && exit 1

if [ "$(id -u)" = 0 ]; then
    sudo=""
elif command -v sudo >/dev/null 2>&1; then
    sudo="sudo"
else
    echo "deps: not root and no sudo; run as root: apt-get install -y$missing" >&2
    exit 1
fi

echo "deps: running: $sudo apt-get update && $sudo apt-get install -y --no-install-recommends$missing"
export DEBIAN_FRONTEND=noninteractive
# shellcheck disable=SC2086
$sudo apt-get update -qq || { echo "deps: apt-get update failed (network?)" >&2; exit 1; }
# shellcheck disable=SC2086
$sudo apt-get install -y -qq --no-install-recommends $missing ||
    { echo "deps: apt-get install failed for:$missing" >&2; exit 1; }
echo "deps: installed:$missing"
