#!/usr/bin/env bash
# Oracle inference, cube-oracle (the path `solve` uses: the compiled network
# for f32, burn with bf16 products) against PyTorch on the same network and
# machine, at beam-sized batches, f32 against f32 and bf16 products against
# PyTorch's bf16 autocast, alternating ROUNDS times. MATMULS="f32" skips bf16.
#
#   PYTHON=/path/to/python-with-torch bash benches/inference_vs_pytorch.sh [RUN] [ROUNDS]
#
# Prints the CPU, every measurement, and per batch and precision the median
# states/s of each framework and their ratio (burn / PyTorch).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
RUN=${1:-runs/cube3-q-long}
ROUNDS=${2:-3}
BATCHES=${BATCHES:-1024,4096,16384,65536}
SECONDS_EACH=${SECONDS_EACH:-3}
grep -m1 'model name' /proc/cpuinfo
grep -m1 -E '^cpu family' /proc/cpuinfo; grep -m1 -E '^model\s' /proc/cpuinfo
echo "flags: $(grep -m1 flags /proc/cpuinfo | tr ' ' '\n' | grep -E '^(avx2|avx512f|avx512_bf16|amx_bf16|amx_tile)$' | tr '\n' ' ')"
echo "run: $RUN; threads: ${CUBE_ORACLE_THREADS:-2}; $("$PYTHON" -c 'import torch; print("torch", torch.__version__)')"
cargo bench --bench inference --no-run >/dev/null 2>&1
out=$(mktemp)
for r in $(seq "$ROUNDS"); do
  for m in ${MATMULS:-f32 bf16}; do
    p=f32; [ "$m" = bf16 ] && p=bf16-amp
    cargo bench --bench inference -- --run "$RUN" --matmul "$m" --batches "$BATCHES" --seconds "$SECONDS_EACH" 2>/dev/null | tail -n +2 >>"$out"
    CUBE_ORACLE_THREADS=${CUBE_ORACLE_THREADS:-2} "$PYTHON" benches/inference_pytorch.py --run "$RUN" --precision "$p" --batches "$BATCHES" --seconds "$SECONDS_EACH" | tail -n +2 >>"$out"
  done
done
echo "framework	matmul	params	batch	states_per_s	gflops"
cat "$out"
python3 - "$out" <<'PY'
import statistics, sys
rows = [l.split("\t") for l in open(sys.argv[1]) if l.strip()]
med = {}
for fw, mm, _, b, rate, _ in rows:
    med.setdefault((mm, int(b), fw.split("/")[0]), []).append(float(rate))
print("\nmatmul\tbatch\tours_states_per_s\tpytorch_states_per_s\tours/pytorch")
for (mm, b) in sorted({(k[0], k[1]) for k in med}):
    bu, pt = statistics.median(med.get((mm, b, "cube-oracle"), [float("nan")])), statistics.median(med.get((mm, b, "pytorch"), [float("nan")]))
    print(f"{mm}\t{b}\t{bu:.0f}\t{pt:.0f}\t{bu / pt:.2f}")
PY
rm -f "$out"
