"""PyTorch twin of benches/gpu_throughput.rs: the same network, optimiser,
batch and precision, read from the same TOML config, on a CUDA GPU or (with
`--device cpu`, f32 or bf16-amp, CUBE_ORACLE_THREADS threads, default 2) the CPU.

    python3 benches/gpu_throughput.py --config configs/cube3-efficientcube.toml \
        [--device cuda|cpu] [--precision f32|tf32|bf16-amp] [--steps 30] [--warmup 5]
    python3 benches/gpu_throughput.py --peak

Network: every hidden layer Linear -> ReLU -> BatchNorm1d, residual blocks of
two such layers plus the identity, a linear head (as src/learn/model.rs). Adam
(eps 1e-8) at the config's learning rate. Each step uploads a host batch of
one-hot cube encodings (54 ones per row) and reads the loss back, as burn's
training step does. Inference: forward passes of 4096 rows read back to the
host. `f32` turns TF32 off (PyTorch's default for matrix products);
`tf32` and `bf16-amp` (autocast) are PyTorch's faster modes, for reference.
`--peak` prints the measured 8192^3 matrix-product rate in f32 (no TF32),
TF32 and bf16.
"""
import argparse
import os
import time
import tomllib

import torch
from torch import nn


class Dense(nn.Module):
    def __init__(self, d_in, d_out, batch_norm):
        super().__init__()
        self.linear = nn.Linear(d_in, d_out)
        self.norm = nn.BatchNorm1d(d_out) if batch_norm else nn.Identity()

    def forward(self, x):
        return self.norm(torch.relu(self.linear(x)))


class Residual(nn.Module):
    def __init__(self, width, batch_norm):
        super().__init__()
        self.first = Dense(width, width, batch_norm)
        self.second = Dense(width, width, batch_norm)

    def forward(self, x):
        return self.second(self.first(x)) + x


def network(model_cfg, inputs, moves):
    batch_norm = model_cfg.get("norm", "batch") == "batch"
    layers, width = [], inputs
    for h in model_cfg["hidden"]:
        layers.append(Dense(width, h, batch_norm))
        width = h
    layers += [Residual(width, batch_norm) for _ in range(model_cfg.get("residual_blocks", 0))]
    layers.append(nn.Linear(width, moves))
    return nn.Sequential(*layers)


def macs(model_cfg, inputs, moves):
    total, width = 0, inputs
    for h in model_cfg["hidden"]:
        total += width * h
        width = h
    return total + model_cfg.get("residual_blocks", 0) * 2 * width * width + width * moves


def one_hot_batch(n, gen):
    colours = torch.randint(0, 6, (n, 54), generator=gen)
    x = torch.zeros(n, 54, 6)
    x.scatter_(2, colours.unsqueeze(2), 1.0)
    return x.reshape(n, 324), torch.randint(0, 12, (n,), generator=gen)


def peak():
    dev = "cuda"
    n = 8192
    out = []
    for name, dtype, tf32 in [("f32", torch.float32, False), ("tf32", torch.float32, True), ("bf16", torch.bfloat16, False)]:
        torch.backends.cuda.matmul.allow_tf32 = tf32
        a = torch.randn(n, n, device=dev, dtype=dtype)
        b = torch.randn(n, n, device=dev, dtype=dtype)
        for _ in range(3):
            a @ b
        torch.cuda.synchronize()
        reps = 10
        t = time.perf_counter()
        for _ in range(reps):
            a @ b
        torch.cuda.synchronize()
        out.append((name, 2 * n**3 * reps / (time.perf_counter() - t) / 1e12))
    torch.backends.cuda.matmul.allow_tf32 = False
    print("gemm_8192\t" + "\t".join(f"{k}={v:.1f}TFLOP/s" for k, v in out))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config")
    ap.add_argument("--precision", default="f32", choices=["f32", "tf32", "bf16-amp"])
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--peak", action="store_true")
    ap.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    a = ap.parse_args()
    if a.peak:
        peak()
        return
    with open(a.config, "rb") as f:
        cfg = tomllib.load(f)
    torch.backends.cuda.matmul.allow_tf32 = a.precision == "tf32"
    torch.backends.cudnn.allow_tf32 = a.precision == "tf32"
    torch.manual_seed(cfg["run"].get("seed", 0))
    inputs, moves = 324, 12 if cfg["puzzle"].get("metric", "qtm") == "qtm" else 18
    batch = cfg["data"]["states_per_step"]
    dev = a.device
    if dev == "cpu":
        if a.precision == "tf32":
            ap.error("--device cpu takes --precision f32 or bf16-amp")
        torch.set_num_threads(int(os.environ.get("CUBE_ORACLE_THREADS", "2")))
    model = network(cfg["model"], inputs, moves).to(dev)
    params = sum(p.numel() for p in model.parameters())
    opt = torch.optim.Adam(model.parameters(), lr=cfg["optim"]["lr"], eps=1e-8)
    loss_fn = nn.CrossEntropyLoss()
    gen = torch.Generator().manual_seed(0)
    host = [one_hot_batch(batch, gen) for _ in range(4)]
    amp = a.precision == "bf16-amp"

    def step(i):
        x, y = host[i % len(host)]
        x, y = x.to(dev), y.to(dev)
        opt.zero_grad(set_to_none=True)
        with torch.autocast(dev, dtype=torch.bfloat16, enabled=amp):
            loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        return loss.item()

    model.train()
    for i in range(a.warmup):
        step(i)
    t = time.perf_counter()
    for i in range(a.steps):
        last = step(i)
    train_rate = a.steps * batch / (time.perf_counter() - t)

    xb, _ = one_hot_batch(4096, gen)
    model.eval()
    with torch.inference_mode(), torch.autocast(dev, dtype=torch.bfloat16, enabled=amp):
        for _ in range(3):
            model(xb.to(dev)).float().cpu()
        m = 20
        t = time.perf_counter()
        for _ in range(m):
            model(xb.to(dev)).float().cpu()
        infer_rate = m * 4096 / (time.perf_counter() - t)
    f = macs(cfg["model"], inputs, moves)
    print("framework\tdevice\tprecision\tconfig\tparams\tbatch\ttrain_samples_per_s\ttrain_tflops\tinfer_states_per_s\tinfer_tflops\tlast_loss")
    print(
        f"pytorch-{torch.__version__}\t{'gpu' if dev == 'cuda' else 'cpu'}\t{a.precision}\t{cfg['run']['name']}\t{params}\t{batch}\t{train_rate:.0f}"
        f"\t{train_rate * 6 * f / 1e12:.2f}\t{infer_rate:.0f}\t{infer_rate * 2 * f / 1e12:.2f}\t{last:.4f}"
    )


if __name__ == "__main__":
    main()
