# Lesson 10's train_noise: measuring the noise scale changes nothing in training (bit-identical to
# lesson 05's train_ddp with and without --noise-scale), its |G_B|² is the squared norm of the
# averaged, unclipped gradient the dump holds, and it refuses one rank.
. "$(dirname "$0")/lib.sh"
EQUIV=$BUILD/grading/equiv
NOISE=$BUILD/solutions/10-limits/train_noise
F="$QUICK --steps 10 --lr 1e-2 --clip 0"
"$MPIRUN" -np 2 "$BUILD/solutions/05-ddp/train_ddp" $F --dump "$TMP/ddp.st" >/dev/null 2>&1 || fail "train_ddp"
"$MPIRUN" -np 2 "$NOISE" $F --dump "$TMP/off.st" >/dev/null 2>&1 || fail "train_noise"
"$MPIRUN" -np 2 "$NOISE" $F --dump "$TMP/on.st" --noise-scale --loss-csv "$TMP/on.csv" --stats "$TMP/on.json" \
    >/dev/null 2>&1 || fail "train_noise --noise-scale"
for run in off on; do
    if "$EQUIV" "$TMP/ddp.st" "$TMP/$run.st" --exact >"$TMP/eq" 2>&1; then
        pass "train_noise ($run) on 2 ranks: bit-identical to train_ddp"
    else
        fail "train_noise ($run) differs from train_ddp: $(grep FAIL "$TMP/eq" | head -n 2 | tr '\n' ' ')"
    fi
done
# step 1's |G_B|² from the CSV against the dumped first-step gradient (no clipping: the same array)
python3 - "$TMP/on.st" "$TMP/on.csv" "$TMP/on.json" <<'PY' && pass "|G_B|² of step 1 is the squared norm of the dumped averaged gradient; --stats has B_simple per step" || fail "|G_B|² against the dump"
import json, struct, sys
raw = open(sys.argv[1], "rb").read()
n = struct.unpack("<Q", raw[:8])[0]
head = json.loads(raw[8:8 + n])
data = raw[8 + n:]
sq = 0.0
for k, v in head.items():
    if k.startswith("grad."):
        a, b = v["data_offsets"]
        vals = struct.unpack("<%df" % ((b - a) // 4), data[a:b])
        sq += sum(x * x for x in vals)
rows = [l.split(",") for l in open(sys.argv[2]).read().split("\n")[1:] if l]
big = float(rows[0][5])
assert abs(big - sq) <= 1e-5 * sq, (big, sq)
st = json.load(open(sys.argv[3]))["noise_scale"]
assert len(st["b_simple"]) == 10 and st["B"] == 16 and st["b"] == 8
PY
expect_error "--noise-scale on one rank" "2 ranks or more" "$NOISE" $F --noise-scale
