"""PyTorch twin of benches/inference.rs: the network of a run's config.toml
(built as benches/gpu_throughput.py builds it, in eval mode), forward passes
of beam-sized batches on the CPU, f32, bf16 autocast, or PyTorch's dynamic
int8 quantisation of every linear layer (`quantize_dynamic`, the x86
engine; int8 weights per tensor, activations quantised per batch),
CUBE_ORACLE_THREADS
threads (default 2), results copied back to host memory as
`solve` reads its scores.

    python3 benches/inference_pytorch.py --run runs/cube3-q-long \
        [--precision f32|bf16-amp|int8-dynamic] [--batches 1024,4096,16384,65536] [--seconds 3]
"""
import argparse
import os
import sys
import time
import tomllib
import warnings

import torch

sys.path.insert(0, os.path.dirname(__file__))
from gpu_throughput import macs, network  # noqa: E402

KINDS = {"policy": None, "q-distance": None, "value": 1}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--run", default="runs/cube3-q-long")
    ap.add_argument("--precision", default="f32", choices=["f32", "bf16-amp", "int8-dynamic"])
    ap.add_argument("--batches", default="1024,4096,16384,65536")
    ap.add_argument("--seconds", type=float, default=3.0)
    a = ap.parse_args()
    torch.set_num_threads(int(os.environ.get("CUBE_ORACLE_THREADS", "2")))
    with open(os.path.join(a.run, "config.toml"), "rb") as f:
        cfg = tomllib.load(f)
    puzzle = cfg["puzzle"]["kind"]
    inputs, moves = {"cube3": (324, 12), "cube2": (144, 6)}[puzzle]
    model_cfg = cfg["model"]
    outputs = KINDS.get(model_cfg.get("kind", "policy")) or moves
    net = network(model_cfg, inputs, outputs).eval()
    params = sum(p.numel() for p in net.parameters())
    flops = 2 * macs(model_cfg, inputs, outputs)
    amp = a.precision == "bf16-amp"
    if a.precision == "int8-dynamic":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the API is deprecated, still the one PyTorch ships
            net = torch.ao.quantization.quantize_dynamic(net, {torch.nn.Linear}, dtype=torch.qint8)
    print("framework\tmatmul\tparams\tbatch\tstates_per_s\tgflops")
    for batch in [int(b) for b in a.batches.split(",")]:
        i = torch.arange(batch * inputs)
        x = (((i // 6 * 5 + i // inputs) % 6) == (i % 6)).float().reshape(batch, inputs)
        with torch.inference_mode(), torch.autocast("cpu", dtype=torch.bfloat16, enabled=amp):
            for _ in range(2):
                net(x).float().numpy()
            reps, t = 0, time.perf_counter()
            while reps < 3 or time.perf_counter() - t < a.seconds:
                net(x).float().numpy()
                reps += 1
            rate = reps * batch / (time.perf_counter() - t)
        name = {"f32": "f32", "bf16-amp": "bf16", "int8-dynamic": "int8"}[a.precision]
        print(f"pytorch\t{name}\t{params}\t{batch}\t{rate:.0f}\t{rate * flops / 1e9:.1f}")


if __name__ == "__main__":
    main()
