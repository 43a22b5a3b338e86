"""Loads a network exported by `train export RUN --to DIR` and checks that
it reproduces the crate's outputs on the export's fixed batch.

    python3 benches/exported_check.py DIR            # PyTorch when it is installed, else plain Python
    python3 benches/exported_check.py DIR --plain    # plain Python only (no NumPy, no PyTorch)

It reads DIR/model.json (the card: layer order, residual blocks, batch-norm
epsilon, tensor names), DIR/model.safetensors and DIR/check.safetensors,
rebuilds the network (with PyTorch: torch.nn.Linear and BatchNorm1d in eval
mode, loaded with load_state_dict; in plain Python: the same arithmetic in
loops), runs it on check's inputs and prints the largest absolute
difference from check's outputs. Exit status 1 when it exceeds the card's
tolerance (1e-4).
"""
import json
import math
import struct
import sys


def read_safetensors(path):
    data = open(path, "rb").read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + n])
    body = data[8 + n :]
    out = {}
    for name, spec in header.items():
        if name == "__metadata__":
            continue
        assert spec["dtype"] == "F32", f"{name}: {spec['dtype']}"
        a, b = spec["data_offsets"]
        values = list(struct.unpack(f"<{(b - a) // 4}f", body[a:b]))
        out[name] = (spec["shape"], values)
    return out


def plain_forward(card, tensors, rows):
    eps = card["architecture"]["batch_norm_epsilon"]

    def linear(prefix, x):
        (out_dim, in_dim), w = tensors[prefix + ".weight"]
        _, b = tensors[prefix + ".bias"]
        return [[b[o] + sum(w[o * in_dim + i] * r[i] for i in range(in_dim) if r[i] != 0.0) for o in range(out_dim)] for r in x]

    def dense(prefix, x):
        y = [[max(v, 0.0) for v in r] for r in linear(prefix + ".linear", x)]
        if prefix + ".norm.weight" in tensors:
            g, bt = tensors[prefix + ".norm.weight"][1], tensors[prefix + ".norm.bias"][1]
            m, v = tensors[prefix + ".norm.running_mean"][1], tensors[prefix + ".norm.running_var"][1]
            y = [[(r[c] - m[c]) / math.sqrt(v[c] + eps) * g[c] + bt[c] for c in range(len(r))] for r in y]
        return y

    x = rows
    for i in range(len(card["architecture"]["hidden"])):
        x = dense(f"trunk.{i}", x)
    for i in range(card["architecture"]["residual_blocks"]):
        y = dense(f"blocks.{i}.second", dense(f"blocks.{i}.first", x))
        x = [[a + b for a, b in zip(ra, rb)] for ra, rb in zip(x, y)]
    return linear("head", x)


def torch_forward(card, tensors, rows):
    import torch

    arch = card["architecture"]
    norm = arch["batch_norm_epsilon"] is not None

    class Dense(torch.nn.Module):
        def __init__(self, d_in, d_out):
            super().__init__()
            self.linear = torch.nn.Linear(d_in, d_out)
            self.norm = torch.nn.BatchNorm1d(d_out, eps=arch["batch_norm_epsilon"]) if norm else None

        def forward(self, x):
            x = torch.relu(self.linear(x))
            return self.norm(x) if self.norm is not None else x

    class Block(torch.nn.Module):
        def __init__(self, w):
            super().__init__()
            self.first, self.second = Dense(w, w), Dense(w, w)

        def forward(self, x):
            return x + self.second(self.first(x))

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            dims = [arch["inputs"]] + arch["hidden"]
            self.trunk = torch.nn.ModuleList(Dense(a, b) for a, b in zip(dims, dims[1:]))
            self.blocks = torch.nn.ModuleList(Block(dims[-1]) for _ in range(arch["residual_blocks"]))
            self.head = torch.nn.Linear(dims[-1], arch["outputs"])

        def forward(self, x):
            for layer in self.trunk:
                x = layer(x)
            for block in self.blocks:
                x = block(x)
            return self.head(x)

    net = Net().eval()
    state = {k: torch.tensor(v, dtype=torch.float32).reshape(s) for k, (s, v) in tensors.items()}
    # BatchNorm1d also keeps a batch counter, which inference does not use.
    missing, unexpected = net.load_state_dict(state, strict=False)
    assert not unexpected and all(k.endswith("num_batches_tracked") for k in missing), (missing, unexpected)
    with torch.no_grad():
        return net(torch.tensor(rows, dtype=torch.float32)).tolist()


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 1:
        sys.exit(__doc__)
    folder = args[0]
    card = json.load(open(f"{folder}/model.json"))
    tensors = read_safetensors(f"{folder}/model.safetensors")
    check = read_safetensors(f"{folder}/check.safetensors")
    (n, width), flat = check["inputs"]
    rows = [flat[r * width : (r + 1) * width] for r in range(n)]
    (_, outs), want = check["outputs"]
    engine = "plain Python"
    if "--plain" not in sys.argv:
        try:
            got = torch_forward(card, tensors, rows)
            engine = "PyTorch"
        except ImportError:
            got = plain_forward(card, tensors, rows)
    else:
        got = plain_forward(card, tensors, rows)
    diff = max(abs(g - want[r * outs + o]) for r, row in enumerate(got) for o, g in enumerate(row))
    tol = card["check"]["tolerance"]
    print(f"{card['run']} ({card['kind']}, {card['parameters']} parameters) in {engine}: largest difference {diff:.3g} over {n}x{outs} outputs (tolerance {tol})")
    sys.exit(0 if diff <= tol else 1)


main()
