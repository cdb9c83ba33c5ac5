# Seeded bugs whose message comes from a program of the course, not from a grader check: a patch of
# the catalogue (tests/bugs/NN/) applied to a copy of the reference, its lesson built as a submission
# tree (its student files only: the given ones are the build's), and the program run as a student
# runs it.
#   - lesson 04's bench_allreduce with an all-gather that adds (04/gather-adds): FAILED must say which
#     algorithm was wrong, from which size, and which ranks' values (it once printed FAILED alone);
#   - the given ring_pipelined with chunks that start past the buffer (04/ceil-chunks-past-end): its
#     chunk_range line (the grader runs the plain ring only);
#   - lesson 05's train_ddp with a last bucket never closed (05/unclosed-last-bucket) under a cap
#     that closes the others: ddp_init's bucket_of line (the graded caps make no bucket at all);
#   - lesson 06's train_accum synchronising every micro-batch (06/sync-every-micro-step): the given
#     ddp_launch's line on 1, 2 and 3 buckets (it used to write past its log: an MPI error or a
#     crash on 2 ranks, and silence with one bucket).
. "$(dirname "$0")/lib.sh"
if grep -q '^HAVE_MPI := 0' "$BUILD/config.mk" 2>/dev/null; then
    echo "SKIP seeded_programs: built without MPI (make deps, then make)"
    exit 0
fi
export DP_TIMEOUT_S=20

# build_patched NN PATCH PROGRAM: the reference's lesson NN with PATCH applied, built into
# TMP/NN-build; prints the program's path, or a reason on stdout and returns 1.
build_patched() {
    d=$(cd solutions && ls -d "$1"-*)
    rm -rf "$TMP/$1-sub" "$TMP/$1-build"
    mkdir -p "$TMP/$1-sub"
    cp -R "solutions/$d" "$TMP/$1-sub/"
    if ! patch -s -p1 -d "$TMP/$1-sub/$d" <"$2" >"$TMP/patch.log" 2>&1; then
        echo "$2 does not apply to solutions/$d: $(head -n 2 "$TMP/patch.log" | tr '\n' ' ')"
        return 1
    fi
    if ! make -s O="${O:-build}" SANITIZE="${SANITIZE:-}" SUB="$TMP/$1-sub" SUB_O="$TMP/$1-build" \
        "$TMP/$1-build/$d/$3" >"$TMP/make.log" 2>&1; then
        echo "$d with $(basename "$2") did not build: $(tail -n 3 "$TMP/make.log" | tr '\n' ' ')"
        return 1
    fi
    echo "$TMP/$1-build/$d/$3"
}

# ---- bench_allreduce: the cause of FAILED ------------------------------------------------------
BENCH_ARGS="--begin 64 --end 4K --algos ring,tree --warmup 0 --iters 1"
# shellcheck disable=SC2086
timeout -k 5 120 "$MPIRUN" -np 3 "$BUILD/solutions/04-ring-allreduce/bench_allreduce" $BENCH_ARGS >"$TMP/ref.out" 2>&1
rc=$?
if [ $rc = 0 ] && grep -q '^# out of bounds values : 0 OK$' "$TMP/ref.out"; then
    pass "bench_allreduce on the reference: OK, exit 0"
else
    fail "bench_allreduce on the reference: exit $rc: $(tail -n 3 "$TMP/ref.out" | tr '\n' ' ')"
fi
if BENCH=$(build_patched 04 tests/bugs/04/gather-adds.patch bench_allreduce); then
    # shellcheck disable=SC2086
    timeout -k 5 120 "$MPIRUN" -np 3 "$BENCH" $BENCH_ARGS >"$TMP/bug.out" 2>&1
    rc=$?
    summary=$(grep '^# out of bounds values' "$TMP/bug.out")
    row=$(grep -m1 '^# ring at [0-9]* B ([0-9]* elements) wrong on [1-3] of 3 ranks: rank [0-2]: [0-9]* wrong in elements [0-9]*\.\.[0-9]*, element [0-9]* is .*, expected ' "$TMP/bug.out")
    if [ $rc = 1 ] && [ -n "$row" ] &&
        printf '%s\n' "$summary" | grep -q ' FAILED — wrong: ring (from [0-9]* B)$'; then
        pass "bench_allreduce with an all-gather that adds: exit 1, '$summary', '$row'"
    else
        fail "bench_allreduce with an all-gather that adds: exit $rc (want 1), a FAILED line naming ring alone and a line naming the wrong ranks: $(grep '^#' "$TMP/bug.out" | tail -n 3 | tr '\n' ' ')"
    fi
else
    fail "bench_allreduce with an all-gather that adds: $BENCH"
fi

# ---- the given ring_pipelined: a chunk_range past the buffer ------------------------------------
# ceil chunks clamped at the end: with count 1 on 3 ranks chunk 2 starts at 2, its length 1 − 2
# wrapped; the given ring_pipelined checks the student's chunk_range before indexing with it.
if BENCH=$(build_patched 04 tests/bugs/04/ceil-chunks-past-end.patch bench_allreduce); then
    timeout -k 5 120 "$MPIRUN" -np 3 "$BENCH" --begin 4 --end 4 --algos ring-pipe >"$TMP/pipe.out" 2>&1
    rc=$?
    line=$(grep -m1 'chunk_range(1, 3, 2) gave offset 2, length [0-9]*: past the buffer.s 1 elements' "$TMP/pipe.out")
    if [ $rc != 0 ] && [ -n "$line" ]; then
        pass "bench_allreduce's ring-pipe with chunks that start past the end: exit $rc, $line"
    else
        fail "bench_allreduce's ring-pipe with chunks that start past the end: exit $rc, want the chunk_range line: $(tail -n 3 "$TMP/pipe.out" | tr '\n' ' ')"
    fi
else
    fail "bench_allreduce's ring-pipe with chunks that start past the end: $BENCH"
fi

# ---- train_ddp whose last bucket is never closed: ddp_init's line on bucket_of --------------------
# --bucket-cap-mb 0.005 closes two buckets of the tiny model (1947, 2080 floats) and leaves its
# first tensor (216 floats) in a third that is never made (the graded caps make none at all: the
# catalogue's 05/unclosed-last-bucket).
if DDP=$(build_patched 05 tests/bugs/05/unclosed-last-bucket.patch train_ddp); then
    # shellcheck disable=SC2086
    timeout -k 5 120 "$MPIRUN" -np 2 "$DDP" $QUICK --steps 1 --bucket-cap-mb 0.005 >/dev/null 2>"$TMP/ddp.err"
    rc=$?
    line=$(grep -m1 'ddp_assign_buckets: bucket_of\[0\] is 2, but the buckets are 0\.\.1' "$TMP/ddp.err")
    if [ $rc != 0 ] && [ -n "$line" ]; then
        pass "train_ddp whose last bucket is never closed, 2 of 3 buckets made: exit $rc, $line"
    else
        fail "train_ddp whose last bucket is never closed: exit $rc, want ddp_init's bucket_of line: $(head -c 300 "$TMP/ddp.err")"
    fi
else
    fail "train_ddp whose last bucket is never closed: $DDP"
fi

# ---- train_accum syncing every micro-batch: ddp_launch's line on 1, 2 and 3 buckets --------------
# --bucket-cap-mb 1, 0.01, 0.005 make 1, 2 and 3 buckets of the tiny model's 7 tensors (4243 floats:
# 4243, 4027 + 216, 1947 + 2080 + 216).
if ACCUM=$(build_patched 06 tests/bugs/06/sync-every-micro-step.patch train_accum); then
    for cap in 1:1 0.01:2 0.005:3; do
        nb=${cap#*:}
        # shellcheck disable=SC2086
        timeout -k 5 120 "$MPIRUN" -np 2 "$ACCUM" $QUICK --steps 2 --accum-steps 3 --bucket-cap-mb "${cap%:*}" \
            >"$TMP/accum.out" 2>"$TMP/accum.err"
        rc=$?
        line=$(grep -m1 'ddp_launch: ' "$TMP/accum.err")
        if [ $rc != 0 ] && printf '%s\n' "$line" | grep -q "launched again in the same optimizer step .*require_backward_grad_sync left on for a micro-batch" &&
            ! grep -qiE 'MPI_ERR|segmentation|signal|backtrace|sanitizer' "$TMP/accum.err"; then
            pass "train_accum syncing every micro-batch, $nb bucket(s), 2 ranks: exit $rc, $line"
        else
            fail "train_accum syncing every micro-batch, $nb bucket(s), 2 ranks: exit $rc, stderr: $(head -c 400 "$TMP/accum.err")"
        fi
    done
    # the bucket counts are the ones named above (the reference, same flags)
    for cap in 1:1 0.01:2 0.005:3; do
        # shellcheck disable=SC2086
        "$BUILD/solutions/06-accum/train_accum" $QUICK --steps 1 --accum-steps 3 --bucket-cap-mb "${cap%:*}" \
            --ddp-log "$TMP/ref.json" >/dev/null 2>&1
        n=$(sed -n 's/^ *"nbuckets": \([0-9]*\),$/\1/p' "$TMP/ref.json")
        [ "$n" = "${cap#*:}" ] || fail "--bucket-cap-mb ${cap%:*} makes $n buckets of the tiny model, not ${cap#*:}: update the caps above"
    done
else
    fail "train_accum syncing every micro-batch: $ACCUM"
fi
