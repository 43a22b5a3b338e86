#!/usr/bin/env bash
# A round of hostile inputs: each attempt must end within 60 s with exit 0
# or a one-line error, no panic, no debug formatting.
# Usage: bash benches/hostile_round.sh [WORKDIR]  (binaries from target/release, built first)
R=$(cd "$(dirname "$0")/.." && pwd); B=${BIN:-$R/target/release}
W=${1:-$(mktemp -d)}; mkdir -p "$W" && cd "$W" && rm -rf ./*
n=0; bad=0
try() { # name, expect(ok|err), command...
  local name=$1 expect=$2; shift 2; n=$((n+1))
  out=$(timeout 60 nice -n 5 "$@" 2>&1 >/dev/null); rc=$?
  local why=""
  [ $rc -eq 124 ] && why="hang"
  echo "$out" | grep -q "panicked" && why="panic"
  echo "$out" | grep -Eq 'Some\(|Custom \{|Os \{|IoError\(|kind: ' && why="debug text"
  [ "$expect" = err ] && [ $rc -eq 0 ] && why="accepted"
  [ "$expect" = ok ] && [ $rc -ne 0 ] && why="refused"
  [ "$expect" = err ] && [ $rc -ne 0 ] && [ $(echo "$out" | grep -c '^error') -ne 1 ] && why="not one error line"
  if [ -n "$why" ]; then bad=$((bad+1)); echo "FAIL [$why] $name: rc=$rc: $(echo "$out" | tail -2)"; fi
}
cp $R/configs/smoke.toml . ; $B/train --config smoke.toml --no-progress >/dev/null 2>&1
mkfifo p.toml p.tsv p.ckpt p.lay; ln -s /dev/zero z.toml; ln -s p.tsv link.tsv; mkdir d.toml d.tsv
for f in p.toml z.toml d.toml /dev/null /dev/zero /dev/urandom; do
  try "train --config $f" err $B/train --config $f
  try "study --config $f" err $B/study --config $f --list
  try "train --export --config?" err $B/train --config $f --no-progress
done
for f in p.tsv link.tsv d.tsv /dev/zero /dev/null; do
  try "solve --testset $f" err $B/solve --run runs/smoke --testset $f --beam-log2 2 --out o1
  try "classical --testset $f" err $B/solve classical idastar --puzzle puzzle8 --testset $f --out o2
done
for f in p.ckpt /dev/zero /dev/null d.toml z.toml; do
  try "solve --checkpoint $f" err $B/solve --run runs/smoke --random 1 --beam-log2 2 --checkpoint $f --out o3
done
for f in p.lay /dev/zero d.toml; do try "play --layout $f" err $B/play --game pacman --layout $f --depth 2; done
# study bases and test sets that are not files
for base in p.toml z.toml d.toml /dev/zero; do
  printf '[study]\nname = "s"\nbase = "%s"\nhidden = [[8]]\nsamples = [1000]\n\n[eval]\nrandom = 1\nbeam_log2 = [2]\n' $PWD/$base > sb.toml
  try "study base $base" err $B/study --config sb.toml --list
done
for t in p.tsv /dev/zero d.tsv; do
  printf '[study]\nname = "s"\nbase = "%s"\nhidden = [[8]]\nsamples = [1000]\n\n[eval]\ntestset = "%s"\nbeam_log2 = [2]\n' $R/configs/smoke.toml $t > st.toml
  try "study testset $t" err $B/study --config st.toml --list
done
# resume with run files replaced
sed 's/^steps = 40$/steps = 60/' smoke.toml > more.toml
for f in metrics.csv eval.csv kl.csv meta.json config.toml; do
  rm -rf w && mkdir w && cp -r runs w/ && cd w
  mv runs/smoke/$f "$W"/keep; mkfifo runs/smoke/$f
  try "resume with FIFO $f" err $B/train --config ../more.toml --resume --no-progress
  rm runs/smoke/$f; ln -s /dev/zero runs/smoke/$f
  try "resume with /dev/zero $f" err $B/train --config ../more.toml --resume --no-progress
  cd "$W"
done
# env vars
for v in CUBE_ORACLE_F32_KERNEL CUBE_ORACLE_BF16_KERNEL CUBE_ORACLE_INT8_KERNEL; do
  for val in turbo "" AVX2 amx512; do
    try "train $v=$val" err env $v="$val" $B/train --config smoke.toml --no-progress --overwrite
    try "solve $v=$val" err env $v="$val" $B/solve --run runs/smoke --random 1 --beam-log2 2 --out o4
  done
done
try "train F32=avx2 (valid)" ok env CUBE_ORACLE_F32_KERNEL=avx2 $B/solve --run runs/smoke --random 1 --beam-log2 2 --out o5
# memory
for k in 22 23 24; do for j in 1 2 8; do
  n=$((n+1)); out=$(timeout 60 $B/solve --run runs/smoke --random 8 --beam-log2 $k --jobs $j --out o6 --max-depth 2 2>&1 >/dev/null); rc=$?
  [ $rc -eq 124 ] || [ $rc -gt 128 ] && { bad=$((bad+1)); echo "FAIL [hang/abort] width 2^$k jobs $j rc=$rc"; }
  echo "$out" | grep -q panicked && { bad=$((bad+1)); echo "FAIL panic 2^$k"; }
done; done
# overwrite: user folders that look like solve's
for kind in analysis plotsonly emptycsv symlink file; do
  rm -rf ov && mkdir ov
  case $kind in
    analysis) mkdir ov/x; echo a > ov/x/summary.csv; echo b > ov/x/mine.csv; echo c > ov/x/f.png;;
    plotsonly) mkdir -p ov/x/plots; echo c > ov/x/plots/a.svg;;
    emptycsv) mkdir ov/x; : > ov/x/summary.csv;;
    symlink) mkdir ov/t; echo k > ov/t/k; ln -s t ov/x;;
    file) echo f > ov/x;;
  esac
  before=$(find ov -type f -exec md5sum {} + | sort)
  try "solve --overwrite onto $kind" err $B/solve --run runs/smoke --random 1 --beam-log2 2 --out ov --label x --overwrite
  try "classical --overwrite onto $kind" err $B/solve classical idastar --puzzle puzzle8 --random 1 --out ov --label x --overwrite
  after=$(find ov -type f -exec md5sum {} + | sort)
  n=$((n+1)); [ "$before" = "$after" ] || { bad=$((bad+1)); echo "FAIL [data loss] overwrite $kind changed files"; }
done
# study folder scenarios
S=$R/configs/cube2-reference.toml
mk() { printf '[study]\nname = "s"\nbase = "%s"\nout_dir = "%s"\nhidden = [[8]]\nsamples = [240000]\n\n[eval]\nrandom = 4\nseed = 1\nbeam_log2 = [3]\n' $S $PWD/sd > sd.toml; }
rm -rf sd; mkdir -p sd/s; mk
for f in points.csv fit.csv forecasts.csv frontier.csv plots/frontier.svg included/x.csv; do
  mkdir -p sd/s/$(dirname $f); echo mine > sd/s/$f
  try "study with user's $f, no ledger" err $B/study --config sd.toml --no-progress
  try "study --fit with user's $f" err $B/study --config sd.toml --fit
  n=$((n+1)); [ "$(cat sd/s/$f)" = mine ] || { bad=$((bad+1)); echo "FAIL [data loss] $f"; }
  rm -rf sd/s/*
done
rm -rf sd; try "study trains" ok $B/study --config sd.toml --no-progress
for f in fit.csv forecasts.csv frontier.csv plots/isoflop.png plots/loss-vs-flops.svg; do
  mkdir -p sd/s/$(dirname $f); echo mine > sd/s/$f
  try "study --fit over user's $f (ledger)" err $B/study --config sd.toml --fit
  n=$((n+1)); [ "$(cat sd/s/$f)" = mine ] || { bad=$((bad+1)); echo "FAIL [data loss] ledgered $f"; }
  rm -f sd/s/$f
done
P=$(ls -d sd/s/h*/ | head -1)
cp ${P}point.csv "$W"/pt; echo "x" >> ${P}point.csv
try "study with tampered point.csv" err $B/study --config sd.toml --no-progress
n=$((n+1)); $B/study --config sd.toml --list 2>/dev/null | grep -q ",false" || { bad=$((bad+1)); echo "FAIL tampered point listed finished"; }
cp "$W"/pt ${P}point.csv
cp sd/s/.cube-oracle-study.json led; echo '{broken' > sd/s/.cube-oracle-study.json
try "study with broken ledger" err $B/study --config sd.toml --fit
rm sd/s/.cube-oracle-study.json; mkfifo sd/s/.cube-oracle-study.json
try "study with FIFO ledger" err $B/study --config sd.toml --fit
rm sd/s/.cube-oracle-study.json; cp led sd/s/.cube-oracle-study.json
rm -rf ${P}checkpoints; sed -i 's/beam_log2 = \[3\]/beam_log2 = [4]/' sd.toml
m1=$(md5sum ${P}metrics.csv)
try "reevaluate without checkpoints" err $B/study --config sd.toml --no-progress --reevaluate
rm ${P}point.csv
try "study, point.csv gone, no checkpoints" err $B/study --config sd.toml --no-progress
n=$((n+1)); [ "$m1" = "$(md5sum ${P}metrics.csv)" ] || { bad=$((bad+1)); echo "FAIL [data loss] retrained"; }
echo "attempts $n, failures $bad"
