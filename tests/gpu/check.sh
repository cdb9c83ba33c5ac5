#!/bin/sh
# tests/gpu/check.sh OUTDIR — everything that needs a GPU, in one run (about 5 minutes on one GPU).
#
#   1. build        make (every CUDA target) and the tests
#   2. kernels      build/tests/test_gpu: every CUDA kernel against its CPU reference, fresh random
#                   inputs, outputs poisoned before each run
#   3. nccl         DDP with --comm nccl: 1 rank (a real NCCL communicator) and 2 ranks sharing the GPU;
#                   lesson 11's --allreduce hier on 2x2 over MPI and NCCL (ncclCommSplit)
#                   (the host-staged fallback), both against the CPU oracle
#   3b. gpt         the GPT on the GPU (gpt_kernels.cu): gpt-tiny, 8 steps in one process and with DDP
#                   on 2 ranks sharing the GPU, each against the CPU oracle (one CPU process on the
#                   global batch, widened by the spread of lesson 06's accumulation, as tests/sh/gpt_train.sh)
#   3c. mixed prec. --mixed-precision bf16/fp16 on the GPU (real 16-bit GEMMs, float32 accumulation):
#                   gpt-tiny and the MLP against the CPU's emulation, DDP on 2 ranks, an fp16 inf
#                   skipping its step, the memory books (tests/gpu/mixed_precision.sh: the bounds)
#   4. benchmarks   reduce_add bandwidth against a device-to-device copy (same run); trainer step time
#                   GPU against CPU; bus bandwidth of the ring with device buffers against the CPU one
#   5. graders      lessons 01 to 08 and 11 graded with DP_DEVICE=cuda: every rank on the GPU (ranks share
#                   it, device buffers staged through the host by MPI), each run against the CPU oracle;
#                   the GPU-only checks (01 device: the GPU twins of solutions/01-trainer/kernels.cu and
#                   device_step.c; 03 reduce_kernel) must have run, not been SKIPPED; and lesson 01's
#                   skeleton (lessons/) must fail the device check (its kernels are empty)
#   6. sanitizer    compute-sanitizer memcheck and racecheck over test_gpu, memcheck over 3 training steps
#                   of the MLP, 3 of gpt-tiny and 3 of gpt-tiny in bf16
# In this order: the benchmarks on a machine no grader loads, the slowest steps last, where a time
# limit (DPC_GPU_DEADLINE, below) cuts them.
#
# Writes OUTDIR/summary.md (the table), OUTDIR/*.log (every step's output) and prints the table.
# Needs what `make` needs (Open MPI, OpenBLAS, cJSON, cmocka, CUDA, NCCL): on a GPU machine without a
# package registry they must be brought along; the build step lists what is missing.
# DPC_PREBUILT=1: build nothing, use the build/ that is there (the bundle of make gpu-bundle, whose
# run.sh sets it: the GPU machine lacks the packages to build); step 1 then only checks it is complete.
# DPC_GPU_DEADLINE=epoch seconds: every step's limit is cut to what is left before it, and a step
# with nothing left is SKIP (out of time), so that the summary stays whole under an outer time limit.
# Exit status: 0 when every check passed, 1 otherwise, 77 when there is no GPU at all.
set -u
OUT=${1:?usage: tests/gpu/check.sh OUTDIR}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 2
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
SUM="$OUT/summary.md"
status=0
start=$(date +%s)
J=$(nproc 2>/dev/null || echo 4)

row() { # CHECK RESULT DETAIL
    printf '| %s | %s | %s |\n' "$1" "$2" "$3" >>"$SUM"
    [ "$2" = FAIL ] && status=1
    printf '%-28s %-5s %s\n' "$1" "$2" "$3"
}
# step NAME LOG LIMIT_S CMD...: run, record PASS/FAIL and the last line of its output
step() {
    name=$1 log="$OUT/$2" limit=$3
    shift 3
    if [ -n "${DPC_GPU_DEADLINE:-}" ]; then
        left=$((DPC_GPU_DEADLINE - $(date +%s)))
        if [ "$left" -lt 5 ]; then
            row "$name" SKIP "out of time (DPC_GPU_DEADLINE): not run"
            status=1 # a check that did not run has not passed
            return 1
        fi
        [ "$left" -lt "$limit" ] && limit=$left
    fi
    t0=$(date +%s)
    timeout -k 10 "$limit" "$@" >"$log" 2>&1
    rc=$?
    took=$(($(date +%s) - t0))
    last=$(grep -v '^\s*$' "$log" | tail -n 1 | cut -c1-110)
    if [ $rc = 0 ]; then row "$name" PASS "${took}s: $last"; else row "$name" FAIL "exit $rc after ${took}s: $last"; fi
    return $rc
}

{
    echo "# GPU check, $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo
    echo "GPU: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null | head -n 1)"
    echo "CUDA: $(nvcc --version 2>/dev/null | tail -n 1)"
    echo
    echo "| check | result | detail |"
    echo "|---|---|---|"
} >"$SUM"

# 1. build (or, prebuilt, the programs every later step runs)
if [ "${DPC_PREBUILT:-0}" = 1 ]; then
    step "prebuilt build/ complete" build.log 10 sh -c 'for f in build/tests/test_gpu build/solutions/01-trainer/train \
        build/solutions/05-ddp/train_ddp build/solutions/06-accum/train_accum \
        build/solutions/04-ring-allreduce/bench_allreduce build/grading/equiv \
        build/grading/supervise build/grading/report build/lessons/01-trainer/train build/data/words-train.tok; do
        [ -f "$f" ] || { echo "$f is missing: the bundle is incomplete (make gpu-bundle)"; exit 1; }; done
        echo "DPC_PREBUILT=1: nothing built, build/ as bundled"' || {
        cat "$SUM"
        exit 1
    }
else
    step "build (make, make test-build)" build.log 300 sh -c "make -j$J && make -j$J test-build" || {
        # a bare GPU image may lack the course's packages: configure's status lines say which
        grep -iE 'missing' "$OUT/build.log" | sed 's/^/    /' | tee -a "$SUM"
        cat "$SUM"
        exit 1
    }
fi
if ! build/tests/test_gpu --probe; then
    echo "no GPU visible: nothing to check here (everything else is tested by make test)" | tee -a "$SUM"
    exit 77
fi

# 2. kernels against the CPU
step "kernels vs CPU (test_gpu)" test_gpu.log 120 build/tests/test_gpu
grep -E 'seed|FAILED|Failure' "$OUT/test_gpu.log" | head -n 5 | sed 's/^/    /'

# 3. NCCL: DDP against the CPU oracle, one rank with NCCL, two ranks sharing the GPU (fallback)
for n in 1 2; do
    d=$(mktemp -d)
    step "DDP --comm nccl, $n rank(s)" "nccl$n.log" 180 sh -c "cd $d && \
        F='--preset tiny --data $ROOT/datasets/fixtures/tiny-train.tok --val none --steps 8 --lr 1e-2 --seed 3 --clip 0' && \
        $ROOT/build/solutions/01-trainer/train \$F --device cpu --batch $((8 * n)) --dump ref.st >ref.log 2>&1 && \
        DP_TIMEOUT_S=60 $ROOT/grading/mpirun -np $n $ROOT/build/solutions/05-ddp/train_ddp \$F --device cuda --comm nccl \
            --batch 8 --dump sub.st && $ROOT/build/grading/equiv ref.st sub.st --world $n"
    rm -rf "$d"
done

# 3b. the GPT on the GPU against the CPU oracle: one process, then DDP on 2 ranks (gradient-ready
# hooks in backward order on GPU buffers)
d=$(mktemp -d)
step "gpt-tiny on the GPU vs CPU" gpt-cuda.log 240 sh -c "cd $d && \
    F='--model gpt-tiny --data $ROOT/datasets/fixtures/tiny-train.tok --val none --steps 8 --lr 1e-2 --seed 3 --log-every 1000' && \
    $ROOT/build/solutions/01-trainer/train \$F --device cpu --batch 8 --dump ref.st >ref.log 2>&1 && \
    $ROOT/build/solutions/06-accum/train_accum \$F --device cpu --batch 8 --accum-steps 2 --dump spread2.st >>ref.log 2>&1 && \
    $ROOT/build/solutions/06-accum/train_accum \$F --device cpu --batch 8 --accum-steps 4 --dump spread4.st >>ref.log 2>&1 && \
    S='--lr 1e-2 --spread spread2.st --spread spread4.st' && \
    $ROOT/build/solutions/01-trainer/train \$F --device cuda --batch 8 --dump sub1.st && \
    $ROOT/build/grading/equiv ref.st sub1.st --batch 8 --world 1 \$S && \
    DP_TIMEOUT_S=60 $ROOT/grading/mpirun -np 2 $ROOT/build/solutions/05-ddp/train_ddp \$F --device cuda --batch 4 \
        --dump sub2.st && $ROOT/build/grading/equiv ref.st sub2.st --batch 4 --world 2 \$S"
rm -rf "$d"

# 3d. lesson 11's hierarchical all-reduce on GPU buffers, on 2x2 emulated nodes: through MPI, then
# through NCCL (its sub-communicators are ncclCommSplit's: compiled on every build, run only here)
for c in mpi nccl; do
    d=$(mktemp -d)
    step "DDP --allreduce hier on 2x2, --comm $c" "hier-$c.log" 180 sh -c "cd $d && \
        F='--preset tiny --data $ROOT/datasets/fixtures/tiny-train.tok --val none --steps 8 --lr 1e-2 --seed 3 --clip 0' && \
        $ROOT/build/solutions/01-trainer/train \$F --device cpu --batch 32 --dump ref.st >ref.log 2>&1 && \
        DP_TIMEOUT_S=60 $ROOT/grading/mpirun -np 4 $ROOT/build/solutions/11-topology/train_ddp \$F --device cuda \
            --comm $c --allreduce hier --topology 2x2 --batch 8 --dump sub.st && $ROOT/build/grading/equiv ref.st sub.st --world 4"
    rm -rf "$d"
done

# 3c. mixed precision on the GPU against the CPU's emulation (the bounds: the script's header)
step "mixed precision on the GPU" mixed-precision.log 180 sh tests/gpu/mixed_precision.sh
grep -E '^(PASS|FAIL)' "$OUT/mixed-precision.log" | sed 's/^/    /'

# 4. benchmarks
step "bench: reduce_add vs D2D copy" bench-reduce.log 60 build/tests/test_gpu --bench 256
sed 's/^/    /' "$OUT/bench-reduce.log"
for dev in cpu cuda; do
    step "bench: train step, $dev" "bench-train-$dev.log" 120 build/solutions/01-trainer/train --device $dev --steps 40 \
        --val none --log-every 1000
done
step "bench: train step, cuda bf16" bench-train-cuda-bf16.log 120 build/solutions/01-trainer/train --device cuda \
    --mixed-precision bf16 --steps 40 --val none --log-every 1000
step "bench: ring busbw, device buffers" bench-ring-cuda.log 120 grading/mpirun -np 2 \
    build/solutions/04-ring-allreduce/bench_allreduce --device cuda --begin 1M --end 64M --algos ring,lib
step "bench: ring busbw, host buffers" bench-ring-cpu.log 120 grading/mpirun -np 2 \
    build/solutions/04-ring-allreduce/bench_allreduce --begin 1M --end 64M --algos ring,lib

# 5. the graders on the GPU path (the reference solutions: full marks expected)
for L in 01 02 03 04 05 06 07 08 11; do
    step "grade $L on the GPU" "grade$L.log" 300 env DP_DEVICE=cuda DP_TIMEOUT_S=60 grading/grade "$L" --submission solutions --timeout 240
done
# a GPU-only check that says SKIPPED here would pass unseen (it counts 0 of 0 points)
for L in 01 03; do
    skipped=$(grep -E '^[0-9]+ [a-z_0-9]+: SKIPPED' "$OUT/grade$L.log" 2>/dev/null | head -n 1 | cut -c1-110)
    if [ ! -f "$OUT/grade$L.log" ]; then
        row "grade $L: GPU checks ran" SKIP "lesson $L was not graded"
    elif [ -n "$skipped" ]; then row "grade $L: GPU checks ran" FAIL "$skipped"; else row "grade $L: GPU checks ran" PASS "none SKIPPED"; fi
done
# the skeleton's GPU twins do nothing: the device check must fail them
step "grade 01 skeleton: device fails" grade01-skeleton.log 150 sh -c 'out=$(grading/grade 01 --only device --timeout 100 2>&1); rc=$?
    printf "%s\n" "$out"
    [ $rc = 1 ] && printf "%s\n" "$out" | grep -q "^01 device: FAIL" && echo "the skeleton fails the device check, as it must"'

# 6. compute-sanitizer (part of the CUDA Toolkit; skipped when absent)
CS=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null || true)
if [ -n "$CS" ]; then
    step "memcheck: test_gpu" memcheck.log 150 env DP_TEST_SEED=1 "$CS" --tool memcheck --error-exitcode 9 build/tests/test_gpu
    step "racecheck: test_gpu" racecheck.log 150 env DP_TEST_SEED=1 "$CS" --tool racecheck --error-exitcode 9 build/tests/test_gpu
    step "memcheck: 3 training steps" memcheck-train.log 150 "$CS" --tool memcheck --error-exitcode 9 \
        build/solutions/01-trainer/train --device cuda --preset small --steps 3 --val none
    step "memcheck: 3 gpt-tiny steps" memcheck-gpt.log 150 "$CS" --tool memcheck --error-exitcode 9 \
        build/solutions/01-trainer/train --device cuda --model gpt-tiny --data datasets/fixtures/tiny-train.tok \
        --batch 8 --steps 3 --val none
    step "memcheck: 3 gpt-tiny bf16 steps" memcheck-gpt-bf16.log 150 "$CS" --tool memcheck --error-exitcode 9 \
        build/solutions/01-trainer/train --device cuda --model gpt-tiny --data datasets/fixtures/tiny-train.tok \
        --batch 8 --steps 3 --val none --mixed-precision bf16
else
    row "compute-sanitizer" SKIP "not installed"
fi

{
    echo
    echo "## Numbers"
    echo
    echo '```'
    cat "$OUT/bench-reduce.log"
    for dev in cpu cuda; do
        printf 'train (default preset, batch 64), %s: %s\n' "$dev" "$(grep '^mean' "$OUT/bench-train-$dev.log")"
    done
    printf 'train (default preset, batch 64), cuda bf16: %s\n' "$(grep '^mean' "$OUT/bench-train-cuda-bf16.log")"
    echo "bench_allreduce, 2 ranks, 64 MiB (size count type redop algo time_us algbw busbw wrong):"
    for dev in cpu cuda; do
        grep -E '^ +67108864 ' "$OUT/bench-ring-$dev.log" | sed "s/^/  $dev /"
    done
    echo '```'
    echo
    echo "total: $(($(date +%s) - start)) s"
} >>"$SUM"
echo
cat "$SUM"
exit $status
