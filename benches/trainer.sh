#!/usr/bin/env bash
# Trainers side by side: each variant trains CONFIG for STEPS steps, in
# ROUNDS alternating rounds, with walks generated in-process as in a real
# run; prints the mean samples/s over the logged windows after step 50 and
# the loss logged at the last step, one line per variant and round, then
# the mean per variant.
#
#   bash benches/trainer.sh CONFIG STEPS ROUNDS LABEL=BINARY[@bf16] ...
#
# BINARY is a `train` executable (another commit's, built elsewhere, or
# target/release/train); `@bf16` adds `[backend] matmul = "bf16"` to the
# variant's config (binaries that predate the key refuse it). Each run gets
# a copy of CONFIG renamed tput-LABEL-ROUND, with eval_every and
# checkpoint_every raised past STEPS and log_every = 25, in a scratch
# folder that is removed afterwards.
#
#   bash benches/trainer.sh configs/cube3-reference.toml 150 3 \
#       f32=target/release/train bf16=target/release/train@bf16
set -euo pipefail
config_arg=$1; config=$(realpath "$1"); steps=$2; rounds=$3; shift 3
scratch=$(mktemp -d); trap 'rm -rf "$scratch"' EXIT
echo "# $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; $(date -u +%F)"
echo "# config $config_arg, $steps steps, $rounds rounds; mean samples/s after step 50"
declare -A total
for round in $(seq 1 "$rounds"); do
  for variant in "$@"; do
    label=${variant%%=*}; spec=${variant#*=}; bin=$(realpath "${spec%@bf16}")
    name="tput-$label-$round"
    sed -e "s/^name = .*/name = \"$name\"/" \
        -e "s/^eval_every = .*/eval_every = $((steps * 10))/" \
        -e "s/^checkpoint_every = .*/checkpoint_every = $((steps * 10))/" \
        -e "s/^log_every = .*/log_every = 25/" "$config" > "$scratch/$name.toml"
    if [[ $spec == *@bf16 ]]; then
      printf '\n' >> "$scratch/$name.toml"
      sed -i '/^\[backend\]/a matmul = "bf16"' "$scratch/$name.toml"
    fi
    (cd "$scratch" && "$bin" --config "$name.toml" --max-steps "$steps" --no-progress >/dev/null 2>&1)
    line=$(python3 - "$scratch/runs/$name/metrics.csv" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
late = [float(r["samples_per_s"]) for r in rows if int(r["step"]) > 50]
print(f"{sum(late) / len(late):.0f} last_loss={rows[-1]['loss']}")
EOF
)
    echo "$label $round $line"
    total[$label]=$(( ${total[$label]:-0} + ${line%% *} ))
  done
done
for variant in "$@"; do
  label=${variant%%=*}
  echo "mean $label $(( ${total[$label]} / rounds ))"
done
