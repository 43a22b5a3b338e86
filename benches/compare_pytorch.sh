#!/usr/bin/env bash
# burn vs PyTorch on the same network, side by side in one run.
#
#   bash benches/compare_pytorch.sh [ROUNDS] [CONFIG]
#
# Needs a Python with torch (PYTHON, default python3; `pip install torch`).
# Runs the burn and PyTorch benchmarks alternately ROUNDS times (default 3)
# and prints every measurement, the medians and the burn/PyTorch ratios.
# Without CONFIG: the fixed 5.6M-parameter network of train_throughput.rs /
# pytorch_throughput.py. With CONFIG (e.g. configs/cube3-reference.toml):
# that config's network, batch and learning rate on the CPU, through
# gpu_throughput.rs (burn's own training step) and gpu_throughput.py;
# MATMUL=bf16 then trains burn with bf16 products (--matmul bf16) against
# PyTorch's CPU autocast to bf16 (--precision bf16-amp).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
ROUNDS=${1:-3}
CONFIG=${2:-}
MATMUL=${MATMUL:-f32}
burn_flags=(); torch_flags=()
if [ "$MATMUL" = bf16 ]; then burn_flags=(--matmul bf16); torch_flags=(--precision bf16-amp); fi
cargo bench --bench train_throughput --no-run >/dev/null 2>&1
out=$(mktemp)
if [ -n "$CONFIG" ]; then
  cargo bench --bench gpu_throughput --no-run >/dev/null 2>&1
  header="framework	device	precision	config	params	batch	train_samples_per_s	train_tflops	infer_states_per_s	infer_tflops	last_loss	peak_gflops"
  cols="7 9"
  for r in $(seq "$ROUNDS"); do
    cargo bench --bench gpu_throughput -- --config "$CONFIG" --device cpu "${burn_flags[@]}" 2>/dev/null | tail -n 1 >>"$out"
    "$PYTHON" benches/gpu_throughput.py --config "$CONFIG" --device cpu "${torch_flags[@]}" | tail -n 1 >>"$out"
  done
else
  header="framework	threads	params	train_samples_per_s	train_gflops	infer_states_per_s	infer_gflops	peak_gflops"
  cols="4 6"
  for r in $(seq "$ROUNDS"); do
    cargo bench --bench train_throughput 2>/dev/null | tail -n 1 >>"$out"
    "$PYTHON" benches/pytorch_throughput.py | tail -n 1 >>"$out"
  done
fi
read -r ctr cinf <<<"$cols"
echo "$header"
peak=$(cargo bench --bench train_throughput -- --peak 2>/dev/null | tail -n 1)
awk -v peak="$peak" '{print $0 "\t" peak}' "$out"
awk -F'\t' -v peak="$peak" -v ctr="$ctr" -v cinf="$cinf" '
  { fw = ($1 ~ /^burn/) ? "burn" : "torch"; n[fw]++; tr[fw, n[fw]] = $ctr; inf[fw, n[fw]] = $cinf }
  function median(a, fw, k,   i, j, t, v) { for (i = 1; i <= k; i++) v[i] = a[fw, i];
    for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
    return (k % 2) ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2 }
  END {
    bt = median(tr, "burn", n["burn"]); pt = median(tr, "torch", n["torch"])
    bi = median(inf, "burn", n["burn"]); pi = median(inf, "torch", n["torch"])
    printf "\nmedian training samples/s: burn %.0f, PyTorch %.0f, ratio burn/PyTorch %.2fx\n", bt, pt, bt / pt
    printf "median inference states/s: burn %.0f, PyTorch %.0f, ratio burn/PyTorch %.2fx\n", bi, pi, bi / pi
    printf "measured peak of this machine: %.1f GFLOP/s (fp32 FMA, all threads)\n", peak
  }' "$out"
rm -f "$out"
