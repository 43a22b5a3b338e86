#!/usr/bin/env bash
# `train` itself against PyTorch's best setting on the same network, batch
# and machine, alternately in one run.
#
#   bash benches/trainer_vs_pytorch.sh [ROUNDS] [CONFIG ...]
#
# Defaults: 3 rounds; reference v2's recipe (configs/cube3-q-long.toml) and
# the objective study's h320 control (its point's config.toml). Each round
# trains a fresh run of each config for STEPS steps (default 300) in a
# scratch folder with `train --max-steps` and reads the leg's samples/s
# from its summary, then runs benches/pytorch_best.py on the same config
# with every setting (or SETTINGS, comma-separated). Needs a Python with
# torch (PYTHON, default python3). Prints every measurement, the medians
# and the ratio of `train` to PyTorch's best.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
ROUNDS=${1:-3}
shift || true
CONFIGS=("$@")
[ ${#CONFIGS[@]} -gt 0 ] || CONFIGS=(configs/cube3-q-long.toml runs/study-cube3-objective/h320x320-b2-d8e7-s1/config.toml)
STEPS=${STEPS:-300}
SETTINGS=${SETTINGS:-all}
TRAIN=${TRAIN:-$PWD/target/release/train}
[ -x "$TRAIN" ] || cargo build --release --bin train
grep -m1 "model name" /proc/cpuinfo
grep -m1 "^flags" /proc/cpuinfo | tr ' ' '\n' | grep -E '^(avx2|fma|avx512f|avx512_bf16|avx512_fp16|amx_bf16|amx_tile)$' | tr '\n' ' '; echo
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
out=$scratch/rows.tsv
for r in $(seq "$ROUNDS"); do
  for c in "${CONFIGS[@]}"; do
    name=$(basename "$(dirname "$c")")/$(basename "$c")
    rm -rf "$scratch/w" && mkdir -p "$scratch/w"
    rate=$(cd "$scratch/w" && "$TRAIN" --config "$OLDPWD/$c" --max-steps "$STEPS" --no-progress 2>&1 |
      awk '/^speed/ {print $2}')
    printf 'train\t%s\t%s\n' "$name" "$rate" | tee -a "$out"
    "$PYTHON" benches/pytorch_best.py --config "$c" --settings "$SETTINGS" | tee "$scratch/py.tsv" >&2
    awk -v n="$name" '$1 == "best" {printf "pytorch-best\t%s\t%s\t%s\n", n, $3, $2}' "$scratch/py.tsv" | tee -a "$out"
  done
done
echo "== medians (samples/s) and train / PyTorch's best"
"$PYTHON" - "$out" <<'PY'
import sys, statistics, collections
rows = collections.defaultdict(list)
best = collections.defaultdict(list)
for line in open(sys.argv[1]):
    f = line.rstrip("\n").split("\t")
    rows[(f[0], f[1])].append(float(f[2]))
    if f[0] == "pytorch-best":
        best[f[1]].append(f[3])
for c in sorted({k[1] for k in rows}):
    t = statistics.median(rows[("train", c)])
    p = statistics.median(rows[("pytorch-best", c)])
    print(f"{c}\ttrain {t:.0f}\tpytorch-best {p:.0f} ({'/'.join(sorted(set(best[c])))})\tratio {t / p:.2f}")
PY
