#!/usr/bin/env bash
# Oracle inference with f32 against bf16 or int8 products (`solve
# --matmul`; LOW picks which, bf16 by default, or both: LOW="bf16 int8"),
# side by side: the shipped reference v2 (runs/cube3-q-long) on the first
# CUBES DeepCubeA cubes (100 by default, or 1000), one process per piece,
# --jobs 1, RAYON_NUM_THREADS as the caller left it. Each width runs the
# two halves of the set in the order f32 A, LOW A, LOW B, f32 B (A = the
# first half of the cubes, B = the second; with two LOW variants, f32 A,
# bf16 A, int8 A, int8 B, bf16 B, f32 B), so that every variant sees the
# same drift in the machine's load. Then per width and variant: seconds
# per search, mean length with its 95% interval (1.96 standard errors),
# % optimal, and the paired length difference against f32.
#
#   bash benches/inference_precision.sh                  # widths 2^10 and 2^12
#   WIDTHS="10" bash benches/inference_precision.sh      # 2^10 only
#   LOW=int8 bash benches/inference_precision.sh         # f32 against int8
#   CUBES=1000 WIDTHS=10 LOW="bf16 int8" bash benches/inference_precision.sh   # all 1000 cubes, both
#   OUT=/tmp/ip bash benches/inference_precision.sh > benches/results/inference-precision-<cpu>-<date>.txt
#
# Every solve writes under $OUT (default: a fresh temporary folder), never
# into the run.
set -euo pipefail
cd "$(dirname "$0")/.."
RUN=${RUN:-runs/cube3-q-long}
WIDTHS=${WIDTHS:-10 12}
LOW=${LOW:-bf16}
for m in $LOW; do
  case "$m" in bf16 | int8) ;; *) echo "LOW must list bf16 and/or int8, not '$LOW'" >&2; exit 2 ;; esac
done
CUBES=${CUBES:-100}
case "$CUBES" in 100 | 1000) ;; *) echo "CUBES must be 100 or 1000, not '$CUBES'" >&2; exit 2 ;; esac
per_half=$((CUBES / 2))
SOLVE=${SOLVE:-target/release/solve}
OUT=${OUT:-$(mktemp -d)}
[ -x "$SOLVE" ] || cargo build --release --bin solve
mkdir -p "$OUT"
tsv=data/cube3-deepcubea-test-1000.tsv
(head -1 $tsv; sed -n "2,$((per_half + 1))p" $tsv) > "$OUT/a.tsv"
(head -1 $tsv; sed -n "$((per_half + 2)),$((CUBES + 1))p" $tsv) > "$OUT/b.tsv"
lows=($LOW)
reversed=()
for ((i = ${#lows[@]} - 1; i >= 0; i--)); do reversed+=("${lows[$i]}"); done

echo "# solve --matmul f32 | ${LOW// / | }: $RUN on the first $CUBES DeepCubeA cubes, --jobs 1, widths 2^{${WIDTHS// /,}}"
echo "# $(date -u +%Y-%m-%dT%H:%MZ), git $(git rev-parse --short HEAD 2>/dev/null || echo '?') (with uncommitted changes: $(git status --porcelain 2>/dev/null | grep -c . || true) files)"
grep -m1 'model name' /proc/cpuinfo
grep -m1 '^cpu family' /proc/cpuinfo
grep -m1 '^model[[:space:]]*:' /proc/cpuinfo
flags=$(grep -m1 '^flags' /proc/cpuinfo)
for f in avx512f avx512_bf16 amx_bf16 amx_tile; do
  if grep -qw "$f" <<<"$flags"; then echo "# cpu flag $f: yes"; else echo "# cpu flag $f: no"; fi
done
echo "# logical cores: $(nproc), RAYON_NUM_THREADS=${RAYON_NUM_THREADS:-unset}, CUBE_ORACLE_BF16_KERNEL=${CUBE_ORACLE_BF16_KERNEL:-unset}"
echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"

for k in $WIDTHS; do
  steps=("f32 a")
  for m in "${lows[@]}"; do steps+=("$m a"); done
  for m in "${reversed[@]}"; do steps+=("$m b"); done
  steps+=("f32 b")
  for step in "${steps[@]}"; do
    set -- $step
    m=$1 half=$2
    label=w$k-$m-$half
    start=$(date +%s.%N)
    "$SOLVE" beam --run "$RUN" --testset "$OUT/$half.tsv" --beam-log2 "$k" --matmul "$m" --jobs 1 \
      --out "$OUT" --label "$label" --overwrite 2> "$OUT/$label.err" > "$OUT/$label.out"
    end=$(date +%s.%N)
    kernel=$(grep -m1 -E '^(bf16|int8) products on' "$OUT/$label.err" || echo "f32 products")
    printf '# ran %-14s %7.1f s wall, load %s; %s\n' "$label" "$(echo "$end - $start" | bc)" \
      "$(cut -d' ' -f1 /proc/loadavg)" "$kernel"
  done
done

python3 - "$OUT" "$LOW" $WIDTHS <<'EOF'
import csv, math, sys
out, lows, widths = sys.argv[1], sys.argv[2].split(), [int(k) for k in sys.argv[3:]]

def rows(label):
    return list(csv.DictReader(open(f"{out}/{label}/instances.csv")))

def summary(label):
    return next(csv.DictReader(open(f"{out}/{label}/summary.csv")))

def mean_ci(xs):
    n = len(xs)
    m = sum(xs) / n
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1)) if n > 1 else float("nan")
    return m, 1.96 * sd / math.sqrt(n)

print()
print("width  matmul  n    s/search  (half A, half B)   solved%  mean length  95% CI          optimal%  summary matmul")
per = {}
for k in widths:
    for m in ["f32"] + lows:
        rs, halves, tags = [], [], set()
        for h in ("a", "b"):
            label = f"w{k}-{m}-{h}"
            rs += rows(label)
            s = summary(label)
            halves.append(float(s["mean_elapsed_s"]))
            tags.add(s.get("matmul", "?"))
        n = len(rs)
        secs = sum(halves) / 2  # equal halves: the mean over all searches
        solved = [r for r in rs if r["status"] == "solved"]
        lens = [float(r["length"]) for r in solved]
        opt = [r for r in solved if r["optimal"] and int(r["length"]) == int(r["optimal"])]
        mean, ci = mean_ci(lens)
        per[(k, m)] = {r["id"]: r for r in rs}
        print(f"2^{k:<4} {m:<6} {n:<4} {secs:8.3f}  ({halves[0]:.3f}, {halves[1]:.3f})   "
              f"{100 * len(solved) / n:6.1f}  {mean:11.3f}  [{mean - ci:.3f}, {mean + ci:.3f}]  "
              f"{100 * len(opt) / n:7.1f}  {','.join(sorted(tags))}")
print()
print(f"width  matmul  time / f32  paired length difference - f32 (95% CI)  same length  same solution")
for k, low in [(k, low) for k in widths for low in lows]:
    a, b = per[(k, "f32")], per[(k, low)]
    ids = sorted(set(a) & set(b), key=int)
    both = [i for i in ids if a[i]["status"] == "solved" and b[i]["status"] == "solved"]
    d = [float(b[i]["length"]) - float(a[i]["length"]) for i in both]
    m, ci = mean_ci(d)
    same_len = sum(1 for x in d if x == 0)
    same_sol = sum(1 for i in both if a[i]["solution"] == b[i]["solution"])
    ta = sum(float(a[i]["elapsed_ms"]) for i in ids)
    tb = sum(float(b[i]["elapsed_ms"]) for i in ids)
    print(f"2^{k:<4} {low:<6} {tb / ta:11.3f}  {m:+.3f} [{m - ci:+.3f}, {m + ci:+.3f}] over {len(both)} cubes"
          f"{'':14}{same_len:>3}/{len(both)}      {same_sol:>3}/{len(both)}")
EOF
