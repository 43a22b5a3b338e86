#!/usr/bin/env bash
# Parberry's real-time algorithm (`solve parberry`) on seeded
# random boards for n = 3 … 100, and on the benchmark sets whose optimal
# lengths are known; prints the Markdown tables of docs/parberry.md.
#
# Usage, from the repository root after `cargo build --release`:
#   benches/parberry.sh [scratch-dir] | tee benches/results/parberry-2026-11-23.txt
# Every solution is replayed by `solve` before it is written; the time is
# the algorithm's own (`elapsed_ms`), without the replay and the CSV.
set -euo pipefail

BIN=./target/release/solve
OUT=${1:-$(mktemp -d)}
SEED=2026

# Column `$2` of the one data row of CSV file `$1`.
col() { awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next } { print $c }' "$1"; }

echo "# benches/parberry.sh, seed $SEED, $(date -u +%Y-%m-%d)"
echo "# $(lscpu | grep -m1 'Model name' | sed 's/  */ /g'), $(nproc) cores"
echo
echo "| n | boards | mean moves | max moves | bound 5n³ | max / bound | moves / n³ | (mean − 8n³/3) / n² | mean Manhattan | moves / Manhattan | ms / board |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for n in 3 4 5 6 7 8 9 10 15 20 30 50 70 100; do
    if ((n <= 10)); then count=100; elif ((n <= 20)); then count=50; elif ((n <= 30)); then count=20; else count=5; fi
    "$BIN" parberry --puzzle "puzzle$((n * n - 1))" --random "$count" --seed "$SEED" \
        --out "$OUT" --label "random-n$n" --overwrite >/dev/null
    s="$OUT/random-n$n/summary.csv"
    awk -v n="$n" -v k="$count" -v mean="$(col "$s" mean_length)" -v max="$(col "$s" max_length)" \
        -v bound="$(col "$s" bound)" -v man="$(col "$s" mean_manhattan)" -v ratio="$(col "$s" mean_ratio_to_manhattan)" \
        -v secs="$(col "$s" mean_elapsed_s)" 'BEGIN {
            n3 = n * n * n
            printf "| %d | %d | %.1f | %d | %d | %.3f | %.3f | %.2f | %.1f | %.3f | %.3f |\n",
                n, k, mean, max, bound, max / bound, mean / n3, (mean - 8 * n3 / 3) / (n * n), man, ratio, secs * 1000
        }'
done

echo
echo "| set | puzzle (goal) | boards | mean moves | mean optimal | moves / optimal | moves / Manhattan | ms / board |"
echo "|---|---|---:|---:|---:|---:|---:|---:|"
for spec in korf100:puzzle15 deepcubea15:puzzle15 korf50:puzzle24 deepcubea24:puzzle24; do
    set=${spec%%:*}
    puzzle=${spec##*:}
    "$BIN" parberry --puzzle "$puzzle" --testset "$set" --out "$OUT" --label "$set" --overwrite >/dev/null
    s="$OUT/$set/summary.csv"
    awk -v set="$set" -v puzzle="$(col "$s" puzzle)" -v k="$(col "$s" instances)" -v mean="$(col "$s" mean_length)" \
        -v excess="$(col "$s" mean_excess)" -v opt="$(col "$s" mean_ratio_to_optimal)" \
        -v ratio="$(col "$s" mean_ratio_to_manhattan)" -v secs="$(col "$s" mean_elapsed_s)" 'BEGIN {
            printf "| %s | %s | %d | %.2f | %.2f | %.3f | %.3f | %.3f |\n",
                set, puzzle, k, mean, mean - excess, opt, ratio, secs * 1000
        }'
done

echo
echo "Far boards: every tile on the half-turn image of its goal cell (tiles 1 and 2 swapped where that is unsolvable)."
echo
echo "| n | Manhattan | moves | bound 5n³ | moves / bound | moves / n³ | moves / Manhattan |"
echo "|---:|---:|---:|---:|---:|---:|---:|"
for n in 3 4 5 10 20 30 50 100; do
    for swap in 0 1; do
        board=$(awk -v n="$n" -v swap="$swap" 'BEGIN {
            N = n * n
            for (c = 0; c < N; c++) { t = (c == 0) ? 0 : N - c; if (swap && t == 1) t = 2; else if (swap && t == 2) t = 1
                printf "%s%d", (c == 0 ? "" : (c % n == 0 ? " / " : " ")), t }
        }')
        if "$BIN" parberry --puzzle "puzzle$((n * n - 1))" --board "$board" \
            --out "$OUT" --label "far-n$n" --overwrite >/dev/null 2>&1; then
            break
        fi
    done
    i="$OUT/far-n$n/instances.csv"
    awk -v n="$n" -v man="$(col "$i" manhattan)" -v len="$(col "$i" length)" -v bound="$(col "$i" bound)" 'BEGIN {
        printf "| %d | %d | %d | %d | %.3f | %.3f | %.3f |\n", n, man, len, bound, len / bound, len / (n * n * n), len / man
    }'
done
