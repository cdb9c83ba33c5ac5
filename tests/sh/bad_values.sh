# Values that parse but cannot work, refused in one line; multi-rank fatal errors whose last line is
# ours (no Open MPI banner after it); builds and test files that are safe to start concurrently.
. "$(dirname "$0")/lib.sh"
DDP=$ROOT/build/solutions/05-ddp/train_ddp
BENCH=$ROOT/build/solutions/04-ring-allreduce/bench_allreduce
MODEL=$ROOT/build/solutions/09-scaling/scaling_model

# --timeout-s and the --link-* overrides
expect_error "--timeout-s below the minimum" "got '0.01': below 1 s, ranks still starting up" $TRAIN $QUICK --steps 1 --timeout-s 0.01
expect_error "DP_TIMEOUT_S below the minimum" "environment variable DP_TIMEOUT_S expects a number in [1," env DP_TIMEOUT_S=0.2 $TRAIN $QUICK --steps 1
expect_error "DP_TIMEOUT_S not a number, in a program without a command line" "DP_TIMEOUT_S expects a number in [1, 1e+07], got 'soon'" \
    env DP_TIMEOUT_S=soon "$MPIRUN" -x DP_TIMEOUT_S -np 2 "$ROOT/build/solutions/grading/check00" pingpong
expect_error "--link-gbps 0 (was: no bandwidth limit)" "--link-gbps expects a bandwidth above 0 Gbit/s" $TRAIN $QUICK --steps 1 --link-gbps 0
expect_error "--link-gbps negative (was: from the preset)" "got -0.5" $TRAIN $QUICK --steps 1 --link ib --link-gbps -0.5
expect_error "--link-latency-us between -1 and 0" "--link-latency-us expects 0 or more microseconds" $TRAIN $QUICK --steps 1 --link-latency-us -0.5
expect_error "a U64 with a blank before its minus" "--seed expects a non-negative integer" $TRAIN $QUICK --steps 1 --seed " -1"

# bench_allreduce's lists and sizes (refused before any rank starts work)
expect_error "bench_allreduce --algos , (ran nothing, exit 0)" "--algos has an empty name" $BENCH --algos ,
expect_error "bench_allreduce --algos ring,,tree" "--algos has an empty name" $BENCH --algos ring,,tree
expect_error "bench_allreduce --algos ring,ring" "--algos names 'ring' twice" $BENCH --algos ring,ring
expect_error "bench_allreduce --end nan" "--end 'nan' is not a size" $BENCH --end nan
expect_error "bench_allreduce --end 9G" "is more than one call carries" $BENCH --end 9G

# scaling_model --measured: a line it cannot read is named, not skipped
printf '1 100\n# N ms\n\n2 55.5\n' >"$TMP/ok.txt"
if "$MODEL" --measured "$TMP/ok.txt" --max-ranks 2 >"$TMP/out" 2>&1 && grep -q '^ *2 .* 55.500' "$TMP/out"; then
    pass "scaling_model --measured reads 'N ms' lines, blank lines and comments"
else
    fail "scaling_model --measured on a good file: $(head -c 300 "$TMP/out")"
fi
printf '1 100\n2 55.5\nfour 40\n' >"$TMP/bad.txt"
expect_error "scaling_model --measured, a garbage line" "bad.txt:3: want 'N milliseconds'" "$MODEL" --measured "$TMP/bad.txt"
printf '1 100\n2 55.5 ms\n' >"$TMP/bad2.txt"
expect_error "scaling_model --measured, trailing text" "bad2.txt:2: want" "$MODEL" --measured "$TMP/bad2.txt"
printf '2 55.5\n' >"$TMP/no1.txt"
expect_error "scaling_model --measured without N = 1" "no line for N = 1" "$MODEL" --measured "$TMP/no1.txt"
mkfifo "$TMP/fifo.txt"
expect_error "scaling_model --measured FIFO (no hang)" "not a regular file" timeout 20 "$MODEL" --measured "$TMP/fifo.txt"
expect_error "scaling_model --link-gbps 0" "--link-gbps expects a bandwidth above 0" "$MODEL" --link-gbps 0

# A multi-rank fatal error: only our lines on stderr, the last one ours — no Open MPI banner (8-12
# lines of MPI_ABORT, or 9 of "exited with non-zero status") after it — and still a non-zero exit.
expect_only_ours() { # NAME PROG NEEDLE CMD...
    name=$1 prog=$2 needle=$3
    shift 3
    timeout -k 5 120 "$@" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    if [ $rc = 0 ] || [ $rc = 124 ] || [ $rc = 137 ]; then
        fail "$name: exit status $rc"
    elif grep -v "^$prog: " "$TMP/err" | grep -q .; then
        fail "$name: lines not ours on stderr: $(grep -v "^$prog: " "$TMP/err" | head -c 300)"
    elif ! tail -n 1 "$TMP/err" | grep -qF -- "$needle"; then
        fail "$name: the last line lacks '$needle': $(tail -n 1 "$TMP/err")"
    else
        pass "$name: exit $rc, $(grep -c . "$TMP/err") line(s), the last: $(tail -n 1 "$TMP/err" | cut -c1-100)"
    fi
}
expect_only_ours "2 ranks, a bad option (before MPI starts)" train_ddp "--batch expects an integer" "$MPIRUN" -np 2 "$DDP" $QUICK --batch -3
expect_only_ours "3 ranks, a missing checkpoint (after MPI started)" train_ddp "not found" "$MPIRUN" -np 3 "$DDP" $QUICK --steps 1 --resume "$TMP/none.safetensors"
expect_only_ours "2 ranks, a deadlock ended by the watchdog" comm_probe "timeout after 1 s" "$MPIRUN" -np 2 "$ROOT/build/tests/progs/comm_probe" deadlock --timeout-s 1

# test_mpi_comm writes its trace into a directory of its own: the old fixed name, taken by
# something else (another run), no longer matters
mkdir -p "$TMP/own/dpc-trace-test-2.json"
if TMPDIR=$TMP/own DP_TIMEOUT_S=60 timeout -k 5 120 "$MPIRUN" -np 2 "$ROOT/build/tests/test_mpi_comm" >"$TMP/out" 2>&1; then
    pass "test_mpi_comm does not use a fixed temp path"
else
    fail "test_mpi_comm with \$TMPDIR/dpc-trace-test-2.json taken: $(grep -E 'FAILED|ERROR|Failure' "$TMP/out" | head -c 300)"
fi

# grading/grade's reference build: two graders started together never run make at the same time. A
# make on PATH that notes when it runs and then fails stops each grader right after that step.
if ! command -v flock >/dev/null 2>&1; then
    pass "two graders at once: not checked, no flock here (util-linux); grading/grade runs without the lock"
    exit 0
fi
mkdir -p "$TMP/bin"
cat >"$TMP/bin/make" <<EOF
#!/bin/sh
echo "start \$(date +%s.%N)" >>"$TMP/make.log"
sleep 1
echo "end \$(date +%s.%N)" >>"$TMP/make.log"
exit 1
EOF
chmod +x "$TMP/bin/make"
PATH=$TMP/bin:$PATH "$ROOT/grading/grade" 01 --submission solutions >/dev/null 2>&1 &
PATH=$TMP/bin:$PATH "$ROOT/grading/grade" 01 --submission solutions >/dev/null 2>&1 &
wait
if [ "$(grep -c . "$TMP/make.log")" = 4 ] && awk '{ k[NR] = $1 } END { exit !(k[1] == "start" && k[2] == "end" && k[3] == "start" && k[4] == "end") }' "$TMP/make.log"; then
    pass "two graders at once: their reference builds ran one after the other"
else
    fail "two graders at once: their reference builds overlapped: $(tr '\n' ' ' <"$TMP/make.log")"
fi
