#!/usr/bin/env python3
"""gpt_torch.py — the GPT of gpt.h in PyTorch: the same parameters under the same names, for
`make bench`'s speed comparison and for checking our gradients against autograd; and lesson 01's
MLP (model.h), for the same speed comparison.

PyTorch is not a course dependency: nothing in the course imports this file; bench.sh runs it
only when `$PYTHON -c 'import torch'` works.

    python3 gpt_torch.py bench --threads 1 --batch 4 --seq 128    # tokens/s, as bench_gpt
    python3 gpt_torch.py bench --model mlp --mlp "vocab=27 context=16 embed=48 hidden=1024 layers=3" \
        --batch 64 --optim fused                                  # examples/s, as bench_mlp
    python3 gpt_torch.py parity dump.bin                          # dump.bin: bench_gpt --dump

Names and layouts are gpt.h's (and GPT-2's in Hugging Face / nanoGPT): transformer.wte.weight,
transformer.wpe.weight, transformer.h.<i>.ln_1.weight ... transformer.ln_f.bias; Linear weights
are [out, in]; the LM head is tied to wte (lm_head.weight IS transformer.wte.weight, so
named_parameters() lists it once, first, in gpt.h's registration order). GELU is the tanh form,
LayerNorm's eps 1e-5, as gpt_layers.h.

Loading one of our safetensors checkpoints (float32 tensors named as above):

    model = GPT(GPTConfig(vocab=256, context=128, channels=256, heads=8, layers=6))
    load_safetensors(model, "ckpt.safetensors")
"""
import argparse
import json
import math
import statistics
import struct
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class GPTConfig:
    def __init__(self, vocab, context, channels, heads, layers):
        self.vocab, self.context, self.channels, self.heads, self.layers = vocab, context, channels, heads, layers


PRESETS = {
    "gpt-tiny": GPTConfig(27, 8, 16, 2, 2),
    "gpt-small": GPTConfig(256, 128, 256, 8, 6),
}


class MLPLM(nn.Module):
    """model.h's MLP: concatenated embeddings, Linear+tanh layers, a Linear head, mean cross-entropy
    of one target per example. PyTorch's default initialisation, which model_init draws alike."""

    def __init__(self, vocab, context, embed, hidden, layers):
        super().__init__()
        self.wte = nn.Embedding(vocab, embed)
        self.h = nn.ModuleList(nn.Linear(context * embed if i == 0 else hidden, hidden) for i in range(layers))
        self.head = nn.Linear(hidden, vocab)

    def forward(self, ctx, targets):
        x = self.wte(ctx).flatten(1)
        for layer in self.h:
            x = torch.tanh(layer(x))
        logits = self.head(x)
        return logits, F.cross_entropy(logits, targets)


class Attention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.heads = cfg.heads
        self.c_attn = nn.Linear(cfg.channels, 3 * cfg.channels)
        self.c_proj = nn.Linear(cfg.channels, cfg.channels)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.c_attn(x).split(C, dim=2)  # the [q | k | v] column order of gpt_layers.c
        q, k, v = (t.view(B, T, self.heads, C // self.heads).transpose(1, 2) for t in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)  # softmax(q·kᵀ/√hs) causal
        return self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C))


class MLP(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.c_fc = nn.Linear(cfg.channels, 4 * cfg.channels)
        self.c_proj = nn.Linear(4 * cfg.channels, cfg.channels)

    def forward(self, x):
        return self.c_proj(F.gelu(self.c_fc(x), approximate="tanh"))


class Block(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        # attribute order = registration order = gpt.h's (ln_1, attn, ln_2, mlp)
        self.ln_1 = nn.LayerNorm(cfg.channels, eps=1e-5)
        self.attn = Attention(cfg)
        self.ln_2 = nn.LayerNorm(cfg.channels, eps=1e-5)
        self.mlp = MLP(cfg)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.transformer = nn.ModuleDict(
            dict(
                wte=nn.Embedding(cfg.vocab, cfg.channels),
                wpe=nn.Embedding(cfg.context, cfg.channels),
                h=nn.ModuleList(Block(cfg) for _ in range(cfg.layers)),
                ln_f=nn.LayerNorm(cfg.channels, eps=1e-5),
            )
        )
        self.lm_head = nn.Linear(cfg.channels, cfg.vocab, bias=False)
        self.lm_head.weight = self.transformer.wte.weight  # tied, as gpt.h
        # GPT-2's initialisation (gpt_reset_params; the values differ, the distributions do not)
        for name, p in self.named_parameters():
            if name.endswith("ln_1.weight") or name.endswith("ln_2.weight") or name.endswith("ln_f.weight"):
                nn.init.ones_(p)
            elif name.endswith(".bias"):
                nn.init.zeros_(p)
            elif name.endswith("c_proj.weight"):
                nn.init.normal_(p, 0.0, 0.02 / math.sqrt(2 * cfg.layers))
            else:
                nn.init.normal_(p, 0.0, 0.02)

    def forward(self, idx, targets=None):
        B, T = idx.shape
        pos = torch.arange(T, device=idx.device)
        x = self.transformer.wte(idx) + self.transformer.wpe(pos)
        for block in self.transformer.h:
            x = block(x)
        logits = self.lm_head(self.transformer.ln_f(x))
        if targets is None:
            return logits, None
        # gpt.h ignores every negative target; PyTorch's ignore_index takes one value
        loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.reshape(-1).clamp(min=-1), ignore_index=-1)
        return logits, loss


def load_flat(model, flat):
    """Copy a flat float32 tensor in gpt.h's layout order into the parameters."""
    off = 0
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(flat[off : off + p.numel()].view_as(p))
            off += p.numel()
    if off != flat.numel():
        raise ValueError(f"flat array has {flat.numel()} floats, the model {off}")


def load_safetensors(model, path):
    """Load a float32 safetensors file with gpt.h's names (no safetensors package needed)."""
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
        data = f.read()
    params = dict(model.named_parameters())
    with torch.no_grad():
        for name, info in header.items():
            if name == "__metadata__" or name not in params:
                continue
            if info["dtype"] != "F32":
                raise ValueError(f"{path}: {name} is {info['dtype']}, not F32")
            a, b = info["data_offsets"]
            params[name].copy_(torch.frombuffer(bytearray(data[a:b]), dtype=torch.float32).view(info["shape"]))
            del params[name]
    if params:
        raise ValueError(f"{path}: missing {', '.join(params)}")


def bench(args):
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    if args.model == "mlp":
        # the sizes bench_mlp prints ("vocab=27 context=16 ..."), so that the presets have one home
        sizes = args.mlp
        model = MLPLM(**sizes)
        tok = torch.randint(sizes["vocab"], (args.batch, sizes["context"]))
        tgt = torch.randint(sizes["vocab"], (args.batch,))
        name, shape, tokens = "mlp", f"{args.batch}", args.batch  # one predicted token per example
    else:
        cfg = PRESETS[args.model]
        seq = args.seq or cfg.context
        model = GPT(cfg)
        tok = torch.randint(cfg.vocab, (args.batch, seq))
        tgt = torch.randint(cfg.vocab, (args.batch, seq))
        name, shape, tokens = args.model, f"{args.batch}x{seq}", args.batch * seq
    # the same hyperparameters as bench_gpt and bench_mlp; --optim fused: the fused CPU kernel
    # (one pass over all parameters) instead of the default per-parameter loop of tensor ops
    opt = torch.optim.AdamW(
        model.parameters(), lr=3e-4, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.1, fused=args.optim == "fused"
    )
    times = []
    for s in range(-args.warmup, args.steps):
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        _, loss = model(tok, tgt)
        loss.backward()
        if not args.no_optim:
            opt.step()
        if s >= 0:
            times.append(time.perf_counter() - t0)
    step = statistics.median(times)
    work = "forward+backward" if args.no_optim else f"forward+backward+AdamW ({args.optim})"
    print(f"PyTorch {torch.__version__} {name}, batch {shape}, {args.threads} thread(s), {work}: "
          f"median of {args.steps} steps after {args.warmup} warm-up, last loss {loss.item():.4f}")
    print(f"tokens_per_s {tokens / step:.1f}  step_ms {1e3 * step:.2f}")


def parity(args):
    torch.set_num_threads(1)
    with open(args.dump, "rb") as f:
        blob = f.read()
    if blob[:8] != b"GPTDUMP1":
        sys.exit(f"gpt_torch.py: {args.dump} is not a bench_gpt --dump file")
    V, T, C, NH, L, B, Tn = struct.unpack("<7i", blob[8:36])
    (loss_c,) = struct.unpack("<f", blob[36:40])
    off = 40
    ints = torch.frombuffer(bytearray(blob[off : off + 8 * B * Tn]), dtype=torch.int32).long()
    tok, tgt = ints[: B * Tn].view(B, Tn), ints[B * Tn :].view(B, Tn)
    off += 8 * B * Tn
    floats = torch.frombuffer(bytearray(blob[off:]), dtype=torch.float32)
    model = GPT(GPTConfig(V, T, C, NH, L))
    n = sum(p.numel() for p in model.parameters())
    if floats.numel() != 2 * n:
        sys.exit(f"gpt_torch.py: {args.dump} holds {floats.numel()} floats, expected 2 x {n}")
    load_flat(model, floats[:n])
    _, loss = model(tok, tgt)
    loss.backward()
    ok = True
    rel = abs(loss.item() - loss_c) / abs(loss.item())
    print(f"loss: ours {loss_c:.7f}  PyTorch {loss.item():.7f}  relative difference {rel:.2e}")
    ok &= rel <= args.tol
    # each tensor's gradient: the largest difference relative to the tensor's largest gradient
    # (float32 on both sides, summed in different orders: about 1e-6 is expected)
    off, worst = 0, (0.0, "")
    for name, p in model.named_parameters():
        ours = floats[n + off : n + off + p.numel()].view_as(p)
        off += p.numel()
        scale = p.grad.abs().max().item() or 1.0
        d = (ours - p.grad).abs().max().item() / scale
        worst = max(worst, (d, name))
        if d > args.tol:
            print(f"  {name}: max |ours - PyTorch| / max |PyTorch| = {d:.2e} (over {args.tol:g})")
            ok = False
    print(f"gradients: {len(list(model.parameters()))} tensors, worst {worst[1]} at {worst[0]:.2e} of its largest value")
    print("parity: OK" if ok else f"parity: FAILED (tolerance {args.tol:g})")
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("bench", help="tokens/s of one training step")
    b.add_argument("--model", choices=[*PRESETS, "mlp"], default="gpt-small")
    b.add_argument("--mlp", help='--model mlp: its sizes as bench_mlp prints them, "vocab=V context=T embed=E hidden=H layers=L"')
    b.add_argument("--optim", choices=["adamw", "fused"], default="adamw", help="torch's default AdamW, or fused=True")
    b.add_argument("--threads", type=int, default=1)
    b.add_argument("--batch", type=int, default=4)
    b.add_argument("--seq", type=int, default=0, help="0: the preset's block size")
    b.add_argument("--warmup", type=int, default=3)
    b.add_argument("--steps", type=int, default=10)
    b.add_argument("--seed", type=int, default=1)
    b.add_argument("--no-optim", action="store_true")
    p = sub.add_parser("parity", help="loss and gradients against a bench_gpt --dump file")
    p.add_argument("dump")
    p.add_argument("--tol", type=float, default=1e-4)
    args = ap.parse_args()
    if args.cmd == "bench" and (args.model == "mlp") != bool(args.mlp):
        ap.error("--mlp SIZES goes with --model mlp, and --model mlp needs it (bench_mlp prints the sizes)")
    if args.cmd == "bench" and args.mlp:
        want = ["vocab", "context", "embed", "hidden", "layers"]
        try:
            args.mlp = {k: int(v) for k, v in (kv.split("=") for kv in args.mlp.split())}
        except ValueError:
            args.mlp = {}
        if sorted(args.mlp) != sorted(want) or min(args.mlp.values()) < 1:
            ap.error(f"--mlp takes {' '.join(k + '=N' for k in want)}, each N >= 1, as bench_mlp prints them")
    return bench(args) if args.cmd == "bench" else parity(args)


if __name__ == "__main__":
    sys.exit(main())
