"""PyTorch's best CPU training step on a training config's network: every
setting PyTorch offers for it, measured in one process, the fastest named.

    python3 benches/pytorch_best.py --config configs/cube3-q-long.toml \
        [--settings all|NAME,NAME] [--steps 40] [--warmup 8] [--threads 2]

The network, batch and optimiser are the config's (as src/learn/model.rs
builds them: each hidden layer Linear -> ReLU -> BatchNorm1d, residual
blocks of two such layers plus the identity, a linear head), Adam with
PyTorch's fused CPU update where this PyTorch has it, at the config's
learning rate. The loss is the config's kind: for `q-distance`, squared
error of the undoing move's output against the walk depth and of the walk's
next move's output against depth + 1 (src/learn/objective.rs); for
`policy`, cross-entropy. Batches (one-hot cube encodings, 54 ones among 324
inputs) are generated before timing, so only the step is timed.

Settings (each also under torch.compile, suffix `+compile`):
  f32         eager f32
  f32-bf16mm  f32 with oneDNN's bf16 matrix products
              (torch.backends.mkldnn.matmul.fp32_precision = "bf16"; the
              arithmetic of `[backend] matmul = "bf16"`)
  bf16-amp    eager bf16 autocast
A setting this PyTorch or CPU cannot run is reported as such, not skipped
silently. Prints one TSV row per setting, then a `best` row.
"""
import argparse
import os
import platform
import sys
import time
import tomllib

import torch
from torch import nn

# The network and its multiply-add count, as the GPU benchmark builds them.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpu_throughput import macs, network  # noqa: E402

SETTINGS = ["f32", "f32-bf16mm", "bf16-amp"]


def batches(n, count, moves, gen):
    out = []
    for _ in range(count):
        colours = torch.randint(0, 6, (n, 54), generator=gen)
        x = torch.zeros(n, 54, 6)
        x.scatter_(2, colours.unsqueeze(2), 1.0)
        back = torch.randint(0, moves, (n, 1), generator=gen)
        fwd = torch.randint(0, moves, (n, 1), generator=gen)
        depth = torch.randint(1, 27, (n, 1), generator=gen).float()
        out.append((x.reshape(n, 324), back, fwd, depth))
    return out


def set_bf16_matmul(on):
    """oneDNN's bf16 products for f32 tensors; False where PyTorch lacks the switch."""
    mm = getattr(getattr(torch.backends, "mkldnn", None), "matmul", None)
    if mm is not None and hasattr(mm, "fp32_precision"):
        mm.fp32_precision = "bf16" if on else "ieee"
        return True
    if hasattr(torch.backends.mkldnn, "fp32_precision"):
        torch.backends.mkldnn.fp32_precision = "bf16" if on else "ieee"
        return True
    if on:
        try:
            torch.set_float32_matmul_precision("medium")
            return True
        except Exception:
            return False
    torch.set_float32_matmul_precision("highest")
    return True


def measure(cfg, setting, compiled, steps, warmup, data):
    kind = cfg["model"].get("kind", "policy")
    moves = 12 if cfg["puzzle"].get("metric", "qtm") == "qtm" else 18
    torch.manual_seed(cfg["run"].get("seed", 0))
    model = network(cfg["model"], 324, moves)
    try:
        opt = torch.optim.Adam(model.parameters(), lr=cfg["optim"]["lr"], eps=1e-8, fused=True)
        fused = "fused"
    except (RuntimeError, TypeError):
        opt = torch.optim.Adam(model.parameters(), lr=cfg["optim"]["lr"], eps=1e-8, foreach=True)
        fused = "foreach"
    amp = setting == "bf16-amp"
    if not set_bf16_matmul(setting == "f32-bf16mm"):
        return None, fused, "this PyTorch has no bf16 switch for f32 products"

    def loss_of(x, back, fwd, depth):
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=amp):
            out = model(x)
        out = out.float()
        if kind == "q-distance":
            a = (out.gather(1, back) - depth) ** 2
            b = (out.gather(1, fwd) - (depth + 1.0)) ** 2
            return (a.sum() + b.sum()) / (2 * x.shape[0])
        return nn.functional.cross_entropy(out, back.squeeze(1))

    fn = torch.compile(loss_of) if compiled else loss_of

    def step(i):
        opt.zero_grad(set_to_none=True)
        loss = fn(*data[i % len(data)])
        loss.backward()
        opt.step()
        return loss.item()

    model.train()
    try:
        for i in range(warmup):
            step(i)
    except Exception as e:  # an inductor or oneDNN setting this machine cannot run
        set_bf16_matmul(False)
        return None, fused, f"{type(e).__name__}: {str(e).splitlines()[0][:120]}"
    t = time.perf_counter()
    for i in range(steps):
        last = step(i)
    rate = steps * data[0][0].shape[0] / (time.perf_counter() - t)
    set_bf16_matmul(False)
    return (rate, last), fused, ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", required=True)
    ap.add_argument("--settings", default="all")
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--warmup", type=int, default=8)
    ap.add_argument("--threads", type=int, default=int(os.environ.get("CUBE_ORACLE_THREADS", "2")))
    a = ap.parse_args()
    with open(a.config, "rb") as f:
        cfg = tomllib.load(f)
    torch.set_num_threads(a.threads)
    names = [s + c for s in SETTINGS for c in ("", "+compile")]
    if a.settings != "all":
        wanted = a.settings.split(",")
        unknown = [w for w in wanted if w not in names]
        if unknown:
            ap.error(f"--settings: unknown {', '.join(unknown)} (known: {', '.join(names)})")
        names = wanted
    moves = 12 if cfg["puzzle"].get("metric", "qtm") == "qtm" else 18
    batch = cfg["data"]["states_per_step"]
    data = batches(batch, 4, moves, torch.Generator().manual_seed(0))
    f = macs(cfg["model"], 324, moves)
    params = sum(p.numel() for p in network(cfg["model"], 324, moves).parameters())
    print("framework\tsetting\tadam\tconfig\tparams\tbatch\tthreads\ttrain_samples_per_s\ttrain_gflops\tlast_loss\tnote")
    best = None
    for name in names:
        setting, compiled = name.removesuffix("+compile"), name.endswith("+compile")
        got, fused, note = measure(cfg, setting, compiled, a.steps, a.warmup, data)
        rate, last = got if got else (float("nan"), float("nan"))
        print(
            f"pytorch-{torch.__version__}\t{name}\t{fused}\t{cfg['run']['name']}\t{params}\t{batch}\t{a.threads}"
            f"\t{rate:.0f}\t{rate * 6 * f / 1e9:.1f}\t{last:.4f}\t{note or '-'}",
            flush=True,
        )
        if got and (best is None or rate > best[1]):
            best = (name, rate)
    if best:
        print(f"best\t{best[0]}\t{best[1]:.0f}\t{platform.processor() or platform.machine()}")


if __name__ == "__main__":
    main()
