#!/usr/bin/env bash
# Speed and quality of beam search together, in one command: seconds per
# search and mean solution length of the default oracle (reference v2,
# runs/cube3-q-long) at widths 2^10, 2^14 and 2^16 on the first DeepCubeA
# cubes, one search at a time (--jobs 1) with the machine's threads for the
# network, in f32 and, where asked, with bf16 products. Every solution is
# replayed by `solve` before it is counted.
#
#   bash benches/solve_speed.sh                                   # 2^10 on 10 cubes, 2^14 on 2, 2^16 on 1
#   WIDTHS="10:100" bash benches/solve_speed.sh                   # 2^10 on the first 100 cubes
#   MATMULS="f32 bf16" bash benches/solve_speed.sh                # both precisions
#   MATMULS="int8 int8-amx" bash benches/solve_speed.sh           # int8 on vector instructions and on AMX tiles (the same moves expected)
#   MATMULS="bf16 bf16-avx512" bash benches/solve_speed.sh        # on an AMX CPU: burn's AMX GEMM against vdpbf16ps
#   bash benches/solve_speed.sh > benches/results/solve-speed-<cpu>-<date>.txt
#
# Prints the CPU (model, family, model number and its vector flags) first,
# then one row per width and precision.
set -euo pipefail
cd "$(dirname "$0")/.."
WIDTHS=${WIDTHS:-"10:10 14:2 16:1"}
MATMULS=${MATMULS:-f32}
RUN=${RUN:-runs/cube3-q-long}
SOLVE=${SOLVE:-target/release/solve}
[ -x "$SOLVE" ] || cargo build --release --bin solve
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tsv=data/cube3-deepcubea-test-1000.tsv
flags=$(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -E '^(avx2|fma|avx512f|avx512_bf16|avx512_vnni|avx_vnni|amx_bf16|amx_int8|amx_tile)$' | tr '\n' ' ')
echo "# CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), family $(grep -m1 'cpu family' /proc/cpuinfo | cut -d: -f2 | xargs), model $(grep -m1 -E '^model\s' /proc/cpuinfo | cut -d: -f2 | xargs); flags: $flags; $(nproc) threads"
echo "# run: $RUN; commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
failed=0
echo "width,cubes,matmul,s_per_search,mean_length,solved_pct,optimal_pct,forwards_per_search,forwards_per_s"
for spec in $WIDTHS; do
  k=${spec%%:*}
  n=${spec#*:}
  (head -1 $tsv; sed -n "2,$((n + 1))p" $tsv) > "$work/first-$n.tsv"
  for matmul in $MATMULS; do
    # int8-amx: integer products on AMX tiles (CUBE_ORACLE_INT8_KERNEL=amx);
    # bf16-avx512: bf16 products on vdpbf16ps even where the CPU has AMX
    # (CUBE_ORACLE_BF16_KERNEL=avx512-bf16).
    unit=vector bf16=
    case "$matmul" in
      int8-amx) unit=amx ;;
      bf16-avx512) bf16=avx512-bf16 ;;
    esac
    # A failed row is reported and the others still run; the exit status says so.
    env CUBE_ORACLE_INT8_KERNEL=$unit ${bf16:+CUBE_ORACLE_BF16_KERNEL=$bf16} "$SOLVE" --run "$RUN" --testset "$work/first-$n.tsv" --beam-log2 "$k" --jobs 1 \
      --matmul "${matmul%-*}" --out "$work/out" --label "w$k-$n-$matmul" >/dev/null 2>"$work/err" \
      || { echo "# 2^$k $matmul failed: $(tail -1 "$work/err")"; failed=1; continue; }
    # A solve from before AMX tiles ignores the variable: refuse its figures.
    if [ "$unit" = amx ] && ! grep -q "int8 products on AMX-INT8" "$work/err"; then
      echo "$SOLVE did not run int8 products on AMX tiles (built before them?): rebuild it" >&2
      exit 1
    fi
    python3 - "$work/out/w$k-$n-$matmul/summary.csv" "$k" "$n" "$matmul" <<'EOF'
import csv, sys
path, k, n, matmul = sys.argv[1:]
row = next(csv.DictReader(open(path)))
s = float(row["mean_elapsed_s"])
fw = float(row["mean_forwards"])
print(f"2^{k},{n},{matmul},{s:.3f},{float(row['mean_length']):.2f},{float(row['solved_pct']):.0f},"
      f"{float(row['optimal_pct']):.0f},{fw:.0f},{fw / s:.0f}")
EOF
  done
  # AMX tiles form the same integer sums as the vector instructions, so the
  # same moves are expected on every cube.
  if [ -d "$work/out/w$k-$n-int8" ] && [ -d "$work/out/w$k-$n-int8-amx" ]; then
    python3 - "$work/out/w$k-$n-int8/instances.csv" "$work/out/w$k-$n-int8-amx/instances.csv" "$k" <<'EOF'
import csv, sys
a, b = ([r["solution"] for r in csv.DictReader(open(p))] for p in sys.argv[1:3])
same = sum(x == y for x, y in zip(a, b))
print(f"# 2^{sys.argv[3]}: int8 on AMX tiles found the same moves as int8 on vector instructions for {same} of {len(a)} cubes")
EOF
  fi
done
exit "$failed"
