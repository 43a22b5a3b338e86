#!/usr/bin/env bash
# Oracle inference, cube-oracle (the path `solve` uses: the compiled network,
# or burn's AMX GEMM for bf16 products on an AMX CPU) against PyTorch on the same
# network and machine, at beam-sized batches, f32 against f32, bf16
# products against PyTorch's bf16 autocast and int8 products against
# PyTorch's dynamic int8 quantisation, alternating ROUNDS times. MATMULS="f32" skips bf16;
# MATMULS="f32 int8" adds the integer products; int8-amx is int8 with the
# integer sums on AMX tiles (CUBE_ORACLE_INT8_KERNEL=amx), against the same
# PyTorch int8 peer.
#
#   PYTHON=/path/to/python-with-torch bash benches/inference_vs_pytorch.sh [RUN] [ROUNDS]
#   BENCH=<built inference bench executable> ...   (a machine without cargo)
#
# Prints the CPU, every measurement, per batch and precision the median
# states/s of each framework and their ratio (ours / PyTorch), and each of
# ours against PyTorch's single best median (any batch; f32 or bf16
# autocast, the target's peer, and then any precision, int8 included).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
RUN=${1:-runs/cube3-q-long}
ROUNDS=${2:-3}
BATCHES=${BATCHES:-1024,4096,16384,65536}
SECONDS_EACH=${SECONDS_EACH:-3}
grep -m1 'model name' /proc/cpuinfo
grep -m1 -E '^cpu family' /proc/cpuinfo; grep -m1 -E '^model\s' /proc/cpuinfo
echo "flags: $(grep -m1 flags /proc/cpuinfo | tr ' ' '\n' | grep -E '^(avx2|fma|avx512f|avx512bw|avx512vl|avx512_vnni|avx512_bf16|avx_vnni|amx_bf16|amx_tile|amx_int8)$' | tr '\n' ' ')"
echo "run: $RUN; threads: ${CUBE_ORACLE_THREADS:-2}; $("$PYTHON" -c 'import torch; print("torch", torch.__version__)')"
if [ -n "${BENCH:-}" ]; then
  bench() { "$BENCH" "$@"; }
else
  cargo bench --bench inference --no-run >/dev/null 2>&1
  bench() { cargo bench --bench inference -- "$@"; }
fi
out=$(mktemp)
for r in $(seq "$ROUNDS"); do
  for m in ${MATMULS:-f32 bf16}; do
    case "$m" in f32) p=f32 ;; bf16) p=bf16-amp ;; int8 | int8-amx) p=int8-dynamic ;; *) echo "MATMULS: f32, bf16, int8 or int8-amx, not '$m'" >&2; exit 2 ;; esac
    unit=vector
    [ "$m" = int8-amx ] && unit=amx
    # The bench names the precision int8 for both units; int8-amx rows are relabelled.
    CUBE_ORACLE_INT8_KERNEL=$unit bench --run "$RUN" --matmul "${m%-amx}" --batches "$BATCHES" --seconds "$SECONDS_EACH" 2>/dev/null \
      | tail -n +2 | awk -v m="$m" 'BEGIN { FS = OFS = "\t" } { $2 = m; print }' >>"$out" \
      || echo "# cube-oracle's $m bench failed (round $r)" >&2
    [ "$m" = int8-amx ] && continue # the PyTorch int8 peer is measured with int8
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
peer = {"f32": "f32", "bf16": "bf16", "int8": "int8", "int8-amx": "int8"}
print("\nmatmul\tbatch\tours_states_per_s\tpytorch_states_per_s\tours/pytorch")
ours = sorted({(k[0], k[1]) for k in med if k[2] == "cube-oracle"})
for (mm, b) in ours:
    bu = statistics.median(med[(mm, b, "cube-oracle")])
    pt = statistics.median(med.get((peer.get(mm, mm), b, "pytorch"), [float("nan")]))
    print(f"{mm}\t{b}\t{bu:.0f}\t{pt:.0f}\t{bu / pt:.2f}")
for label, kinds in (("f32 or bf16 autocast", ("f32", "bf16")), ("any precision", ("f32", "bf16", "int8"))):
    best = max(((statistics.median(v), k[0], k[1]) for k, v in med.items() if k[2] == "pytorch" and k[0] in kinds), default=None)
    if best:
        print(f"\npytorch best, {label}: {best[0]:.0f} states/s ({best[1]}, batch {best[2]})")
        print("matmul\tbatch\tours/pytorch_best")
        for (mm, b) in ours:
            print(f"{mm}\t{b}\t{statistics.median(med[(mm, b, 'cube-oracle')]) / best[0]:.2f}")
PY
rm -f "$out"
