#!/usr/bin/env bash
# Builds the GPU binaries on this (x86-64) machine and packs what
# benches/gpu/device.sh needs on a GPU machine without a Rust toolchain or
# network access:
#   bash benches/gpu/pack.sh          .gpubin/bins.tar.xz: train, solve, study,
#                                     gpu_throughput (burn vulkan), stripped
#   bash benches/gpu/pack.sh fusion   .gpubin/bins.tar.xz: train-fusion,
#                                     gpu_throughput-fusion (vulkan + fusion)
#   BINS="study solve" bash benches/gpu/pack.sh   only the binaries named
#   BINS="solve lib-tests inference train_throughput" ...   with the host's CPU
#                                     checks (benches/gpu/period.sh's CPU_BENCH)
#   and .gl/*.deb: the Vulkan loader (libvulkan1) and vulkaninfo.
# One variant at a time keeps the copy small: the four plain binaries pack
# to about 50 MiB, study and solve alone to about 30 MiB. Copy the checkout with
# .gpubin/ and .gl/ to the GPU machine; device.sh unpacks whatever .gpubin
# holds into the same folder there, so the other variant can be copied over
# later and both coexist. Both folders are git-ignored through
# .git/info/exclude.
set -euo pipefail
cd "$(dirname "$0")/../.."
exclude=$(git rev-parse --git-path info/exclude) && mkdir -p "$(dirname "$exclude")"
for d in .gpubin .gl; do grep -qx "/$d/" "$exclude" 2>/dev/null || echo "/$d/" >>"$exclude"; done
stage=target/gpubin && rm -rf "$stage" && mkdir -p "$stage" .gpubin .gl

bench_exe() { # the newest gpu_throughput bench executable
  ls -t target/release/deps/gpu_throughput-* | grep -v '\.d$' | head -n 1
}
if [ "${1:-plain}" = fusion ]; then
  cargo build --release --features gpu-fusion --bin train --bench gpu_throughput
  cp "$(bench_exe)" "$stage/gpu_throughput-fusion"
  cp target/release/train "$stage/train-fusion"
else
  cargo build --release --features gpu --bin train --bin solve --bin study --bench gpu_throughput
  cp target/release/train target/release/solve target/release/study "$stage/"
  cp "$(bench_exe)" "$stage/gpu_throughput"
  # CPU checks for the GPU machine's host, only when named in BINS:
  # lib-tests (the library's unit tests), inference and train_throughput
  # (benches/inference_vs_pytorch.sh's side and the `--peak` figures).
  for b in inference train_throughput; do
    if [[ " ${BINS:-} " == *" $b "* ]]; then
      cargo build --release --features gpu --bench "$b"
      cp "$(ls -t target/release/deps/"$b"-* | grep -v '\.d$' | head -n 1)" "$stage/$b"
    fi
  done
  if [[ " ${BINS:-} " == *" lib-tests "* ]]; then
    exe=$(cargo test --release --features gpu --lib --no-run --message-format=json 2>/dev/null \
      | python3 -c 'import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("profile", {}).get("test") and m.get("executable"):
        print(m["executable"])' | tail -n 1)
    cp "$exe" "$stage/lib-tests"
  fi
  if [ -n "${BINS:-}" ]; then # only these, e.g. BINS="study solve" for a study period
    for f in "$stage"/*; do [[ " $BINS " == *" $(basename "$f") "* ]] || rm "$f"; done
  fi
fi
strip "$stage"/*
tar -cJf .gpubin/bins.tar.xz -C "$stage" .
ls -la "$stage" .gpubin

if ! ls .gl/libvulkan1_*.deb >/dev/null 2>&1; then
  o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
  mkdir -p /tmp/amd64/partial
  apt-get $o update >/dev/null
  (cd .gl && apt-get $o download libvulkan1 vulkan-tools)
fi
