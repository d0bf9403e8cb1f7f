#!/usr/bin/env bash
# build.sh [OUT] — builds the libFuzzer targets (fuzz/CMakeLists.txt: fuzz_decoder.cpp once per
# decoder, the whole read path, kernel cache entries, EXIF into TIFF) with clang's AddressSanitizer
# and UndefinedBehaviorSanitizer, each linking the codecs' library, into OUT (default build/fuzz).
# Needs Debian's clang-14 and libclang-rt-14-dev (scripts/install-deps.sh --test) beside gpublur's
# own dependencies.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-build/fuzz}
cxx=${CXX_FUZZ:-clang++-14}
targets=(png jpeg webp tiff gif bmp tga pnm hdr psd read cache exif)
cmake -S . -B "$out/cmake" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" -DGPUBLUR_FUZZ=ON -DBUILD_TESTING=OFF \
  --compile-no-warning-as-error >/dev/null
cmake --build "$out/cmake" -j "$(nproc)" --target "${targets[@]/#/fuzz_}" >/dev/null
for t in "${targets[@]}"; do ln -sfn "cmake/fuzz_$t" "$out/fuzz_$t"; done
echo "fuzz targets in $out"
