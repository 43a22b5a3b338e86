#!/usr/bin/env bash
# The width law of a run on DeepCubeA's cubes: one solve folder per width
# and piece of the cubes, each a separate `solve` that is skipped once its
# folder is finished; a killed piece is kept as <label>.interrupted and run
# again. Then the merged table and fit.
#
#   bash benches/width_law.sh                   # reference v2 (runs/cube3-q-long), widths 2^13..2^18, first 100 cubes
#   RUN=runs/reference-cube3 FROM=10 TO=14 bash benches/width_law.sh
#   SET=deepcubea FROM=13 TO=14 bash benches/width_law.sh     # all 1000 cubes, in pieces of 100
#   PYTHON=target/nbenv/bin/python bash benches/width_law.sh   # with the figure (matplotlib)
#   JOBS=2 bash benches/width_law.sh            # two cubes at a time, one thread each
#   MERGE=0 bash benches/width_law.sh           # the pieces only, no merged table
#   PIECES=7-13 SET=deepcubea FROM=15 TO=15 bash benches/width_law.sh   # only pieces 7..13 of each width
#                                               # (two machines, or CPU and GPU, share one width)
#
# SET=deepcubea-100 (the default): the first 100 cubes, one piece per width
# up to 2^15, then 2^(k-15) pieces of consecutive cubes (a, b at 2^16; a..d
# at 2^17; a..h at 2^18). Widths up to 2^12 on these cubes come from the
# 1000-cube sweeps already in the run (their first 100 rows).
# SET=deepcubea: all 1000 cubes, ten pieces of 100 (labels
# deepcubea-p0-w13 .. deepcubea-p9-w13), twice as many per doubling from
# 2^15 on; from 2^16 on, the first tenth of them (cubes 0..99) are not
# solved again where the 100-cube set's pieces of that width are finished.
# `benches/width_law.py` merges everything. One search at 2^15
# takes about 30 s on one Zen 4 core, and doubles with each width: run it
# with `nice` in the background.
# Finished pieces are kept as merged tables (benches/merge_pieces.py; reference
# v2's 2^13..2^18 are runs/cube3-q-long/solve/deepcubea-w13..18/): a piece
# that a merged folder's provenance.csv lists counts as finished and is not
# searched again, and the merge below reads the merged folder's rows.
set -euo pipefail
cd "$(dirname "$0")/.."
RUN=${RUN:-runs/cube3-q-long}
FROM=${FROM:-13}
TO=${TO:-18}
SET=${SET:-deepcubea-100}
SOLVE=${SOLVE:-target/release/solve}
JOBS=${JOBS:-1}
PIECES=${PIECES:-0-1023}
[[ "$PIECES" =~ ^([0-9]+)-([0-9]+)$ ]] || { echo "PIECES must be first-last piece indices, like 7-13, not '$PIECES'" >&2; exit 2; }
first_piece=${BASH_REMATCH[1]} last_piece=${BASH_REMATCH[2]}
case "$SET" in
  deepcubea-100) cubes=100 ;;
  deepcubea) cubes=1000 ;;
  *) echo "SET must be deepcubea-100 or deepcubea, not '$SET'" >&2; exit 2 ;;
esac
[ -x "$SOLVE" ] || cargo build --release --bin solve
sets=$(mktemp -d)
trap 'rm -rf "$sets"' EXIT
tsv=data/cube3-deepcubea-test-1000.tsv
letters=(a b c d e f g h)
finished() { # finished <label>: its folder is complete, or a merged folder holds its rows
  grep -qx 'state = complete' "$RUN/solve/$1/.cube-oracle-output" 2>/dev/null && return 0
  local p
  for p in "$RUN"/solve/*/provenance.csv; do
    [ -f "$p" ] && awk -F, -v label="$1" '$1 == label { found = 1 } END { exit !found }' "$p" && return 0
  done
  return 1
}
piece_set() { # piece_set <pieces> <index> -> path of a TSV with that piece's cubes
  local n=$1 i=$2 from to
  from=$((i * cubes / n + 2))
  to=$(((i + 1) * cubes / n + 1))
  local out="$sets/$SET-$n-$i.tsv"
  (head -1 $tsv; sed -n "${from},${to}p" $tsv) > "$out"
  echo "$out"
}

for k in $(seq "$FROM" "$TO"); do
  if [ "$SET" = deepcubea ]; then
    n=$((k < 15 ? 10 : 10 << (k - 14)))
    # From 2^16 on, the first tenth of the pieces are cubes 0..99: skipped
    # when the 100-cube set's pieces of this width (deepcubea-100a-w16 ..)
    # are all finished, which the merge below then takes instead.
    skip=0
    if [ "$k" -ge 16 ]; then
      skip=$((n / 10))
      for ((j = 0; j < 1 << (k - 15); j++)); do finished "deepcubea-100${letters[$j]}-w$k" || skip=0; done
    fi
    for ((i = first_piece < skip ? skip : first_piece; i < n && i <= last_piece; i++)); do
      label=deepcubea-p$i-w$k
      finished "$label" || "$SOLVE" --run "$RUN" --testset "$(piece_set "$n" "$i")" --beam-log2 "$k" --jobs "$JOBS" --label "$label"
    done
  elif [ "$k" -lt 16 ]; then
    label=deepcubea-100-w$k
    finished "$label" || "$SOLVE" --run "$RUN" --testset deepcubea-100 --beam-log2 "$k" --jobs "$JOBS" --label "$label"
  else
    n=$((1 << (k - 15)))
    for ((i = first_piece; i < n && i <= last_piece; i++)); do
      label=deepcubea-100${letters[$i]}-w$k
      finished "$label" || "$SOLVE" --run "$RUN" --testset "$(piece_set "$n" "$i")" --beam-log2 "$k" --jobs "$JOBS" --label "$label"
    done
  fi
done
# MERGE=0 stops here (the pieces only, merged later on another machine).
[ "${MERGE:-1}" = 0 ] && exit 0
# Every finished plain sweep of the run for the set (no -nodedup or -sym
# variants): the 1000-cube sweeps, merged pieces (deepcubea-w13..18) and
# the set's own pieces not merged yet.
if [ "$SET" = deepcubea ]; then
  globs=("$RUN"/solve/deepcubea-w* "$RUN"/solve/deepcubea-p*-w* "$RUN"/solve/deepcubea-100[a-h]-w*)
  ids=0..999
else
  globs=("$RUN"/solve/deepcubea-w* "$RUN"/solve/deepcubea-100-w* "$RUN"/solve/deepcubea-100[a-h]-w*)
  ids=0..99
fi
pieces=()
for dir in "${globs[@]}"; do
  name=$(basename "$dir")
  case "$name" in *nodedup* | *-sym* | *.interrupted*) continue ;; esac
  if [ -f "$dir/.cube-oracle-output" ] && ! finished "$name"; then continue; fi
  [ -f "$dir/instances.csv" ] && pieces+=("$dir")
done
# With matplotlib (the notebooks' environment), also the figure beside the CSV.
PY=${PYTHON:-python3}
plot=()
if "$PY" -c 'import matplotlib' 2>/dev/null; then plot=(--plot "$RUN/solve/width-law-$SET"); fi
"$PY" benches/width_law.py --ids "$ids" --fit-from 10 --csv "$RUN/solve/width-law-$SET.csv" "${plot[@]}" "${pieces[@]}"
