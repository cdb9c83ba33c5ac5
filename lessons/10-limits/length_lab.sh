#!/bin/sh
# length_lab.sh [OUTDIR] — lesson 10's variable-length examples, measured: gpt-small on 2 ranks with
# the words of the word list as examples (--examples records), three ways: each rank's batch cut to
# its own longest word, every batch padded to the whole context (--pad-to-context), and batches
# grouped by length (--group-by-length 16). From each run's trace: per rank and step the compute
# (forward + backward spans) and the longest word; printed as the median step time, the median
# compute per rank, the mean positions per row (the longest word + 1, or the context), the ranks'
# compute imbalance (slowest over mean, per step, averaged), the share of the slowest rank's compute
# the fastest spends waiting, and words per second. A lab, not a test: the numbers depend on the machine.
# The trainer is your lesson 05's where the lesson is yours (no DP_TODO() left), else the reference's:
# the lab says which (common/mk/lab_build.sh; LAB_STACK=reference|own forces one side). The build is
# ${O:-build}; LAB_STEPS (default 30, as in the other labs) the steps of each run.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${1:-$ROOT/out/lengths}
# each program from your lesson's build where the lesson is yours, else the reference's; says which
# on stderr (common/mk/lab_build.sh; LAB_STACK=reference|own forces one side)
. "$ROOT/common/mk/lab_build.sh"
lab_use DDP 05-ddp train_ddp
DATA=$ROOT/${O:-build}/data/words-train.tok
[ -f "$DATA" ] || DATA=$ROOT/datasets/fixtures/tiny-train.tok
mkdir -p "$OUT"
A="--model gpt-small --data $DATA --val none --steps ${LAB_STEPS:-30} --batch 8 --lr 1e-4 --log-every 1000 --examples records --threads 1"
printf '%-6s %8s %8s %8s %10s %7s %8s\n' mode "step ms" "compute" "length" "imbalance" "wait" "words/s"
for mode in cut pad group; do
    case $mode in
    cut) extra="" ;;
    pad) extra="--pad-to-context" ;;
    group) extra="--group-by-length 16" ;;
    esac
    # shellcheck disable=SC2086
    "$ROOT/grading/mpirun" -np 2 "$DDP" $A $extra --trace "$OUT/$mode.json" >"$OUT/$mode.log" 2>&1 ||
        { echo "length_lab: the $mode run failed: $(tail -n 1 "$OUT/$mode.log")"; exit 1; }
    python3 - "$OUT/$mode.json" "$mode" "$((8 * 2))" <<'PY'
import collections, json, re, statistics, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
comp = collections.defaultdict(list)  # rank -> per-step compute seconds
tn = collections.defaultdict(list)  # rank -> per-step longest example (positions per row)
step_t = collections.defaultdict(list)
cur = {}
for e in sorted((e for e in ev if e.get("ph") == "X"), key=lambda e: (e["pid"], e["ts"])):
    r, name = e["pid"], e["name"]
    if name.startswith("fwd b="):
        comp[r].append(e["dur"])
        tn[r].append(int(re.search(r"t=(\d+)", name).group(1)))
    elif name.startswith("bwd") and comp[r]:
        comp[r][-1] += e["dur"]
    if name == "step":
        step_t[r].append(e["dur"])
ranks = sorted(comp)
n = min(len(comp[r]) for r in ranks)
skip = 3  # warm-up
per = [[comp[r][s] for r in ranks] for s in range(skip, n)]
imb = statistics.mean(max(p) / statistics.mean(p) for p in per)
wait = statistics.mean((max(p) - min(p)) / max(p) for p in per)
steps = [step_t[0][s] for s in range(skip, min(n, len(step_t[0])))]
st = statistics.median(steps) / 1e3 if steps else float("nan")
c = statistics.median(statistics.mean(p) for p in per) / 1e3
length = statistics.mean(statistics.mean(tn[r][s] for r in ranks) for s in range(skip, n))
print(f"{sys.argv[2]:<6} {st:8.1f} {c:8.1f} {length:8.1f} {imb:10.3f} {100 * wait:6.1f}% {int(sys.argv[3]) / (st / 1e3):8.0f}")
PY
done
