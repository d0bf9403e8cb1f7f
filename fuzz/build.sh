#!/usr/bin/env bash
# build.sh [OUT] — builds the libFuzzer targets (fuzz_decoder.cpp once per decoder, the whole read
# path, kernel cache entries) with clang's AddressSanitizer and UndefinedBehaviorSanitizer into OUT
# (default build/fuzz). Needs Debian's clang-14 and libclang-rt-14-dev (scripts/install-deps.sh
# --fuzz) beside gpublur's own dependencies.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-build/fuzz}
mkdir -p "$out/obj"
cxx=${CXX_FUZZ:-clang++-14}
flags=(-std=c++17 -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined
  -fno-sanitize-recover=undefined -Isrc -Ikernels -I"${CUDA_HOME:-/usr/local/cuda}/include"
  -DGPUBLUR_CUDA_MAJOR=13 -DGPUBLUR_VERSION=\"fuzz\")
sources=(image image_format image_decode image_encode decode_limits stop_signals png_decode png_encode jpeg_codec
  jpeg_markers
  tiff_directory exif_tiff
  webp_codec tiff_codec gif_decode bmp_codec tga_codec pnm_codec hdr_codec psd_decode atomic_file
  kernel_cache sha256 arch nvrtc nvrtc_program dynamic_library)
objects=()
jobs=$(nproc)
for s in "${sources[@]}"; do
  obj="$out/obj/$s.o"
  if [ ! -f "$obj" ] || [ "src/$s.cpp" -nt "$obj" ] || [ -n "$(find src kernels -name '*.h*' -newer "$obj")" ]; then
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
    "$cxx" "${flags[@]}" -fsanitize=fuzzer-no-link -c "src/$s.cpp" -o "$obj" &
  fi
  objects+=("$obj")
done
while [ "$(jobs -rp | wc -l)" -gt 0 ]; do wait -n || exit 1; done
libs=(-llodepng -ldeflate -ljpeg -lwebpmux -lwebpdemux -lwebp -ltiff -lgif -lnettle -ldl)
for target in png jpeg webp tiff gif bmp tga pnm hdr psd read cache exif; do
  if [ ! -x "$out/fuzz_$target" ] || [ fuzz/fuzz_decoder.cpp -nt "$out/fuzz_$target" ] ||
     [ -n "$(find "$out/obj" -newer "$out/fuzz_$target" -name '*.o')" ]; then
    "$cxx" "${flags[@]}" -fsanitize=fuzzer "-DGB_FUZZ_TARGET=$target" fuzz/fuzz_decoder.cpp "${objects[@]}" \
      "${libs[@]}" -o "$out/fuzz_$target"
  fi
done
echo "fuzz targets in $out"
