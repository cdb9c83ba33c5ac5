#!/bin/sh
# configure.sh OUT_MK — probe what this machine can build, write make variables to OUT_MK.
#
# Every optional part is detected by compiling and linking a tiny program (never by asking a package
# manager), and gets one status line: found / missing, and what a missing part disables.
# Required parts (a C11 compiler, OpenBLAS, cJSON) stop the build with the command that fixes it.
# NO_MPI=1, NO_CUDA=1, NO_NCCL=1 in the environment skip a part on purpose.
set -u
out=$1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dpc-probe.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
CC=${CC:-cc}
missing_required=""

status() { printf '  %-9s %s\n' "$1" "$2"; }

# try_link NAME COMPILER FLAGS... : compile+link $tmp/NAME.c (or .cu), 0 on success.
try_link() {
    name=$1; shift
    comp=$1; shift
    src="$tmp/$name.c"
    [ -f "$tmp/$name.cu" ] && src="$tmp/$name.cu"
    "$comp" "$src" -o "$tmp/$name.out" "$@" >"$tmp/$name.log" 2>&1
}

echo "configure: probing this machine (results cached in $out; 'make clean' re-probes)"

# --- C compiler (required) ----------------------------------------------------------------------
cat >"$tmp/cc.c" <<'EOF'
#include <stdatomic.h>
#include <threads.h>
int main(void) { atomic_int a = 0; return atomic_load(&a); }
EOF
if try_link cc "$CC" -std=c11; then
    status cc "found: $($CC --version | head -n 1)"
else
    status cc "MISSING: no working C11 compiler ($CC) — run 'make deps'"
    missing_required="$missing_required cc"
fi

# --- MPI (optional: without it every program is a world of size 1) -------------------------------
HAVE_MPI=0
MPICC=$CC
if [ "${NO_MPI:-0}" = 1 ]; then
    status mpi "disabled by NO_MPI=1: programs run as a world of size 1, multi-rank tests skip"
else
    cat >"$tmp/mpi.c" <<'EOF'
#include <mpi.h>
int main(int c, char **v) { int p; MPI_Init_thread(&c, &v, MPI_THREAD_MULTIPLE, &p); MPI_Finalize(); return 0; }
EOF
    if command -v mpicc >/dev/null 2>&1 && try_link mpi mpicc -std=c11; then
        HAVE_MPI=1
        MPICC=mpicc
        status mpi "found: $(mpirun --version 2>/dev/null | head -n 1)"
    else
        status mpi "missing: programs run as a world of size 1, multi-rank tests skip ('make deps' installs Open MPI)"
    fi
fi

# --- OpenBLAS (required) ------------------------------------------------------------------------
cat >"$tmp/blas.c" <<'EOF'
#include <cblas.h>
int main(void) {
    float a = 1, b = 2, c = 0;
    openblas_set_num_threads(1);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 1, 1, 1, 1.f, &a, 1, &b, 1, 0.f, &c, 1);
    return c == 2.f ? 0 : 1;
}
EOF
BLAS_CFLAGS=""
BLAS_LIBS="-lopenblas"
if try_link blas "$CC" -std=c11 $BLAS_LIBS; then
    status openblas "found"
else
    status openblas "MISSING: GEMM needs OpenBLAS — run 'make deps' (Debian: libopenblas-dev)"
    missing_required="$missing_required openblas"
fi

# --- cJSON (required: checkpoint headers, stats files, grader reports) ---------------------------
cat >"$tmp/cjson.c" <<'EOF'
#include <cjson/cJSON.h>
int main(void) { cJSON *o = cJSON_CreateObject(); cJSON_Delete(o); return 0; }
EOF
if try_link cjson "$CC" -std=c11 -lcjson; then
    status cjson "found"
else
    status cjson "MISSING: checkpoints and reports need cJSON — run 'make deps' (Debian: libcjson-dev)"
    missing_required="$missing_required cjson"
fi

# --- cmocka (optional: unit tests) --------------------------------------------------------------
HAVE_CMOCKA=0
cat >"$tmp/cmocka.c" <<'EOF'
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
static void t(void **s) { (void)s; assert_true(1); }
int main(void) { const struct CMUnitTest ts[] = {cmocka_unit_test(t)}; return cmocka_run_group_tests(ts, 0, 0); }
EOF
if try_link cmocka "$CC" -std=c11 -lcmocka; then
    HAVE_CMOCKA=1
    status cmocka "found"
else
    status cmocka "missing: 'make test' cannot build the unit tests ('make deps' installs libcmocka-dev)"
fi

# --- CUDA (optional: GPU kernels are compiled and linked whenever nvcc works) --------------------
HAVE_CUDA=0
NVCC=""
CUDA_HOME=""
if [ "${NO_CUDA:-0}" = 1 ]; then
    status cuda "disabled by NO_CUDA=1: CUDA kernels are not built"
else
    NVCC=$(command -v nvcc 2>/dev/null || true)
    [ -z "$NVCC" ] && [ -x /usr/local/cuda/bin/nvcc ] && NVCC=/usr/local/cuda/bin/nvcc
    cat >"$tmp/cuda.cu" <<'EOF'
#include <cuda_runtime.h>
#include <cublas_v2.h>
__global__ void k(float *x) { x[threadIdx.x] = 1.f; }
int main() { int n = 0; cublasHandle_t h; (void)h; (void)cudaGetDeviceCount(&n); (void)k; return 0; }
EOF
    if [ -n "$NVCC" ] && try_link cuda "$NVCC" -lcublas; then
        HAVE_CUDA=1
        CUDA_HOME=$(dirname "$(dirname "$NVCC")")
        status cuda "found: $("$NVCC" --version | tail -n 1) (kernels built; they run only where a GPU is present)"
    else
        NVCC=""
        status cuda "missing: CUDA kernels and GPU tests are not built (install the CUDA Toolkit for them)"
    fi
fi

# --- NCCL (optional: the NCCL backend of the comm seam) -----------------------------------------
HAVE_NCCL=0
if [ "${NO_NCCL:-0}" = 1 ]; then
    status nccl "disabled by NO_NCCL=1: the NCCL backend is not built"
elif [ "$HAVE_CUDA" = 1 ]; then
    cat >"$tmp/nccl.c" <<'EOF'
#include <nccl.h>
int main(void) { int v = 0; return ncclGetVersion(&v) == ncclSuccess ? 0 : 0; }
EOF
    if try_link nccl "$CC" -std=c11 -I"$CUDA_HOME/include" -L"$CUDA_HOME/lib64" -lnccl; then
        HAVE_NCCL=1
        status nccl "found: NCCL header and library (for the GPU path)"
    else
        status nccl "missing: the NCCL backend is not built (install NCCL for it)"
    fi
else
    status nccl "skipped: needs CUDA"
fi

# --- gnuplot (optional tool: PNG plots) ---------------------------------------------------------
HAVE_GNUPLOT=0
if command -v gnuplot >/dev/null 2>&1 && echo 'set terminal pngcairo' | gnuplot >/dev/null 2>&1; then
    HAVE_GNUPLOT=1
    status gnuplot "found"
elif command -v gnuplot >/dev/null 2>&1 && echo 'set terminal png' | gnuplot >/dev/null 2>&1; then
    HAVE_GNUPLOT=1
    status gnuplot "found (png terminal)"
else
    status gnuplot "missing: plots are skipped, their data files are still written ('make deps' installs gnuplot-nox)"
fi

if [ -n "$missing_required" ]; then
    echo "configure: required part(s) missing:$missing_required — run 'make deps' and try again" >&2
    exit 1
fi

mkdir -p "$(dirname "$out")"
cat >"$out" <<EOF
# written by common/mk/configure.sh — do not edit; 'make clean' re-probes
PROBED_FLAGS := ${NO_MPI:-0}${NO_CUDA:-0}${NO_NCCL:-0}
HAVE_MPI := $HAVE_MPI
MPICC := $MPICC
BLAS_CFLAGS := $BLAS_CFLAGS
BLAS_LIBS := $BLAS_LIBS
HAVE_CMOCKA := $HAVE_CMOCKA
HAVE_CUDA := $HAVE_CUDA
NVCC := $NVCC
CUDA_HOME := $CUDA_HOME
HAVE_NCCL := $HAVE_NCCL
HAVE_GNUPLOT := $HAVE_GNUPLOT
EOF
