"""PyTorch twin of benches/train_throughput.rs: the same network, optimiser,
batch sizes and thread count, on the CPU, fp32.

Network 324 -> 1024 -> 1024 -> 2 residual blocks of 1024 -> 12 (5.59M
parameters, no normalisation), Adam (eps 1e-8), batch 1024; inference at
batch 4096. Inputs are one-hot cube encodings (54 ones per row), like the
burn side. Threads: CUBE_ORACLE_THREADS (default 2).

    python benches/pytorch_throughput.py
"""
import os
import time

import torch
from torch import nn

THREADS = int(os.environ.get("CUBE_ORACLE_THREADS", "2"))
torch.set_num_threads(THREADS)
torch.manual_seed(0)


class Residual(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.first = nn.Linear(width, width)
        self.second = nn.Linear(width, width)

    def forward(self, x):
        return torch.relu(self.second(torch.relu(self.first(x)))) + x


def network():
    return nn.Sequential(
        nn.Linear(324, 1024), nn.ReLU(),
        nn.Linear(1024, 1024), nn.ReLU(),
        Residual(1024), Residual(1024),
        nn.Linear(1024, 12),
    )


def one_hot_batch(n):
    colours = torch.randint(0, 6, (n, 54))
    x = torch.zeros(n, 54, 6)
    x.scatter_(2, colours.unsqueeze(2), 1.0)
    return x.reshape(n, 324), torch.randint(0, 12, (n,))


def main():
    model = network()
    params = sum(p.numel() for p in model.parameters())
    macs = 324 * 1024 + 1024 * 1024 + 4 * 1024 * 1024 + 1024 * 12
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-8)
    loss_fn = nn.CrossEntropyLoss()
    x, y = one_hot_batch(1024)

    def step():
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        return loss.item()

    for _ in range(3):
        step()
    n = 20
    t = time.perf_counter()
    for _ in range(n):
        step()
    train_rate = n * 1024 / (time.perf_counter() - t)

    xb, _ = one_hot_batch(4096)
    model.eval()
    with torch.inference_mode():
        model(xb)
        m = 10
        t = time.perf_counter()
        for _ in range(m):
            model(xb)
        infer_rate = m * 4096 / (time.perf_counter() - t)
    train_gflops = train_rate * 3 * 2 * macs / 1e9
    infer_gflops = infer_rate * 2 * macs / 1e9
    print("framework\tthreads\tparams\ttrain_samples_per_s\ttrain_gflops\tinfer_states_per_s\tinfer_gflops")
    print(f"pytorch-{torch.__version__}\t{THREADS}\t{params}\t{train_rate:.0f}\t{train_gflops:.1f}\t{infer_rate:.0f}\t{infer_gflops:.1f}")


if __name__ == "__main__":
    main()
