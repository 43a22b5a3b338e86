#!/usr/bin/env bash
# One ablation protocol for oracle kinds: every variant is the
# same base config with another `[model] kind`, trained for the same number
# of steps (so the same samples; training FLOPs equal up to the head's
# width), then solved on the same instances at the same widths, every
# solution replayed. One table per protocol: per variant and width, solved %,
# mean length, % optimal, forwards per instance, seconds per instance, and
# the training samples and seconds it cost.
#
#   bash benches/ablation.sh [BASE_CONFIG] [STEPS] [LOG2_WIDTHS] [SOLVE INPUT ...]
#
# SOLVE INPUT is beam search's input, or `exact` followed by the exact-truth
# report's input (`solve exact`, cube2 and puzzle8 only).
#
# Defaults are the cube protocol of docs/oracle-kinds.md: configs/cube3-reference.toml, its own
# step count, widths 2^10..2^12, DeepCubeA's first 100 cubes:
#   bash benches/ablation.sh configs/cube3-reference.toml "" 10..12 --testset deepcubea-100
# The 2×2×2 protocol of docs/oracle-kinds.md (exact optimal lengths):
#   bash benches/ablation.sh configs/cube2-reference.toml 5000 0..10 exact --random 1000
# VARIANTS="policy q-distance value" picks the kinds; WIDTHS_<KIND> (KIND in
# capitals, '-' as '_', e.g. WIDTHS_VALUE=8..10) gives one kind its own widths,
# so that kinds of different cost per width can be compared at equal
# forwards; NAME names the protocol (default: the base config's file name).
# Runs go under runs/ablation/ (a finished variant is reused, an unfinished
# one resumed); the table goes to benches/results/ablation-<NAME>-<date>.csv.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:-configs/cube3-reference.toml}
steps=${2:-}
widths=${3:-10..12}
shift $(( $# < 3 ? $# : 3 ))
input=("$@")
[ ${#input[@]} -eq 0 ] && input=(--testset deepcubea-100)
mode=(beam)
if [ "${input[0]}" = exact ]; then
    mode=(exact)
    input=("${input[@]:1}")
fi
variants=${VARIANTS:-policy q-distance value}
name=${NAME:-$(basename "$base" .toml)}
root=runs/ablation
mkdir -p "$root/configs" benches/results
cargo build --release --bin train --bin solve >/dev/null
table=benches/results/ablation-$name-$(date +%F).csv
lscpu | grep -m1 'Model name' | sed 's/^/# /' >&2
for kind in $variants; do
    run="$name-$kind"
    cfg="$root/configs/$run.toml"
    sed -e "s/^name = .*/name = \"$run\"/" \
        -e "s|^\[run\]|[run]\nout_dir = \"$root\"|" \
        -e "s/^\[model\]/[model]\nkind = \"$kind\"/" \
        "$base" > "$cfg"
    [ -n "$steps" ] && sed -i -e "s/^steps = .*/steps = $steps/" "$cfg"
    if grep -q '"complete": true' "$root/$run/meta.json" 2>/dev/null; then
        echo "$run: trained already" >&2
    elif [ -d "$root/$run" ]; then
        nice -n 10 ./target/release/train --config "$cfg" --resume --no-progress >&2
    else
        nice -n 10 ./target/release/train --config "$cfg" --no-progress >&2
    fi
    own="WIDTHS_$(echo "$kind" | tr 'a-z-' 'A-Z_')"
    nice -n 10 ./target/release/solve "${mode[@]}" --run "$root/$run" "${input[@]}" --beam-log2 "${!own:-$widths}" \
        --label ablation --overwrite >&2
done
# shellcheck disable=SC2086 # one argument per kind
python3 benches/ablation_table.py "$name" $variants > "$table.tmp"
mv "$table.tmp" "$table"
column -s, -t < "$table"
echo "table: $table" >&2
