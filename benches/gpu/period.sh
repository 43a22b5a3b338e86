#!/usr/bin/env bash
# One short GPU period in one command: study points trained on the GPU while
# the host's other cores search width-law pieces on the CPU, everything
# stopped and packed before SECS have passed.
#
#   POINTS="h768x768-b2-d5.17e7-s20261121" SPEC="deepcubea:15:15:cpu:12:4-15" \
#     OUT=/tmp/gpu-out bash benches/gpu/period.sh 480
#
# POINTS may be left out (a period of searches and benches only); SPEC's
# entries may end in :first-last to share a width's pieces between devices.
# MIXED="configs/cube3-gpu.toml ..." first measures burn against PyTorch (f32
# and bf16 products) on the idle GPU; CPU_POINT=<point> CPU_CORES=6-15 trains
# one more study point on those host cores beside the GPU; STUDY_CPUS=0-5
# keeps the GPU's study process and the bench on those cores.
#
# It stops early, with the study's log, when no point is training a minute
# in. $OUT then holds bundle.tar split into pieces of at most 15 MiB
# (bundle.tar.part-aa, -ab, ...): `cat bundle.tar.part-* | tar -x` gives
# study-points.tar (unpack in runs/<study>/), pieces.tar (unpack in runs/;
# SEARCH_RUN=runs/cube3-gpu searches the policy instead of reference v2) and
# the logs. Requires benches/gpu/pack.sh's
# .gpubin/ and .gl/ (see benches/gpu/device.sh).
set -uo pipefail
cd "$(dirname "$0")/../.."
SECS=${1:-480}
OUT=${OUT:-/tmp/gpu-out}
export OUT
mkdir -p "$OUT/bundle"
# CPU_POINT is stopped and collected with POINTS' study; alone it would run
# on unchecked and come back with nothing.
if [ -n "${CPU_POINT:-}" ] && [ -z "${POINTS:-}" ]; then
  echo "period: CPU_POINT=$CPU_POINT needs POINTS (it is collected with them)" >&2
  exit 2
fi
pack() {
  cp target/gpu/*.log target/gpu/*.csv "$OUT/bundle/" 2>/dev/null
  for f in adapter.txt mixed-bench.txt study-cpu.log solve-speed-amx.txt amx-lib-tests.txt cpu-peaks.txt inference-vs-pytorch-amx.txt study-points.tar pieces.tar study.log study-gpu-util.csv; do
    [ -e "$OUT/$f" ] && mv "$OUT/$f" "$OUT/bundle/"
  done
  rm -f "$OUT/vulkaninfo.txt"
  tar -cf - -C "$OUT" bundle | split -b 15M - "$OUT/bundle.tar.part-"
  rm -rf "$OUT/bundle"
  ls -la "$OUT"
}
{
  nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv
  lscpu | grep -m1 "Model name"
  grep -m1 -E '^(cpu family|model)\s' /proc/cpuinfo | tr -s '\t ' ' '
  grep -m1 flags /proc/cpuinfo | tr ' ' '\n' | grep -E '^(avx2|fma|avx512f|avx512_bf16|avx512_vnni|amx_tile|amx_bf16|amx_int8)$' | tr '\n' ' '
  echo
} 2>&1 | tee "$OUT/adapter.txt"
bash benches/gpu/device.sh setup || { pack; exit 1; }
# SPEC's CPU entries start at once (they leave the GPU alone); its GPU
# entries once MIXED's bench is done.
[ -n "${SPEC:-}" ] && ONLY_DEVICE=cpu bash benches/gpu/device.sh search-start
# MIXED="configs/a.toml ...": first, with the GPU and the host to themselves,
# burn's f32 and bf16-product steps against PyTorch's f32 and bf16 autocast
# (device.sh mixed-bench, one round unless ROUNDS says otherwise).
if [ -n "${MIXED:-}" ]; then
  # shellcheck disable=SC2086
  ROUNDS=${ROUNDS:-1} ${STUDY_CPUS:+taskset -c "$STUDY_CPUS"} bash benches/gpu/device.sh mixed-bench $MIXED
fi
# CPU_POINT=<point> CPU_CORES=6-15: one more point of the study, trained on
# those host cores beside the GPU (its CPU trainer; collected with the GPU's).
if [ -n "${CPU_POINT:-}" ]; then
  (setsid nohup taskset -c "${CPU_CORES:?CPU_CORES=cores for CPU_POINT}" /tmp/gpubin/study \
    --config "${STUDY:-configs/study/cube3-q-grid.toml}" --point "$CPU_POINT" --no-progress \
    >target/gpu/study-cpu.log 2>&1 &)
fi
if [ -n "${POINTS:-}" ]; then
  # shellcheck disable=SC2086
  bash benches/gpu/device.sh study-start $POINTS
  [ -n "${CPU_POINT:-}" ] && echo "$CPU_POINT" >>target/gpu/study-points
  # The GPU's study process, not CPU_POINT's, which would hide its failure.
  if ! pgrep -f "gpubin/study .*--device gpu" >/dev/null; then
    echo "period: no point is training on the GPU; the study's log:" >&2
    cat target/gpu/study.log >&2
    pack
    exit 1
  fi
fi
[ -n "${SPEC:-}" ] && ONLY_DEVICE=gpu bash benches/gpu/device.sh search-start
# On a host with AMX, CPU checks on two of its cores (CPU_BENCH="0,1"),
# while the GPU trains or searches: the library's unit tests with int8 on
# AMX tiles and every bf16 kernel required, the measured peaks, and
# `solve`'s speed (f32; bf16 on burn's AMX GEMM and on vdpbf16ps; int8 on
# vector instructions and on AMX tiles, whose moves must match), each only
# where pack.sh packed what it needs (lib-tests, train_throughput); then,
# with the inference bench packed, inference against PyTorch on the same
# cores (INFER_ROUNDS rounds, default 2).
if [ -n "${CPU_BENCH:-}" ] && grep -qw amx_tile /proc/cpuinfo; then
  if [ -x /tmp/gpubin/lib-tests ]; then
    # The unit tests find the repository through the build machine's path.
    [ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
    CUBE_ORACLE_INT8_KERNEL=amx CUBE_ORACLE_TEST_KERNELS=amx,avx512-bf16 \
      timeout 240 taskset -c "$CPU_BENCH" /tmp/gpubin/lib-tests --test-threads 2 >"$OUT/amx-lib-tests.txt" 2>&1
    echo "lib-tests exit $?" >>"$OUT/amx-lib-tests.txt"
    tail -n 3 "$OUT/amx-lib-tests.txt"
  fi
  [ -x /tmp/gpubin/train_throughput ] && CUBE_ORACLE_THREADS=2 taskset -c "$CPU_BENCH" \
    /tmp/gpubin/train_throughput --peak 2>&1 | tee "$OUT/cpu-peaks.txt"
  SOLVE=/tmp/gpubin/solve WIDTHS="${BENCH_WIDTHS:-10:10 14:2}" MATMULS="f32 bf16 bf16-avx512 int8 int8-amx" \
    taskset -c "$CPU_BENCH" bash benches/solve_speed.sh 2>&1 | tee "$OUT/solve-speed-amx.txt"
  # Stopped a minute before the deadline at the latest, so the rest is packed.
  left=$((SECS - SECONDS - 60))
  [ -x /tmp/gpubin/inference ] && [ $left -gt 0 ] && BENCH=/tmp/gpubin/inference PYTHON=python3 \
    MATMULS="f32 bf16 int8 int8-amx" SECONDS_EACH=1.5 timeout "$left" taskset -c "$CPU_BENCH" \
    bash benches/inference_vs_pytorch.sh runs/cube3-q-long "${INFER_ROUNDS:-2}" >"$OUT/inference-vs-pytorch-amx.txt" 2>&1
fi
# Leave about 40 s to stop, checkpoint and pack.
left=$((SECS - SECONDS - 40))
if [ -n "${POINTS:-}" ]; then
  bash benches/gpu/device.sh study-collect "$((left > 0 ? left : 0))"
fi
# Pieces that finish before the deadline are kept; the rest are dropped.
left=$((SECS - SECONDS - 25))
[ -n "${SPEC:-}" ] && bash benches/gpu/device.sh search-collect "$((left > 0 ? left : 0))"
pkill -f "benches/width_law.sh" 2>/dev/null
pkill -f "gpubin/solve" 2>/dev/null
pack
