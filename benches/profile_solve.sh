#!/usr/bin/env bash
# Where a beam search's time goes: `perf record` (software clock, call
# graphs) of one-thread `solve` runs with the default oracle, grouped into
# network products, the network's element-wise work, memory traffic,
# encoding, child generation, dedup hashing, top-k selection, beam
# bookkeeping and the rest.
#
#   bash benches/profile_solve.sh                 # widths 2^10 (10 cubes), 2^14 (2 cubes), 2^16 (1 cube)
#   WIDTHS="10:deepcubea-10" bash benches/profile_solve.sh
#   MATMUL=int8 bash benches/profile_solve.sh     # with integer products
#
# Needs `perf` (Debian's linux-perf); hardware counters are not needed.
set -euo pipefail
cd "$(dirname "$0")/.."
WIDTHS=${WIDTHS:-"10:deepcubea-10 14:2 16:1"}
RUN=${RUN:-runs/cube3-q-long}
SOLVE=${SOLVE:-target/profiling/solve}
MATMUL=${MATMUL:-f32}
[ -x "$SOLVE" ] || cargo build --profile profiling --bin solve
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tsv=data/cube3-deepcubea-test-1000.tsv
echo "# CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), family $(grep -m1 'cpu family' /proc/cpuinfo | cut -d: -f2 | xargs), model $(grep -m1 -E '^model\s' /proc/cpuinfo | cut -d: -f2 | xargs); one thread (RAYON_NUM_THREADS=1); --matmul $MATMUL"
for spec in $WIDTHS; do
  k=${spec%%:*}
  set=${spec#*:}
  if [[ "$set" =~ ^[0-9]+$ ]]; then
    (head -1 $tsv; sed -n "2,$((set + 1))p" $tsv) > "$work/first-$set.tsv"
    set="$work/first-$set.tsv"
  fi
  echo
  echo "## width 2^$k, $(basename "$set")"
  RAYON_NUM_THREADS=1 perf record -q -e cpu-clock -F 499 -g -o "$work/w$k.data" \
    "$SOLVE" --run "$RUN" --testset "$set" --beam-log2 "$k" --matmul "$MATMUL" --out "$work/out" --label "w$k" 2>&1 | grep -E '^width' || true
  perf report -i "$work/w$k.data" --no-children --sort symbol --stdio 2>/dev/null | awk '
    /^ +[0-9.]+%/ {
      pct = $1; sub("%", "", pct); sym = $0
      if (sym ~ /compiled::int8::.*tile/) c = "network: integer products (int8 tile kernel)"
      else if (sym ~ /compiled::bf16::.*tile/) c = "network: bf16 products (bf16 tile kernel)"
      else if (sym ~ /compiled::bf16::/) c = "network: rounding the input rows to bf16 pairs"
      else if (sym ~ /compiled::int8::.*quantize_row/) c = "network: quantising the input rows of each layer"
      else if (sym ~ /compiled::kernel::.*tile/) c = "network: matrix products (compiled tile kernel)"
      else if (sym ~ /compiled::kernel::.*sparse_row/ || sym ~ /compiled::words::.*sparse_words/) c = "network: first layer (sum of weight rows)"
      else if (sym ~ /compiled::/) c = "network: packing tiles, copying outputs"
      else if (sym ~ /gemm/) c = "network: matrix products (gemm)"
      else if (sym ~ /burn|macerator|zip_apply|unary_op|exp|log_softmax/) c = "network: element-wise (bias, ReLU, batch norm, copies)"
      else if (sym ~ /memmove|memcpy|memset|clear_page/) c = "memory: copies and zeroing"
      else if (sym ~ /encode/) c = "encoding states"
      else if (sym ~ /permute|apply|is_redundant|is_applicable|Turn|turn::/) c = "child generation and pruning"
      else if (sym ~ /[Hh]ash|::key|memcmp/) c = "dedup hashing"
      else if (sym ~ /sort|select_nth|quicksort/) c = "top-k selection"
      else if (sym ~ /beam|ndarray|entropy|boltzmann|softmax/) c = "beam bookkeeping and statistics"
      else if (sym ~ /\[k\]/) c = "kernel (page faults, scheduling)"
      else c = "other"
      total[c] += pct
    }
    END { for (c in total) printf "%6.1f%%  %s\n", total[c], c }' | sort -rn
done
