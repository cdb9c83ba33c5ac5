#!/bin/sh
# tests/gpu/bundle-selftest.sh — the GPU bundle (make gpu-bundle) works on a machine without the
# course's packages: the part of it that runs without a GPU, run here with this machine's copies
# of what the bundle carries hidden. Prints PASS/FAIL lines (make test runs it: tests/sh/gpu-bundle.sh).
#
#   1. the bundle: build/gpu-bundle.tar.gz, rebuilt when anything it holds is newer; at most 60 MiB
#   2. a sandbox (bubblewrap: a mount namespace, nothing else) where every file of the Debian packages
#      the bundle took libraries from (sys/packages.txt: Open MPI, PMIx, hwloc, libevent, OpenBLAS,
#      libgfortran, cJSON, cmocka, binutils...) is covered by an empty file, /usr/bin/mpirun included
#   3. in it, run.sh with a stand-in for the GPU check (DPC_BUNDLE_FAKE_CHECK): two checks of lesson 01's grader and
#      part of lesson 05's on the CPU (full marks), a 2-rank DDP run through the bundle's mpirun against
#      the 1-rank oracle, and a flood of logs: what run.sh returns keeps to its rules (summary.md and at
#      most 7 logs of at most 16 MiB)
#   4. negative checks: a copy of the bundle without libcjson, and one without Open MPI's ob1
#      component, must fail in the sandbox (so a missing library cannot pass unseen)
#   5. the glibc compat shim: the requirements above the programs' glibc are weak, and a 2-rank run
#      works with the shim preloaded (DPC_BUNDLE_COMPAT=1), as it would be on an older glibc
#   6. run.sh on this machine (no GPU): exit 77 and one line saying so
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 2
O=${O:-build}
BUILD=$ROOT/$O
MAX_MB=60
start=$(date +%s)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/dpc-bundle-selftest.XXXXXX") || exit 2
trap 'rm -rf "$TMP"' EXIT
# the grader's sandbox uid (as root) must traverse down to the unpacked course
chmod 711 "$TMP"
failed=0
pass() { echo "PASS gpu-bundle: $1"; }
fail() {
    echo "FAIL gpu-bundle: $1"
    failed=$((failed + 1))
}
finish() {
    echo "gpu-bundle selftest took $(($(date +%s) - start)) s"
    [ "$failed" = 0 ]
    exit $?
}

if ! command -v bwrap >/dev/null 2>&1 || ! bwrap --dev-bind / / true 2>/dev/null; then
    fail "bubblewrap is missing or cannot run here: the selftest hides this machine's libraries with it; run 'make deps'"
    finish
fi
if ! grep -q '^HAVE_CUDA := 1' "$BUILD/config.mk" 2>/dev/null || ! grep -q '^HAVE_MPI := 1' "$BUILD/config.mk"; then
    pass "skipped: $O was built without CUDA or MPI (the bundle carries prebuilt CUDA code and Open MPI)"
    finish
fi

# ---- 1. the bundle ---------------------------------------------------------------------------------
TGZ=$BUILD/gpu-bundle.tar.gz
newer=""
[ -f "$TGZ" ] && newer=$(find "$BUILD" common grading lessons solutions datasets tests Makefile -newer "$TGZ" -type f \
    ! -path "$BUILD/gpu-bundle/*" ! -name '*.d' ! -name '*.json' ! -name '*.lock' 2>/dev/null | head -n 1)
if [ ! -f "$TGZ" ] || [ -n "$newer" ]; then
    if ! sh tests/gpu/bundle.sh "$BUILD/gpu-bundle" >"$TMP/bundle.out" 2>&1; then
        fail "make gpu-bundle failed: $(tail -n 1 "$TMP/bundle.out")"
        finish
    fi
fi
kb=$(du -k "$TGZ" | cut -f1)
mkdir -p "$TMP/u" && tar xzf "$TGZ" -C "$TMP/u" || {
    fail "$TGZ does not unpack"
    finish
}
U=$TMP/u/gpu-bundle
ukb=$(du -sk "$U" | cut -f1)
if [ "$kb" -le $((MAX_MB * 1024)) ]; then
    pass "the bundle is $((kb / 1024)) MiB compressed (at most $MAX_MB), $((ukb / 1024)) MiB unpacked"
else
    fail "the bundle is $((kb / 1024)) MiB compressed, over $MAX_MB MiB: the device tool would not carry it"
fi

# ---- 2. the sandbox without this machine's packages --------------------------------------------
: >"$TMP/empty"
chmod 444 "$TMP/empty"
[ -s "$U/sys/packages.txt" ] || fail "the bundle lists no packages (sys/packages.txt): nothing to hide"
# every file of those packages, links resolved (a bind cannot cover a link), documentation aside
while read -r pkg; do dpkg-query -L "$pkg" 2>/dev/null; done <"$U/sys/packages.txt" |
    grep -vE '^/usr/share/(doc|man|info|lintian|bug)/|^/usr/include/' | while read -r f; do
    [ -d "$f" ] && continue
    r=$(readlink -f "$f")
    [ -f "$r" ] && echo "$r"
done | sort -u >"$TMP/hidden"
for f in /usr/bin/mpirun /usr/bin/mpiexec /usr/bin/orterun /usr/bin/prterun; do
    [ -e "$f" ] && readlink -f "$f"
done >>"$TMP/hidden"
sort -u -o "$TMP/hidden" "$TMP/hidden"
# bwrap reads the hundreds of binds from a file (--args: NUL-separated)
awk -v e="$TMP/empty" '{ printf "--ro-bind%c%s%c%s%c", 0, e, 0, $0, 0 }' "$TMP/hidden" >"$TMP/bwrap-args"
sandboxed() { # CMD...: with every hidden file covered by an empty one
    bwrap --dev-bind / / --args 3 -- "$@" 3<"$TMP/bwrap-args"
}
if sandboxed sh -c "'$BUILD/solutions/01-trainer/train' --help" >/dev/null 2>&1 || sandboxed sh -c 'mpirun --version' >/dev/null 2>&1; then
    fail "hiding this machine's packages did not work: the trainer or mpirun still runs in the sandbox without the bundle"
else
    pass "in the sandbox this machine's copies are hidden ($(wc -l <"$TMP/hidden") files of $(wc -l <"$U/sys/packages.txt") packages): neither the trainer nor mpirun runs there without the bundle"
fi

# ---- 3. the bundle's CPU part through run.sh -----------------------------------------------------
F="--preset tiny --data $U/datasets/fixtures/tiny-train.tok --val none --steps 4 --lr 1e-2 --seed 3 --clip 0"
cat >"$TMP/cpu-check.sh" <<EOF
# the selftest's stand-in for tests/gpu/check.sh, run by run.sh (its environment: the bundle's)
W=\$1
mkdir -p "\$W"
cd "$U" || exit 2
r() { name=\$1 log=\$2; shift 2; "\$@" >"\$W/\$log" 2>&1; echo "| \$name | \$? |" >>"\$W/summary.md"; }
echo '| check | exit |' >"\$W/summary.md"
r mpirun which.log sh -c 'readlink -f "\$(command -v mpirun)"'
r grade01 grade01.log grading/grade 01 --submission solutions --only linear_backward,train
r grade05 grade05.log grading/grade 05 --submission solutions --only launch,ranks2
d=\$(mktemp -d)
r ddp2 ddp.log sh -c "cd \$d && build/solutions/01-trainer/train $F --device cpu --batch 16 --dump ref.st && DP_TIMEOUT_S=60 grading/mpirun -np 2 build/solutions/05-ddp/train_ddp $F --batch 8 --dump sub.st && build/grading/equiv ref.st sub.st --world 2"
rm -rf "\$d"
# more logs than run.sh may return, one of them 20 MB
head -c 20000000 /dev/zero | tr '\\0' x >"\$W/flood.log"
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do echo "log \$i" >"\$W/extra\$i.log"; done
EOF
# the ddp line runs in a scratch dir: its programs are named from the bundle's root
sed -i "s|build/solutions/|$U/build/solutions/|g; s|grading/mpirun|$U/grading/mpirun|; s|build/grading/equiv|$U/build/grading/equiv|" "$TMP/cpu-check.sh"
sandboxed env DPC_BUNDLE_FAKE_CHECK="$TMP/cpu-check.sh" DPC_BUNDLE_LIMIT_S=300 sh "$U/run.sh" "$TMP/out" >"$TMP/run.out" 2>&1
rc=$?
res() { sed -n "s/^| $1 | \([0-9]*\) |\$/\1/p" "$TMP/out/summary.md" 2>/dev/null; }
score() { grep -h "^Score:" "$TMP/out/grade.log" 2>/dev/null | sed -n "${1}p"; }
if [ $rc = 0 ] && grep -q "$U/sys/bin/" "$TMP/out/other.log" 2>/dev/null; then
    pass "run.sh sets the bundle up in the sandbox: mpirun is the bundle's ($(grep -o "$U/sys/bin/[a-z]*" "$TMP/out/other.log" | head -n 1 | sed "s|$TMP|TMP|"))"
else
    fail "run.sh with the stand-in check: exit $rc (want 0) or mpirun not the bundle's: $(tail -n 3 "$TMP/run.out" | tr '\n' ' ' | cut -c1-300)"
fi
# full marks whatever the total (the GPU-only check counts only where a GPU ran it)
if [ "$(res grade01)" = 0 ] && score 1 | grep -Eq '^Score: ([0-9]+)/\1$'; then
    pass "lesson 01 graded on the CPU from the bundle: full marks on linear_backward and train ($(score 1))"
else
    fail "lesson 01 from the bundle: exit $(res grade01), $(score 1): $(grep -E 'FAIL|grade:' "$TMP/out/grade.log" | head -n 3 | tr '\n' ' ' | cut -c1-300)"
fi
if [ "$(res grade05)" = 0 ] && score 2 | grep -Eq '^Score: ([0-9]+)/\1$'; then
    pass "lesson 05 (launch, 2 ranks) graded on the CPU from the bundle's Open MPI: full marks ($(score 2))"
else
    fail "lesson 05 from the bundle: exit $(res grade05), $(score 2): $(grep -E 'FAIL|grade:' "$TMP/out/grade.log" | tail -n 3 | tr '\n' ' ' | cut -c1-300)"
fi
if [ "$(res ddp2)" = 0 ]; then
    pass "a 2-rank DDP run through the bundle's mpirun equals the 1-rank CPU oracle"
else
    fail "the 2-rank DDP run through the bundle's mpirun: exit $(res ddp2): $(grep -v '^=====' "$TMP/out/other.log" | tail -n 3 | tr '\n' ' ' | cut -c1-300)"
fi
# what run.sh returns: summary.md, at most 7 logs directly in OUTDIR, none over 16 MiB, the flood cut
nlogs=$(find "$TMP/out" -type f -name '*.log' | wc -l)
others=$(find "$TMP/out" -mindepth 1 ! -name '*.log' ! -name summary.md | head -n 3 | tr '\n' ' ')
big=$(find "$TMP/out" -type f -size +16384k | head -n 3 | tr '\n' ' ')
if [ -s "$TMP/out/summary.md" ] && [ "$nlogs" -le 7 ] && [ -z "$others" ] && [ -z "$big" ] &&
    grep -aq 'cut: [0-9]* bytes in all' "$TMP/out/other.log" 2>/dev/null; then
    pass "run.sh's output keeps to its rules: summary.md and $nlogs logs (at most 7), none over 16 MiB (a 20 MB log cut), nothing else"
else
    fail "run.sh's output: $nlogs logs (at most 7), other entries: '${others}', over 16 MiB: '${big}', summary.md $([ -s "$TMP/out/summary.md" ] && echo present || echo missing)"
fi

# ---- 4. a bundle missing a library must fail -----------------------------------------------------
cat >"$TMP/ddp-only.sh" <<EOF
mkdir -p "\$1" && cd "\$1" && DP_TIMEOUT_S=30 "$TMP/v/gpu-bundle/grading/mpirun" -np 2 "$TMP/v/gpu-bundle/build/solutions/05-ddp/train_ddp" $F --batch 8 >ddp.log 2>&1
EOF
variant() { # FILE-IN-THE-BUNDLE: a copy without it, run in the sandbox; prints run.sh's exit status
    rm -rf "$TMP/v" "$TMP/vout"
    mkdir -p "$TMP/v" && cp -al "$U" "$TMP/v/gpu-bundle" && rm -f "$TMP/v/gpu-bundle/$1"
    sandboxed env DPC_BUNDLE_FAKE_CHECK="$TMP/ddp-only.sh" DPC_BUNDLE_LIMIT_S=120 sh "$TMP/v/gpu-bundle/run.sh" "$TMP/vout" >"$TMP/vrun.out" 2>&1
    echo $?
}
rc=$(variant sys/lib/libcjson.so.1)
if [ "$rc" != 0 ] && grep -q 'libcjson.so.1' "$TMP/vrun.out"; then
    pass "the selftest notices a missing library: without sys/lib/libcjson.so.1 run.sh stops ($(grep -m 1 'libcjson' "$TMP/vrun.out" | cut -c1-120))"
else
    fail "a bundle without libcjson.so.1 still ran in the sandbox (exit $rc): this machine's copy is not hidden, so a missing library would pass unseen"
fi
rc=$(variant sys/lib/openmpi/mca_pml_ob1.so)
if [ "$rc" != 0 ]; then
    pass "the selftest notices a missing Open MPI component: without mca_pml_ob1.so the 2-rank run fails (exit $rc)"
else
    fail "a bundle without Open MPI's mca_pml_ob1.so still ran 2 ranks: its components are read from elsewhere than the bundle"
fi

# ---- 5. the glibc compat shim: the weakened requirements and a run with it preloaded -----------------
floor=$(sed -n 's/^glibc_needed: //p' "$U/MANIFEST")
weak=$(sed -n 's/^glibc_compat: \([0-9.]*\) .*weak requirements in: \(.*\))$/\2/p' "$U/MANIFEST")
strict=""
for l in $weak; do
    v=$("$BUILD/tests/progs/elf_glibc" needs "$U/sys/lib/$l")
    [ "$v" = "$floor" ] || [ "$(printf '%s\n%s\n' "$v" "$floor" | sort -t. -k1,1n -k2,2n | tail -n 1)" = "$floor" ] || strict="$strict $l($v)"
done
rm -rf "$TMP/v" "$TMP/vout"
mkdir -p "$TMP/v" && cp -al "$U" "$TMP/v/gpu-bundle"
sandboxed env DPC_BUNDLE_COMPAT=1 DPC_BUNDLE_FAKE_CHECK="$TMP/ddp-only.sh" DPC_BUNDLE_LIMIT_S=120 sh "$TMP/v/gpu-bundle/run.sh" "$TMP/vout" >"$TMP/vrun.out" 2>&1
rc=$?
if [ -z "$strict" ] && [ $rc = 0 ] && grep -q 'preloading' "$TMP/vout/run.log"; then
    pass "glibc: the bundle needs $floor (the newer requirements of ${weak:-no library} are weak), and the 2-rank run works with the compat shim preloaded, as on an older glibc"
else
    fail "glibc compat: still strict above $floor:${strict:- none}; the 2-rank run with the shim preloaded: exit $rc: $(tail -n 2 "$TMP/vrun.out" | tr '\n' ' ' | cut -c1-200)"
fi

# ---- 6. no GPU: exit 77 with one line ------------------------------------------------------------
if ls /dev/nvidia[0-9]* >/dev/null 2>&1; then
    pass "skipped the no-GPU check: this machine has a GPU"
else
    sh "$U/run.sh" "$TMP/nogpu" >"$TMP/nogpu.out" 2>"$TMP/nogpu.err"
    rc=$?
    if [ $rc = 77 ] && [ "$(grep -c . "$TMP/nogpu.err")" = 1 ] && grep -q 'no GPU here' "$TMP/nogpu.err" &&
        grep -q 'no GPU here' "$TMP/nogpu/summary.md"; then
        pass "run.sh without a GPU exits 77 with one line: $(cat "$TMP/nogpu.err")"
    else
        fail "run.sh without a GPU: exit $rc (want 77), stderr: $(head -c 300 "$TMP/nogpu.err")"
    fi
fi
finish
