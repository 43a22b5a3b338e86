#!/usr/bin/env bash
# The compiled network's share of the machine's measured peak in one
# precision, robust to a host whose speed drifts (a shared virtual machine):
# every measurement of the network sits between two measurements of the
# peak, on the same threads, and its rate is divided by their mean. PAIRS
# such triples per batch, batches interleaved; prints every triple, then
# per batch the median share with its quartiles and range.
#
#   bash benches/share_of_peak.sh                       # int8, reference v2
#   MATMUL=f32 bash benches/share_of_peak.sh
#   BATCHES=1024,16384 PAIRS=20 bash benches/share_of_peak.sh runs/cube3-q-long
#   BENCH=<built inference bench> PEAK=<built train_throughput bench> ...   (a machine without cargo)
#
# Operations per state (OPS): for int8 the integer layers only (reference
# v2's five 512 × 512 layers, 2.62 M; the first layer, the head and each
# layer's quantisation count as overhead), for f32 every product (2.69 M:
# the dense layers and the first layer's 54 weight rows). Another network
# needs its own OPS. The peaks are `train_throughput -- --peak`: the fp32
# FMA chains, and the int8 chains of the kernel the network runs (AVX-512
# VNNI where present, else AVX2).
set -euo pipefail
cd "$(dirname "$0")/.."
RUN=${1:-runs/cube3-q-long}
MATMUL=${MATMUL:-int8}
BATCHES=${BATCHES:-256,1024,4096,16384,65536}
PAIRS=${PAIRS:-10}
SECONDS_EACH=${SECONDS_EACH:-1}
case "$MATMUL" in
  int8) OPS=${OPS:-2621440} ;;
  f32) OPS=${OPS:-2690000} ;;
  *) echo "MATMUL: f32 or int8, not '$MATMUL'" >&2; exit 2 ;;
esac
case "$PAIRS" in '' | *[!0-9]* | 0) echo "PAIRS: a whole number of at least 1, not '$PAIRS'" >&2; exit 2 ;; esac
# The built benches (BENCH, PEAK: a machine without cargo) or cargo's.
bench() { if [ -n "${BENCH:-}" ]; then "$BENCH" "$@"; else cargo bench -q --bench inference -- "$@"; fi; }
peaks() { if [ -n "${PEAK:-}" ]; then "$PEAK" --peak; else cargo bench -q --bench train_throughput -- --peak; fi; }
# Build first, quietly; a failed build shows cargo's own messages.
if [ -z "${BENCH:-}" ] || [ -z "${PEAK:-}" ]; then
  log=$(cargo bench --bench inference --bench train_throughput --no-run 2>&1) || { echo "$log" >&2; exit 1; }
fi
# fp32: the last line printed; int8: the unit the network runs (printed on standard error).
peak() {
  case "$MATMUL" in
    f32) peaks 2>/dev/null | tail -n 1 ;;
    int8) peaks 2>&1 >/dev/null | grep -m1 -E '^int8 \((AVX512-VNNI|AVX2)' | sed 's/.*peak: \([0-9.]*\) GOP.*/\1/' ;;
  esac
}
echo "# CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), family $(grep -m1 'cpu family' /proc/cpuinfo | cut -d: -f2 | xargs), model $(grep -m1 -E '^model\s' /proc/cpuinfo | cut -d: -f2 | xargs); $(nproc) threads; threads used: ${CUBE_ORACLE_THREADS:-2}"
echo "# run: $RUN; matmul: $MATMUL; $OPS operations per state; commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
echo "batch	states_per_s	peak_before	peak_after	share"
for _ in $(seq "$PAIRS"); do
  for b in ${BATCHES//,/ }; do
    p1=$(peak)
    s=$(bench --run "$RUN" --matmul "$MATMUL" --batches "$b" --seconds "$SECONDS_EACH" 2>/dev/null | tail -1 | cut -f5)
    p2=$(peak)
    [ -n "$p1" ] && [ -n "$p2" ] && [ -n "$s" ] || { echo "a measurement failed (batch $b)" >&2; exit 1; }
    printf '%s\t%s\t%s\t%s\t%.3f\n' "$b" "$s" "$p1" "$p2" "$(python3 -c "print($s * $OPS / 1e9 / (($p1 + $p2) / 2))")" | tee -a "$out"
  done
done
python3 - "$out" <<'PY'
import statistics, sys
rows = [l.split("\t") for l in open(sys.argv[1]) if l.strip()]
print("\nbatch\tmedian_states_per_s\tmedian_share\tq1\tq3\tmin\tmax")
for b in sorted({int(r[0]) for r in rows}):
    s = [float(r[4]) for r in rows if int(r[0]) == b]
    rate = statistics.median(float(r[1]) for r in rows if int(r[0]) == b)
    q = statistics.quantiles(s, n=4) if len(s) > 1 else [s[0]] * 3
    print(f"{b}\t{rate:.0f}\t{statistics.median(s):.3f}\t{q[0]:.3f}\t{q[2]:.3f}\t{min(s):.3f}\t{max(s):.3f}")
PY
