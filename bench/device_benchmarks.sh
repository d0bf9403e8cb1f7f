#!/usr/bin/env bash
# device_benchmarks.sh DEPS_PREFIX [BASE_TREE] — the benchmarks bench/RESULTS.md reports, in one
# run on the device machine, logs under $OUT (at most 8 files come back):
#   kernel.log   gpublur_bench (4K and 8K, 7x7 and 31x31, 1/3/4 channels), two rounds, alternating
#                with BASE_TREE's gpublur_bench when given (a tree of an earlier commit, built here)
#   cpu_blur.log the CPU blur on 1 and all cores
#   batch.log    bench/batch_bench.py: 500 1080p and 100 4K photos, PNG and JPEG, against a
#                16-process OpenCV pool; peak RSS for 200 and 2000 files; 4 --shard tasks vs one
set -uo pipefail
cd "$(dirname "$0")/.."
prefix=$1
base=${2:-}
out=${OUT:-build/device-benchmarks}
mkdir -p "$out"
export LD_LIBRARY_PATH="$prefix/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
date -u
cmake -S . -B build/device -DCMAKE_BUILD_TYPE=Release -DGPUBLUR_BENCH=ON -DCMAKE_PREFIX_PATH="$prefix" >/dev/null &&
  cmake --build build/device -j "$(nproc)" --target gpublur gpublur_bench gpublur_cpu_blur_bench \
    >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
benches=(build/device/gpublur_bench)
if [ -n "$base" ]; then
  if [ ! -x "$base/build/gpublur_bench" ]; then
    (cd "$base" && cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DGPUBLUR_BENCH=ON -DCMAKE_PREFIX_PATH="$prefix" >/dev/null &&
      cmake --build build -j "$(nproc)" --target gpublur_bench >/dev/null) || echo "base build failed"
  fi
  benches+=("$base/build/gpublur_bench")
fi
for round in 1 2; do
  for bench in "${benches[@]}"; do
    echo "== $bench, round $round"
    "$bench" --sizes 4k,8k --ksizes 7,31 --channels 1,3,4 --iters 20 --naive-max 0
  done
done >"$out/kernel.log" 2>&1
build/device/gpublur_cpu_blur_bench 5 >"$out/cpu_blur.log" 2>&1
PYTHONUNBUFFERED=1 python3 bench/batch_bench.py build/device/gpublur /tmp/batch-bench --hd 500 --uhd 100 \
  --rounds 2 --rss 200,2000 --shards 4 >"$out/batch.log" 2>&1
tail -40 "$out/batch.log"
