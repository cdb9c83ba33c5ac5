#!/bin/sh
# zero_memory.sh N OUTDIR — the ZeRO paper's memory table, measured: gpt-tiny for 4 steps on N ranks,
# DDP and ZeRO stages 1, 2, 3 (lesson 08), each in float32 and in --mixed-precision bf16, with --stats;
# prints per-rank model state (params + grads + master + optim, common/mem.h: the CPU's float32
# "emulation" buffers are not model state) against its formula, and the peak against the formula
# plus what is in flight (a GPT's unit 0 and its largest block: gathered, and their full gradients).
# Exit 1 if a rank is off: exact when N divides every unit, else within 10% + one unit (padding).
# ZERO_RUNS (default "ddp z1 z2 z3") picks the rows; ZERO_DDP and ZERO_FSDP the programs (default the
# reference's train_ddp and train_fsdp; make demo passes the ones common/mk/lab_build.sh picks).
# Leaves OUTDIR/{ddp,z1,z2,z3}-{fp32,bf16}.{json,st} (stats, dumps). `make demo` and
# tests/sh/zero_bf16.sh run it.
#
# Ψ parameters, N ranks; per element: float32 4 bytes, bf16 2 (+ a float32 master 4); AdamW m, v 8.
#   run   float32                       bf16 (the paper's mixed precision)
#   DDP   4Ψ + 4Ψ + 8Ψ = 16Ψ             2Ψ + 2Ψ + 12Ψ = 16Ψ
#   1     4Ψ + 4Ψ + 8Ψ/N                 2Ψ + 2Ψ + 12Ψ/N
#   2     4Ψ + 4Ψ/N + 8Ψ/N               2Ψ + 2Ψ/N + 12Ψ/N       (+ b·(n_0 + n_max): a unit's full gradient)
#   3     16Ψ/N                          16Ψ/N                  (+ 2b·(n_0 + n_max): gathered + gradient)
# (b: 4 or 2 bytes; the GPT's unit 0 is kept through the step, its tied head opening backward.)
# shellcheck disable=SC2086 # the flag strings split into words on purpose
set -u
N=$1
OUT=$2
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
S=$ROOT/${O:-build}/solutions
mkdir -p "$OUT"
# gpt-tiny's units (gpt.h): wte + wpe = 27·16 + 8·16, a block 12·16² + 13·16, ln_f 2·16
UNITS="560 3280 3280 32"
A="--model gpt-tiny --data $ROOT/datasets/fixtures/tiny-train.tok --val none --steps 4 --batch 4 --lr 1e-2 --log-every 1000"
bad=0
printf '%-5s %-5s %-18s %9s %9s   %-14s %9s %9s\n' run dtype "model state" formula measured "peak: + flight" formula measured
for run in ${ZERO_RUNS:-ddp z1 z2 z3}; do
    for dt in fp32 bf16; do
        mp=none
        [ $dt = bf16 ] && mp=bf16
        if [ $run = ddp ]; then
            set -- "${ZERO_DDP:-$S/05-ddp/train_ddp}"
        else
            set -- "${ZERO_FSDP:-$S/08-fsdp/train_fsdp}" --zero-stage "${run#z}"
        fi
        if ! "$ROOT/grading/mpirun" -np "$N" "$@" $A --mixed-precision $mp --stats "$OUT/$run-$dt.json" \
            --dump "$OUT/$run-$dt.st" >"$OUT/$run-$dt.log" 2>&1; then
            echo "zero_memory: $run $dt on $N ranks failed: $(tail -n 1 "$OUT/$run-$dt.log")"
            bad=1
            continue
        fi
        # every rank's state and peak, one line each: "state peak"
        awk '/"mem_bytes":/ {cur = 1; s = 0; next}
             cur && /}/ {cur = 0; state = s}
             cur && /"(params|grads|optim|master)":/ {gsub(/[^0-9]/, "", $2); s += $2}
             /"mem_peak_model_bytes":/ {gsub(/[^0-9]/, "", $2); print state, $2}' "$OUT/$run-$dt.json" >"$OUT/$run-$dt.mem"
        awk -v run=$run -v dt=$dt -v N="$N" -v units="$UNITS" 'BEGIN {
                U = split(units, u, " "); P = 0; m = 0; pad = 0
                for (i = 1; i <= U; i++) { P += u[i]; if (i > 1 && u[i] > m) m = u[i]; if (u[i] % N) pad = 1 }
                b = dt == "bf16" ? 2 : 4; fl = 0
                if (run == "ddp") { want = 16 * P; f = "16Ψ" }
                else if (run == "z1") { want = 2 * b * P + (16 - 2 * b) * P / N; f = dt == "bf16" ? "4Ψ + 12Ψ/N" : "8Ψ + 8Ψ/N" }
                else if (run == "z2") { want = b * P + (16 - b) * P / N; f = dt == "bf16" ? "2Ψ + 14Ψ/N" : "4Ψ + 12Ψ/N"; fl = b }
                else { want = 16 * P / N; f = "16Ψ/N"; fl = 2 * b }
                pw = want + fl * (u[1] + m); pf = fl ? sprintf("%d(n0+nmax)", fl) : "0"
                tol = pad ? 0.1 * want + 4 * m : 0; ok = 1; ms = 0; mp = 0 }
            { if ($1 - want > tol || want - $1 > tol || $2 - pw > tol || pw - $2 > tol) ok = 0
              if ($1 > ms) ms = $1; if ($2 > mp) mp = $2; r++ }
            END { if (r != N) ok = 0
                  w = 18 + gsub(/Ψ/, "Ψ", f) # printf pads bytes: Ψ is two
                  printf "%-5s %-5s %-" w "s %9d %9d   + %-12s %9d %9d%s\n", run == "ddp" ? "DDP" : "ZeRO" substr(run, 2), dt,
                         f, want, ms, pf, pw, mp, ok ? "" : "  <- OFF"
                  exit !ok }' "$OUT/$run-$dt.mem" || bad=1
    done
done
exit $bad
