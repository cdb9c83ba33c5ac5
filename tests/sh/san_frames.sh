# tests/bugs/san-frames.sh, which make test-bugs-sanitize trusts to tell given code's sanitizer
# reports from the student's: on reports written as ASan and UBSan write them (frames with relative
# paths for the course's files, absolute ones for the staged submission), it must blame given code
# past the interceptors, leave the student's own reports alone, and say the frame.
. "$(dirname "$0")/lib.sh"
S=tests/bugs/san-frames.sh

# case NAME WANT(0|1) GREP: a kept grading dir holding the report on stdin
case_() {
    d=$TMP/kept-$1
    mkdir -p "$d/j/k3"
    cat >"$d/j/k3/run.out"
    out=$(sh "$S" "$d")
    rc=$?
    if [ "$rc" != "$2" ]; then
        fail "san-frames $1: exit $rc, expected $2: $out"
    elif [ -n "$3" ] && ! printf '%s\n' "$out" | grep -qF -- "$3"; then
        fail "san-frames $1: the line does not say \"$3\": $out"
    else
        pass "san-frames $1"
    fi
}

case_ given-past-interceptor 1 "top frame: ops_copy common/ops_cpu.c:345" <<'EOF'
==13==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602000000fd0 at pc 0x7f READ of size 64
    #0 0x7f3c in __interceptor_memmove ../../../../src/libsanitizer/sanitizer_common/sanitizer_common_interceptors.inc:810
    #1 0x55d1 in ops_copy common/ops_cpu.c:345
    #2 0x55d2 in fsdp_gather /tmp/dpc-grade.AbC/sub/08-fsdp/fsdp_shard.c:30
EOF
case_ student-own 0 "" <<'EOF'
==14==ERROR: AddressSanitizer: SEGV on unknown address 0x000000000000
    #0 0x5591 in linear_backward /tmp/dpc-grade.AbC/sub/01-trainer/linear.c:40
    #1 0x5592 in model_backward lessons/01-trainer/model.c:380
EOF
case_ earlier-lesson-reference 1 "xent_forward solutions/01-trainer/xent.c:29" <<'EOF'
==14==ERROR: AddressSanitizer: SEGV on unknown address 0x619e7d878600 (pc 0x5591dc5afe5c T0)
    #0 0x5591dc5afe5c in xent_forward solutions/01-trainer/xent.c:29
    #1 0x5591dc58d3e2 in model_forward lessons/01-trainer/model.c:351
    #2 0x5591dc57c2df in accum_train_step /tmp/dpc-grade.GSwMQg/sub/06-accum/accum_step.c:40
EOF
case_ ubsan-given 1 "lessons/05-ddp/ddp.c:97:21" <<'EOF'
lessons/05-ddp/ddp.c:97:21: runtime error: index 7 out of bounds for type 'int [7]'
    #0 0x55 in ddp_launch lessons/05-ddp/ddp.c:97
EOF
case_ ubsan-student 0 "" <<'EOF'
/tmp/dpc-grade.X/sub/04-ring-allreduce/ring.c:22:5: runtime error: signed integer overflow
EOF
case_ frameless-beside-placed 0 "" <<'EOF'
==13==ERROR: AddressSanitizer: SEGV on unknown address 0x619ed0050600 (pc 0x55cdbbba2e5c T0)
==14==ERROR: AddressSanitizer: SEGV on unknown address 0x619e7d878600 (pc 0x5591dc5afe5c T0)
    #0 0x5591 in reduce_add_cpu /tmp/dpc-grade.X/sub/03-naive-allreduce/reduce.c:12
EOF
case_ frameless-alone 1 "none in the course's files" <<'EOF'
==13==ERROR: AddressSanitizer: SEGV on unknown address 0x619ed0050600 (pc 0x55cdbbba2e5c T0)
    #0 0x7fba in __libc_start_call_main ../sysdeps/nptl/libc_start_call_main.h:58
EOF
