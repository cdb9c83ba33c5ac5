# Checkpoints load with the `safetensors` Python package (installed by .ci/run).
. "$(dirname "$0")/lib.sh"
$TRAIN $QUICK --steps 2 --save "$TMP/ck.safetensors" >/dev/null 2>&1 || fail "writing a checkpoint"
if ! python3 -c 'import safetensors.numpy' 2>/dev/null; then
    echo "SKIP python safetensors: the package is not installed (pip install safetensors numpy)"
    exit 0
fi
if python3 - "$TMP/ck.safetensors" >"$TMP/py" 2>&1 <<'PY'; then
import sys
from safetensors import safe_open
from safetensors.numpy import load_file
t = load_file(sys.argv[1])
assert t["wte"].shape == (27, 8) and str(t["wte"].dtype) == "float32", t["wte"].shape
assert t["h.0.weight"].shape == (32, 64)
assert "optim.m.head.bias" in t and "optim.v.wte" in t
with safe_open(sys.argv[1], framework="numpy") as f:
    meta = f.metadata()
assert meta["step"] == "2" and meta["format"] == "dpc-checkpoint-1" and len(meta["crc32"]) == 8, meta
print(len(t), "tensors, metadata", sorted(meta))
PY
    pass "python safetensors loads the checkpoint: $(cat "$TMP/py")"
else
    fail "python safetensors: $(tail -n 3 "$TMP/py")"
fi
