#!/usr/bin/env bash
# device_benchmarks.sh DEPS_PREFIX [BASE_TREE] — the benchmarks bench/RESULTS.md reports, in one
# run on the device machine, logs under $OUT (at most 8 files come back). PARTS (default
# "kernel cpu batch") picks what runs; PARTS=batch alone fits one device call (~7 minutes on a
# 32-core 2-GPU host, build included):
#   kernel.log     gpublur_bench (4K and 8K, 7x7 and 31x31, 1/3/4 channels), two rounds, alternating
#                  with BASE_TREE's gpublur_bench when given (a tree of an earlier commit, built here)
#   cpu_blur.log   the CPU blur on 1 and all cores
#   batch.md       bench/photo_batch.py on crops of real photographs (.carry/photos, from
#                  bench/fetch_photos.sh, carried): 16/200/2000/10000 1080p JPEG, 400 4K JPEG,
#                  20 8K PPM (31x31), 400 1080p PNG, against the one-process-per-core OpenCV pool
#                  and torchvision, with nvJPEG's ceiling; batch-raw.log every run's command and times.
#                  BATCH_BUDGET (default 400 s): no row starts after it (n/a), so the call ends in time;
#                  BATCH_ARGS: more photo_batch.py options (e.g. --quick, or --sections hd); PYTHON:
#                  the Python with cv2 (and torch, for the torchvision rows; default python3).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
prefix=$1
base=${2:-}
parts=${PARTS:-kernel cpu batch}
out=${OUT:-build/device-benchmarks}
mkdir -p "$out"
has() { [[ " $parts " == *" $1 "* ]]; }
export LD_LIBRARY_PATH="$prefix/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
date -u
targets=(gpublur)
has kernel && targets+=(gpublur_bench)
has cpu && targets+=(gpublur_cpu_blur_bench)
cmake -S . -B build/device -DCMAKE_BUILD_TYPE=Release -DGPUBLUR_BENCH=ON -DCMAKE_PREFIX_PATH="$prefix" >/dev/null &&
  cmake --build build/device -j "$(nproc)" --target "${targets[@]}" \
    >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
if has kernel; then
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
fi
has cpu && build/device/gpublur_cpu_blur_bench 5 >"$out/cpu_blur.log" 2>&1
if has batch; then
  [ -d .carry/photos ] || bash bench/fetch_photos.sh || echo "no photographs: run bench/fetch_photos.sh and carry .carry/photos"
  # shellcheck disable=SC2086  # BATCH_ARGS is a list of options
  PYTHONUNBUFFERED=1 "${PYTHON:-python3}" bench/photo_batch.py build/device/gpublur /tmp/photo-batch \
    --budget "${BATCH_BUDGET:-400}" --log "$out/batch-raw.log" ${BATCH_ARGS:-} >"$out/batch.md" 2>"$out/batch.err"
  cat "$out/batch.err" >&2
  tail -c 9000 "$out/batch.md"
fi
