#!/usr/bin/env bash
# Model-size trade-off study for the cube oracle.
#
# Trains the four sizes of configs/size-study/ on the same 5.2e6 samples,
# then solves the first 100 DeepCubeA cubes with each at beam width 2^10
# (dedup on), and solves the same cubes with the shipped reference oracle
# (size l after 7.5e7 samples). Prints one table row per model: parameters,
# forward MACs per state, training time and rate, final held-out
# cross-entropy, and the solve results.
#
#   bash benches/size-study.sh [sizes...]      # default: xs s m l
#
# Runs go to runs/size-study-<size>/ (replaced if present). Takes about
# 25 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(xs s m l)
cargo build --release --quiet --bin train --bin solve

col() { # col FILE NAME [ROW]: the value of column NAME in data row ROW (default: last)
    awk -F, -v name="$2" -v row="${3:-0}" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next }
        { v[NR - 1] = $c } END { print (row > 0 ? v[row] : v[NR - 1]) }' "$1"
}
json() { grep -o "\"$2\": [0-9.e+-]*" "$1" | head -1 | awk '{ print $2 }'; }

rows=()
report() { # report LABEL RUN_DIR SOLVE_DIR
    local meta="$2/meta.json" s="$3/summary.csv"
    rows+=("$(printf '| %s | %s | %s | %.2e | %.0f | %.0f | %.4f | %.0f | %.2f | %.0f | %.3f | %.0f |' \
        "$1" "$(json "$meta" parameters)" "$(json "$meta" forward_macs_per_sample)" "$(json "$meta" samples_done)" \
        "$(json "$meta" elapsed_s)" "$(awk "BEGIN { print $(json "$meta" samples_done) / $(json "$meta" elapsed_s) }")" \
        "$(col "$2/kl.csv" cross_entropy)" "$(col "$s" solved_pct)" "$(col "$s" mean_length)" \
        "$(col "$s" optimal_pct)" "$(col "$s" wall_s_per_instance)" "$(col "$s" expanded_per_s)")")
}

for n in "${sizes[@]}"; do
    ./target/release/train --config "configs/size-study/$n.toml" --overwrite --no-progress
    ./target/release/solve --run "runs/size-study-$n" --testset deepcubea-100 --beam-log2 10 --jobs 2 \
        --label deepcubea-100-w10 --overwrite
    report "$n" "runs/size-study-$n" "runs/size-study-$n/solve/deepcubea-100-w10"
done
./target/release/solve --run runs/reference-cube3 --testset deepcubea-100 --beam-log2 10 --jobs 2 --label size-study-deepcubea-100-w10 --overwrite
report "l (reference, 7.5e7 samples)" runs/reference-cube3 runs/reference-cube3/solve/size-study-deepcubea-100-w10

echo
echo "Model size against quality, $(date -u +%Y-%m-%d), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores"
echo "(first 100 DeepCubeA cubes, beam width 2^10, dedup on, two solve workers)"
echo
echo "| size | parameters | forward MACs/state | samples | train s | samples/s | held-out CE | solved % | mean length (QTM) | % optimal | wall s/cube | states/s |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
