#!/usr/bin/env bash
# scripts/device/check.sh [DEPS_PREFIX] — on a machine with an NVIDIA GPU and no package registry
# (prepare DEPS_PREFIX here with scripts/device/deps.sh, then carry .carry there):
# configure a Release build with the dependencies unpacked under DEPS_PREFIX, build, run the CTest
# suite (GPU tests included; not the Slurm and fuzz tests, which need Debian packages the device
# lacks and need no GPU), then the CLI: one sample with both targets, the general kernel's paths,
# and a batch on the GPU, on two workers of one GPU and on the CPU, byte for byte. Writes logs to
# $OUT when set.
set -uo pipefail
cd "$(dirname "$0")/../.."
prefix=${1:-}
out=${OUT:-build/device-check}
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
[ -n "$prefix" ] && export LD_LIBRARY_PATH="$prefix/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
cmake -S . -B build/device -DCMAKE_BUILD_TYPE=Release ${prefix:+-DCMAKE_PREFIX_PATH=$prefix} >"$out/configure.log" 2>&1 \
  || { tail -20 "$out/configure.log"; exit 1; }
cmake --build build/device -j "$(nproc)" >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
ctest --test-dir build/device --output-on-failure -j 4 -E 'slurm_end_to_end|fuzz_brief' 2>&1 | tee "$out/ctest.log" | tail -12
status=${PIPESTATUS[0]}
# The [gpu] binary's own summary (assertion counts), from its part of CTest's log (other tests'
# parts hold Catch summaries of forked children that a test kills on purpose).
awk '/^[0-9]+\/[0-9]+ Test: gpu_tests$/ { on = 1 } on && /^<end of output>$/ { exit } on' \
  build/device/Testing/Temporary/LastTest.log | grep -A3 'GPU tests on\|test cases:' | grep -v '^--$' | head -8
for target in cubin ptx; do
  build/device/gpublur samples/detail.png "$out/detail-$target.png" --size 7 --sigma 1.5 --target "$target" -v
done
build/device/gpublur samples/detail.png "$out/detail-cpu.png" --size 7 --sigma 1.5 --device cpu
cmp "$out/detail-cubin.png" "$out/detail-cpu.png" && cmp "$out/detail-ptx.png" "$out/detail-cpu.png" \
  && echo "CLI: cubin == ptx == cpu output, byte for byte"
# The general kernel's paths from the CLI: 16-bit, HDR, premultiplied alpha, --linear.
same=0
for args in "samples/gradient16.png g16.png" "samples/glow.hdr glow.hdr" "samples/alpha.png alpha.png" \
            "samples/edges.png linear.png --linear"; do
  set -- $args
  in=$1 name=$2
  shift 2
  build/device/gpublur "$in" "$out/gpu-$name" --size 9 --device gpu "$@" &&
    build/device/gpublur "$in" "$out/cpu-$name" --size 9 --device cpu "$@" &&
    cmp "$out/gpu-$name" "$out/cpu-$name" && same=$((same + 1))
done
echo "CLI: $same of 4 general-kernel runs (16-bit, HDR, alpha, --linear): gpu == cpu, byte for byte"
# A batch of every sample, as PNG and converted to JPEG, WebP and TIFF (a folder each): the GPU,
# two workers on one GPU (the multi-GPU scheduling) and the CPU write the same bytes.
batch=$out/batch
rm -rf "$batch" && mkdir -p "$batch/in/png"
cp samples/*.png samples/*.hdr "$batch/in/png/"
for format in jpg webp tif; do
  build/device/gpublur samples -o "$batch/in/$format" --format "$format" --size 1 -q
done
same=0
for format in "" "--format png" "--format jpg"; do
  for run in "gpu --device gpu --codec cpu" "gpu00 --device gpu --devices 0,0 --codec cpu" "cpu --device cpu"; do
    set -- $run
    name=$1
    shift
    rm -rf "$batch/$name"
    build/device/gpublur "$batch/in" -r -o "$batch/$name" --sigma 2 -q $format "$@" || echo "batch $name $format failed"
  done
  diff -r "$batch/gpu" "$batch/cpu" >/dev/null && diff -r "$batch/gpu00" "$batch/cpu" >/dev/null && same=$((same + 1))
done
echo "CLI batch of $(find "$batch/in" -type f | wc -l) files: $same of 3 output formats identical on the GPU, two workers of one GPU (--devices 0,0) and the CPU"
# The GPU's JPEG codec (nvJPEG) from the CLI: a batch of JPEGs (the samples and real photos,
# 4:4:4, 4:2:0 and gray) with a damaged one among them, with each --codec: every good file done,
# decoded and encoded by the codec asked, the damaged one refused with the CPU decoder's words,
# and the outputs within a few levels of the CPU codec's.
jpegs=$out/jpegs
rm -rf "$jpegs" && mkdir -p "$jpegs/in"
build/device/gpublur samples .deps/photos -o "$jpegs/in" --format jpg --size 1 -q --codec cpu
build/device/gpublur samples -o "$jpegs/in/420" --format jpg --jpeg-quality 85 --size 1 -q --codec cpu
head -c 3000 "$jpegs/in/astronaut.jpg" >"$jpegs/in/damaged.jpg"
for codec in gpu auto cpu; do  # auto: cpu here, a batch of far fewer than 1.6 gigapixels
  build/device/gpublur "$jpegs/in" -r -o "$jpegs/$codec" --size 7 --sigma 1.5 --codec "$codec" --json     >"$jpegs/$codec.json" 2>"$jpegs/$codec.err"
  echo "JPEG batch --codec $codec: exit $?; $(grep -c '"status": "done"' "$jpegs/$codec.json") done;" \
    "decoders: $(grep -o '"decoder": "[^"]*"' "$jpegs/$codec.json" | sort | uniq -c | tr -s ' ' | tr '\n' ';')" \
    "encoders: $(grep -o '"encoder": "[^"]*"' "$jpegs/$codec.json" | sort | uniq -c | tr -s ' ' | tr '\n' ';')"
done
grep damaged "$jpegs/gpu.err" | sed 's/^/  --codec gpu: /'
grep damaged "$jpegs/cpu.err" | sed 's/^/  --codec cpu: /'
[ "$(grep damaged "$jpegs/gpu.err")" = "$(grep damaged "$jpegs/cpu.err")" ] &&
  echo "JPEG batch: the damaged file's error is the same with --codec gpu and --codec cpu"
python3 - "$jpegs/gpu" "$jpegs/cpu" <<'PY'
import sys, pathlib, cv2, numpy as np
gpu, cpu = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
worst, means = 0, []
for f in sorted(cpu.rglob("*.jpg")):
    a = cv2.imread(str(f), cv2.IMREAD_UNCHANGED).astype(int)
    b = cv2.imread(str(gpu / f.relative_to(cpu)), cv2.IMREAD_UNCHANGED).astype(int)
    d = np.abs(a - b)
    worst, means = max(worst, int(d.max())), means + [float(d.mean())]
print("JPEG batch: --codec gpu vs --codec cpu outputs, decoded: %d files, max difference %d, "
      "mean %.3f (worst file %.3f)" % (len(means), worst, np.mean(means), max(means)))
PY
build/device/gpublur --version
exit "$status"
