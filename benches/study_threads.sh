#!/usr/bin/env bash
# How a 2-core machine should spend its cores on a study: one training
# process with two threads, or two single-threaded processes (two shards of
# the study, one per core)? For each network width of the cube's Q-distance
# grid (configs/study/cube3-q-grid.toml, recipe configs/cube3-q-long.toml),
# trains for SECONDS seconds (i) one process on cores 0-1 with
# train.threads = 2, then (ii) two processes at once, pinned to core 0 and
# core 1, with train.threads = 1, and prints the samples/s of each and the
# ratio of the pair's sum to the single process. Nothing else should run.
#
#   bash benches/study_threads.sh                 # widths 128 192 320 512 768, 45 s each
#   SIZES="128 512" SECONDS_EACH=30 bash benches/study_threads.sh
set -euo pipefail
TRAIN=${TRAIN:-target/release/train}
SIZES=${SIZES:-128 192 320 512 768}
SECONDS_EACH=${SECONDS_EACH:-45}
[ -x "$TRAIN" ] || { echo "no $TRAIN: cargo build --release" >&2; exit 1; }
[ "$(nproc)" -ge 2 ] || { echo "needs two cores" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), family $(grep -m1 'cpu family' /proc/cpuinfo | cut -d: -f2 | xargs), model $(grep -m1 '^model\s' /proc/cpuinfo | cut -d: -f2 | xargs); flags: $(grep -m1 flags /proc/cpuinfo | tr ' ' '\n' | grep -E '^(avx2|fma|avx512f|avx512_bf16|amx_bf16)$' | xargs)"

# A config of the grid's recipe with hidden [h, h], `threads` threads,
# samples enough never to finish, under $work/<name>.
config() { # name h threads
  sed -e "s/^name = .*/name = \"$1\"/" \
      -e "s/^hidden = .*/hidden = [$2, $2]/" \
      -e "s/^samples = .*/samples = 100_000_000_000/" \
      -e "s/^\[train\]/[train]\nthreads = $3/" \
      -e "s|^\[run\]|[run]\nout_dir = \"$work\"|" configs/cube3-q-long.toml > "$work/$1.toml"
}
# Trains until SIGINT after SECONDS_EACH; prints the leg's samples/s.
leg() { # cores name
  taskset -c "$1" timeout -s INT "$SECONDS_EACH" "$TRAIN" --config "$work/$2.toml" --no-progress > "$work/$2.log" 2>&1 || true
  sed -n 's/^speed *\([0-9]*\) samples\/s.*/\1/p' "$work/$2.log" | tail -1
}

printf '%-6s %12s %14s %14s %14s %8s\n' hidden "2 threads" "core 0 (1 t)" "core 1 (1 t)" "pair" ratio
for h in $SIZES; do
  config "both-$h" "$h" 2
  config "first-$h" "$h" 1
  config "second-$h" "$h" 1
  both=$(leg 0,1 "both-$h")
  leg 0 "first-$h" > "$work/first.rate" &
  leg 1 "second-$h" > "$work/second.rate" &
  wait
  a=$(cat "$work/first.rate"); b=$(cat "$work/second.rate")
  [ -n "$both" ] && [ -n "$a" ] && [ -n "$b" ] || { echo "h$h: a leg printed no speed (logs in $work)" >&2; cat "$work"/*-"$h".log >&2; exit 1; }
  printf '%-6s %12s %14s %14s %14s %8.2f\n' "$h" "$both" "$a" "$b" "$((a + b))" "$(echo "($a + $b) / $both" | bc -l)"
done
