#!/usr/bin/env bash
# build.sh [OUT] — builds the libFuzzer binary (fuzz/CMakeLists.txt: fuzz_decoder.cpp) with clang's
# AddressSanitizer and UndefinedBehaviorSanitizer, linking the codecs' library, and links a name
# for each of its targets (every decoder of the codecs' registry, the whole read path, kernel
# cache entries, EXIF into TIFF: `fuzz_decoder --targets`) into OUT (default build/fuzz):
# OUT/fuzz_png fuzzes the PNG decoder.
# Needs Debian's clang-14 and libclang-rt-14-dev (scripts/install-deps.sh --test) beside gpublur's
# own dependencies.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-build/fuzz}
cxx=${CXX_FUZZ:-clang++-14}
cmake -S . -B "$out/cmake" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" -DGPUBLUR_FUZZ=ON -DBUILD_TESTING=OFF \
  --compile-no-warning-as-error >/dev/null
cmake --build "$out/cmake" -j "$(nproc)" --target fuzz_decoder >/dev/null
for t in $("$out/cmake/fuzz_decoder" --targets); do ln -sfn cmake/fuzz_decoder "$out/fuzz_$t"; done
echo "fuzz targets in $out"
