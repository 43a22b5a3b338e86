#!/usr/bin/env bash
# Everything cube-oracle does on a GPU machine, in a few commands. The GPU
# machine needs no Rust toolchain and no network: benches/gpu/pack.sh builds
# the GPU binaries on a build machine and packs them, with the Vulkan loader
# packages, into .gpubin/ and .gl/; copy the checkout with those two folders
# to the GPU machine and run this script there, from the repository root.
#
#   bash benches/gpu/device.sh setup             # unpack the binaries and the Vulkan loader
#   bash benches/gpu/device.sh verify-bench      # adapter, CPU/GPU agreement, burn vs PyTorch
#   bash benches/gpu/device.sh mixed-bench [CONFIG...]  # burn's bf16 products against PyTorch's autocast (ROUNDS=2)
#   bash benches/gpu/device.sh train-start SECS  # start configs/cube3-gpu.toml in the background
#                                                # (PRECISION=flex32, TRAIN=train-fusion pick variants;
#                                                # CONFIG=configs/<other>.toml trains another GPU config)
#   bash benches/gpu/device.sh wait SECS         # follow it
#   bash benches/gpu/device.sh finish [SECS]     # stop it, export weights, evaluate on its 16 CPUs, pack
#                                                # (EVAL="--testset deepcubea-100 --beam-log2 10" LABEL=… narrow it)
#   bash benches/gpu/device.sh adapter           # the GPU, its cooperative-matrix types, a GPU run's meta.json
#   SPEC="deepcubea:14:14:cpu:12:4-15 deepcubea-100:18:18:gpu:4:0-3" bash benches/gpu/device.sh search-start
#   bash benches/gpu/device.sh search-collect SECS   # v2's width-law pieces, on the GPU and the CPUs
#                                                    # (SEARCH_RUN=runs/cube3-gpu: the policy's)
#   bash benches/gpu/device.sh study-start POINT...  # grid points (study --list names them) trained on
#                                                    # the GPU, evaluated on the CPUs (STUDY=<study file>)
#   bash benches/gpu/device.sh study-collect [SECS]  # stop them (checkpointed) and pack their folders
#
# Results go to $OUT (default /tmp/gpu-out; copy it back when done); the
# work folder target/gpu/ keeps training state between the commands above.
set -uo pipefail
cd "$(dirname "$0")/../.."
REPO=$PWD
OUT=${OUT:-/tmp/gpu-out}
BIN=/tmp/gpubin
WORK=$REPO/target/gpu
mkdir -p "$OUT" "$WORK"

setup() {
  # Without the packed binaries and the loader nothing here can run: stop
  # at once (were .gpubin/ and .gl/ copied along?).
  local f missing=0
  [ -e .gpubin/bins.tar.xz ] || { echo "setup: .gpubin/bins.tar.xz is missing (benches/gpu/pack.sh builds it)" >&2; missing=1; }
  ls .gl/libvulkan1_*.deb >/dev/null 2>&1 || { echo "setup: .gl/libvulkan1_*.deb is missing (benches/gpu/pack.sh downloads it)" >&2; missing=1; }
  [ $missing = 0 ] || exit 1
  if [ ! -e /tmp/.gl-unpacked ]; then
    for f in .gl/*.deb; do dpkg -x "$f" / || exit 1; done
    ldconfig && touch /tmp/.gl-unpacked
  fi
  # Unpack the packed variant (plain or fused) beside what is there.
  local sum
  sum=$(cksum <.gpubin/bins.tar.xz)
  if [ "$(cat "$BIN/.packed" 2>/dev/null)" != "$sum" ]; then
    mkdir -p "$BIN" && tar -xJf .gpubin/bins.tar.xz -C "$BIN" && echo "$sum" >"$BIN/.packed" || exit 1
  fi
  # NVIDIA's Vulkan driver through its EGL library: the manifests that
  # containers ship name libGLX_nvidia.so.0, which on a headless machine
  # loads but creates no instance ("vkCreateInstance: Found no drivers!").
  # VK_DRIVER_FILES set by the caller wins.
  local egl
  egl=$(ldconfig -p | awk '/libEGL_nvidia\.so\.0 / { print $NF; exit }')
  if [ -z "${VK_DRIVER_FILES:-}" ] && [ -n "$egl" ]; then
    printf '{"file_format_version": "1.0.1", "ICD": {"library_path": "%s", "api_version": "1.3.0"}}\n' "$egl" >"$WORK/nvidia_egl_icd.json"
    export VK_DRIVER_FILES=$WORK/nvidia_egl_icd.json
  elif [ -z "${VK_DRIVER_FILES:-}" ] && [ -z "$(ls /usr/share/vulkan/icd.d/ 2>/dev/null)" ] && [ -e /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
    export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
  fi
}

# burn (plain and fused) and PyTorch on one config, side by side.
bench_config() { # config-file steps warmup
  local cfg=$1 steps=$2 warm=$3
  for p in f32 flex32 f16; do
    "$BIN/gpu_throughput" --config "$cfg" --device gpu --precision "$p" --steps "$steps" --warmup "$warm" 2>&1 | tail -n 1
    if [ -x "$BIN/gpu_throughput-fusion" ]; then
      "$BIN/gpu_throughput-fusion" --config "$cfg" --device gpu --precision "$p" --steps "$steps" --warmup "$warm" 2>&1 | tail -n 1
    fi
  done
  "$BIN/gpu_throughput" --config "$cfg" --device gpu --matmul bf16 --steps "$steps" --warmup "$warm" 2>&1 | tail -n 1
  for p in f32 tf32 bf16-amp; do
    python3 benches/gpu_throughput.py --config "$cfg" --precision "$p" --steps "$steps" --warmup "$warm" 2>&1 | tail -n 1
  done
}

# The mixed-precision step alone, burn against PyTorch, alternating, on
# each config named (default: v2's recipe at batch 2,080 and the GPU
# reference at 26,000): burn f32, burn bf16 products, PyTorch f32 and
# bf16 autocast, ROUNDS times each (default 2); each measurement is cut
# off after 120 s.
mixed_bench() { # config files
  setup
  local cfg round t="timeout -s INT ${MIXED_TIMEOUT:-120}"
  [ $# -gt 0 ] || set -- configs/cube3-q-long.toml configs/cube3-gpu.toml
  for cfg in "$@"; do
    for round in $(seq "${ROUNDS:-2}"); do
      $t "$BIN/gpu_throughput" --config "$cfg" --device gpu --steps 60 --warmup 10 2>&1 | tail -n 1
      $t "$BIN/gpu_throughput" --config "$cfg" --device gpu --matmul bf16 --steps 60 --warmup 10 2>&1 | tail -n 1
      $t python3 benches/gpu_throughput.py --config "$cfg" --precision f32 --steps 60 --warmup 10 2>&1 | tail -n 1
      $t python3 benches/gpu_throughput.py --config "$cfg" --precision bf16-amp --steps 60 --warmup 10 2>&1 | tail -n 1
    done
  done 2>&1 | tee -a "$OUT/mixed-bench.txt"
}

# smoke-<device>.toml here: configs/smoke.toml on that device.
smoke_config() { # cpu | gpu
  sed "s/^name = \"smoke\"/name = \"smoke-$1\"/; s/^device = \"cpu\"/device = \"$1\"/" "$REPO/configs/smoke.toml" >"smoke-$1.toml"
}

# How many searches found the same solution (and length) in two solve folders.
same_solutions() {
  python3 - "$1" "$2" <<'EOF' 2>&1
import csv, sys
def rows(d):
    with open(f"{d}/instances.csv") as f:
        return list(csv.DictReader(f))
a, b = rows(sys.argv[1]), rows(sys.argv[2])
same = sum(x["solution"] == y["solution"] for x, y in zip(a, b))
same_len = sum(x["length_qtm"] == y["length_qtm"] for x, y in zip(a, b))
solved = [sum(r["solved"] == "true" for r in t) for t in (a, b)]
print(f"{sys.argv[1]} vs {sys.argv[2]}: {len(a)} searches; solved {solved[0]} vs {solved[1]}; "
      f"identical solutions {same}, identical lengths {same_len}")
EOF
}

verify_bench() {
  setup
  {
    echo "== machine"
    nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv
    lscpu | grep -m1 "Model name"
    echo "== vulkan adapters"
    vulkaninfo --summary 2>&1 | grep -E "deviceName|driverVersion|apiVersion" | head -n 6
  } 2>&1 | tee "$OUT/machine.txt"

  echo "== verify: smoke config, same seed, CPU and GPU, one binary" | tee "$OUT/verify.txt"
  local v=$WORK/verify
  rm -rf "$v" && mkdir -p "$v" && cd "$v"
  smoke_config cpu
  smoke_config gpu
  for d in cpu gpu; do
    /usr/bin/time -f "train smoke-$d: %e s wall" "$BIN/train" --config "smoke-$d.toml" --no-progress 2>&1 | tail -n 3
  done | tee -a "$OUT/verify.txt"
  python3 - <<'EOF' 2>&1 | tee -a "$OUT/verify.txt"
import csv
def rows(name):
    with open(f"runs/{name}/metrics.csv") as f:
        return list(csv.DictReader(f))
c, g = rows("smoke-cpu"), rows("smoke-gpu")
print("step\tloss_cpu\tloss_gpu\trel_diff")
worst = 0.0
for a, b in zip(c, g):
    lc, lg = float(a["loss"]), float(b["loss"])
    rel = abs(lc - lg) / abs(lc)
    worst = max(worst, rel)
    print(f"{a['step']}\t{lc:.6f}\t{lg:.6f}\t{rel:.2e}")
print(f"max relative loss difference over {len(c)} logged windows: {worst:.2e}")
EOF
  cp runs/smoke-gpu/metrics.csv "$OUT/smoke-gpu-metrics.csv" 2>/dev/null
  echo "== the GPU-trained smoke checkpoint, solved on the CPU and on the GPU" | tee -a "$OUT/verify.txt"
  for d in cpu gpu; do
    "$BIN/solve" --run runs/smoke-gpu --device "$d" --testset deepcubea-10 --beam-log2 3 --max-depth 4 --label "on-$d" 2>&1 | tail -n 2
  done | tee -a "$OUT/verify.txt"
  same_solutions runs/smoke-gpu/solve/on-cpu runs/smoke-gpu/solve/on-gpu | tee -a "$OUT/verify.txt"
  echo "== the shipped reference oracle on DeepCubeA's first 100 cubes at 2^10, CPU and GPU" | tee -a "$OUT/verify.txt"
  cp -r "$REPO/runs/reference-cube3" ref && rm -rf ref/solve
  for d in cpu gpu; do
    /usr/bin/time -f "solve on $d: %e s wall" "$BIN/solve" --run ref --device "$d" --testset deepcubea-100 --beam-log2 10 --jobs 8 --label "on-$d" 2>&1 | tail -n 4
  done | tee -a "$OUT/verify.txt"
  same_solutions ref/solve/on-cpu ref/solve/on-gpu | tee -a "$OUT/verify.txt"
  cd "$REPO"

  echo "== bench" | tee "$OUT/bench.txt"
  python3 benches/gpu_throughput.py --peak 2>&1 | tee -a "$OUT/bench.txt"
  sed 's/^states_per_step = .*/states_per_step = 26000/; s/^name = .*/name = "reference-b26000"/' configs/cube3-reference.toml >"$WORK/reference-b26000.toml"
  {
    printf 'framework\tdevice\tprecision\tconfig\tparams\tbatch\ttrain_samples_per_s\ttrain_tflops\tinfer_states_per_s\tinfer_tflops\tlast_loss\n'
    bench_config configs/cube3-reference.toml 100 10
    bench_config "$WORK/reference-b26000.toml" 30 5
    bench_config configs/cube3-efficientcube.toml 20 3
  } | tee -a "$OUT/bench.txt"
}

train_start() { # seconds of training to plan for
  setup
  local secs=${1:-900} steps batch config=$REPO/${CONFIG:-configs/cube3-gpu.toml} run
  run=$(sed -n 's/^name = "\(.*\)"/\1/p' "$config" | head -n 1)
  [ -n "$run" ] || { echo "no [run] name in $config" >&2; return 2; }
  # With RATE (the benchmarked samples/s of the variant chosen), the steps
  # that fit in SECS at 80% of it (evaluations, checkpoints, data stalls);
  # without, the config's own (11,484: what the shipped run planned).
  if [ -n "${RATE:-}" ]; then
    batch=$(awk '$1 == "states_per_step" { gsub("_", "", $3); print $3; exit }' "$config")
    steps=$((RATE * secs * 8 / 10 / batch))
    echo "planned: $secs s at $RATE samples/s, batch $batch -> $steps steps"
  else
    steps=$(awk '$1 == "steps" { gsub("_", "", $3); print $3; exit }' "$config")
  fi
  mkdir -p "$WORK/train" && cd "$WORK/train"
  echo "$run" >run-name
  sed "s/^steps = .*/steps = $steps/; s/^precision = .*/precision = \"${PRECISION:-f32}\"/" "$config" >"$run.toml"
  setsid nohup nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used,power.draw --format=csv -l 10 >gpu-util.csv 2>&1 &
  setsid nohup "$BIN/${TRAIN:-train}" --config "$run.toml" --no-progress >train.log 2>&1 &
  sleep 60
  tail -n 5 train.log "runs/$run/metrics.csv"
}

wait_train() { # seconds
  local until=$((SECONDS + ${1:-500}))
  cd "$WORK/train"
  while [ $SECONDS -lt $until ] && pgrep -f "gpubin/train" >/dev/null; do sleep 20; done
  tail -n 3 "runs/$(cat run-name)/metrics.csv"
  tail -n 2 gpu-util.csv
}

finish() { # seconds to let training run before stopping it
  setup
  wait_train "${1:-0}"
  cd "$WORK/train"
  if pgrep -f "gpubin/train" >/dev/null; then
    pkill -INT -f "gpubin/train"
    while pgrep -f "gpubin/train" >/dev/null; do sleep 2; done
  fi
  pkill -f "nvidia-smi --query-gpu" || true
  tail -n 8 train.log
  local run
  run=$(cat run-name)
  rm -rf export && "$BIN/train" export-weights "runs/$run" --to "export/$run"
  cp "$run.toml" train.log gpu-util.csv export/ 2>/dev/null
  # EVAL replaces the evaluation's input and widths: a value oracle costs
  # about 9.5x the policy's forwards per width on the cube (docs/oracle-kinds.md),
  # so give it fewer cubes or a narrower beam.
  local eval_args
  read -ra eval_args <<<"${EVAL:---testset deepcubea --beam-log2 10}"
  /usr/bin/time -f "solve ${eval_args[*]} on the 16 CPU cores: %e s wall" \
    "$BIN/solve" --run "export/$run" --device cpu "${eval_args[@]}" --jobs 16 --label "${LABEL:-deepcubea-w10}" 2>&1 | tail -n 4
  rm -f "export/$run"/solve/*/depths.csv
  tar -cf - -C export . | split -b 15M - "$OUT/$run.tar.part-"
  ls -la "$OUT"
}

# The GPU, its Vulkan driver and cooperative-matrix support, and what a
# GPU run's meta.json records about them (a smoke run trained on the GPU).
adapter() {
  setup
  {
    nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv
    lscpu | grep -m1 "Model name"
    grep -m1 flags /proc/cpuinfo | tr ' ' '\n' | grep -E '^(avx2|fma|avx512f|avx512_bf16|avx512_vnni|amx_tile|amx_bf16|amx_int8)$' | tr '\n' ' '
    echo
  } 2>&1 | tee "$OUT/adapter.txt"
  vulkaninfo >"$OUT/vulkaninfo.txt" 2>&1
  grep -iE "deviceName|driverVersion|apiVersion|VK_KHR_cooperative_matrix|VK_NV_cooperative_matrix|cooperativeMatrix|shaderFloat16|BFloat16" \
    "$OUT/vulkaninfo.txt" | sed 's/^ *//' | sort -u | tee -a "$OUT/adapter.txt"
  local v=$WORK/adapter
  rm -rf "$v" && mkdir -p "$v" && cd "$v"
  smoke_config gpu
  /usr/bin/time -f "train smoke-gpu: %e s wall" "$BIN/train" --config smoke-gpu.toml --no-progress 2>&1 | tail -n 3 | tee -a "$OUT/adapter.txt"
  cp runs/smoke-gpu/meta.json "$OUT/smoke-gpu-meta.json"
  grep -E '"device"' runs/smoke-gpu/meta.json | tee -a "$OUT/adapter.txt"
  cd "$REPO"
}

# A run's width law in the background (reference v2, runs/cube3-q-long,
# unless SEARCH_RUN=runs/<other> names another, such as the policy
# runs/cube3-gpu): SPEC is a list of SET:FROM:TO:DEVICE:JOBS:CPUS entries
# (say "deepcubea:14:14:cpu:12:4-15 deepcubea-100:18:18:gpu:4:0-3"), each one
# benches/width_law.sh (MERGE=0) pinned to the CPUs named; finished pieces
# in the repository's run are skipped. An optional seventh field,
# first-last, runs only those pieces of each width (width_law.sh's PIECES),
# so a CPU and a GPU entry share one width. `search-collect` packs the
# finished pieces of every run searched into $OUT/pieces.tar.
search_start() {
  setup
  local src=${SEARCH_RUN:-runs/cube3-q-long} name run entry set from to dev jobs cpus pieces wrap tag
  name=$(basename "$src")
  run=$WORK/search/$name
  [ -d "$src" ] || { echo "search-start: no run folder $src" >&2; return 2; }
  mkdir -p "$run"
  cp -rn "$src/." "$run/" 2>/dev/null
  for entry in ${SPEC:?SPEC=set:from:to:device:jobs:cpus[:first-last] ...}; do
    IFS=: read -r set from to dev jobs cpus pieces <<<"$entry"
    [ -z "${ONLY_DEVICE:-}" ] || [ "$dev" = "$ONLY_DEVICE" ] || continue
    tag=$name-$set-$from-$dev
    wrap=$WORK/solve-$tag
    printf '#!/bin/sh\nexec taskset -c %s %s/solve --device %s "$@"\n' "$cpus" "$BIN" "$dev" >"$wrap"
    chmod +x "$wrap"
    if pgrep -f "width_law.sh $tag" >/dev/null; then echo "running: $entry"; continue; fi
    RUN=$run SET=$set FROM=$from TO=$to JOBS=$jobs SOLVE=$wrap MERGE=0 PIECES=${pieces:-0-1023} \
      setsid nohup bash benches/width_law.sh "$tag" >"$WORK/width-law-$tag.log" 2>&1 &
    echo "started: $src $entry"
  done
}

search_collect() { # seconds to wait first (while a piece runs)
  local until=$((SECONDS + ${1:-0})) d name
  while [ $SECONDS -lt "$until" ] && pgrep -f "benches/width_law.sh" >/dev/null; do sleep 15; done
  local finished=()
  for d in "$WORK"/search/*/solve/*/; do
    d=${d%/}
    grep -qx 'state = complete' "$d/.cube-oracle-output" 2>/dev/null || continue
    name=$(basename "$(dirname "$(dirname "$d")")")
    [ -e "$REPO/runs/$name/solve/$(basename "$d")" ] && continue
    finished+=("$name/solve/$(basename "$d")")
  done
  # One archive: untar it in runs/ and merge with benches/width_law.sh
  # (FROM > TO merges only).
  [ ${#finished[@]} -gt 0 ] && tar -cf "$OUT/pieces.tar" -C "$WORK/search" "${finished[@]}" && printf '%s\n' "${finished[@]}"
  tail -n 3 "$WORK"/width-law-*.log
  nvidia-smi --query-gpu=utilization.gpu,memory.used,power.draw --format=csv
}

# Points of a study trained on the GPU (study --device gpu), one after the
# other, in the repository's own runs/ folder, so that a point carried over
# from an earlier GPU period (its folder with its newest checkpoint)
# resumes. Each finished point is then evaluated on the machine's CPUs.
study_start() { # point names
  setup
  [ $# -gt 0 ] || { echo "study-start: name the points (study --list)" >&2; return 2; }
  local study=${STUDY:-configs/study/cube3-q-grid.toml} args=() p
  for p in "$@"; do args+=(--point "$p"); done
  echo "$study" >"$WORK/study-file"
  printf '%s\n' "$@" >"$WORK/study-points"
  setsid nohup nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used,power.draw --format=csv -l 10 >"$WORK/study-gpu-util.csv" 2>&1 &
  # STUDY_CPUS=0-5 keeps the GPU's study process (its data and dispatch
  # threads) on those cores.
  setsid nohup ${STUDY_CPUS:+taskset -c "$STUDY_CPUS"} "$BIN/study" --config "$study" --device gpu "${args[@]}" --no-progress >"$WORK/study.log" 2>&1 &
  sleep 60
  tail -n 5 "$WORK/study.log"
}

# Waits up to SECS while the study runs, stops it (Ctrl-C: the point in
# training writes its checkpoint), and packs each named point's folder
# (logs, meta.json, point.csv when finished, the newest checkpoint) into
# $OUT/study-points.tar, to be unpacked in the study's runs/ folder.
study_collect() { # seconds to wait first
  local until=$((SECONDS + ${1:-0})) pid dir d ck files=()
  while [ $SECONDS -lt "$until" ] && pgrep -f "gpubin/study" >/dev/null; do sleep 15; done
  for pid in $(pgrep -f "gpubin/study"); do kill -INT "$pid"; done
  while pgrep -f "gpubin/study" >/dev/null; do sleep 2; done
  pkill -f "nvidia-smi --query-gpu" || true
  dir=$(sed -n 's/^name = "\(.*\)"/\1/p' "$(cat "$WORK/study-file")" | head -n 1)
  for d in $(cat "$WORK/study-points"); do
    [ -d "runs/$dir/$d" ] || continue
    for f in config.toml meta.json metrics.csv eval.csv point.csv; do
      [ -e "runs/$dir/$d/$f" ] && files+=("$d/$f")
    done
    ck=$(ls "runs/$dir/$d/checkpoints/"step-*.ckpt 2>/dev/null | sort | tail -n 1)
    [ -n "$ck" ] && files+=("$d/checkpoints/$(basename "$ck")")
  done
  # A point trained on the host's CPUs beside the GPU (period.sh's CPU_POINT).
  [ -e "$WORK/study-cpu.log" ] && cp "$WORK/study-cpu.log" "$OUT/"
  [ ${#files[@]} -gt 0 ] && tar -cf "$OUT/study-points.tar" -C "runs/$dir" "${files[@]}" && printf '%s\n' "${files[@]}"
  tail -n 8 "$WORK/study.log"
  cp "$WORK/study.log" "$WORK/study-gpu-util.csv" "$OUT/" 2>/dev/null || true
}

case "${1:-}" in
  setup) setup ;;
  verify-bench) verify_bench ;;
  mixed-bench) shift; mixed_bench "$@" ;;
  train-start) train_start "${2:-900}" ;;
  wait) wait_train "${2:-500}" ;;
  finish) finish "${2:-0}" ;;
  adapter) adapter ;;
  search-start) search_start ;;
  search-collect) search_collect "${2:-0}" ;;
  study-start) shift; study_start "$@" ;;
  study-collect) study_collect "${2:-0}" ;;
  *) echo "usage: $0 setup | verify-bench | mixed-bench [CONFIG...] | train-start SECS | wait SECS | finish [SECS] | adapter | search-start | search-collect [SECS] | study-start POINT... | study-collect [SECS]" >&2; exit 2 ;;
esac
