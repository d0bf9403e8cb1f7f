#!/usr/bin/env bash
# scripts/device/deps.sh [DIR] — unpacks the Debian -dev packages gpublur builds against into DIR
# (default .carry/deps, git-ignored), for a GPU machine that has no package registry: carry DIR
# there and run `bash scripts/device/check.sh $PWD/DIR/usr` (its shared libraries come along and
# are found through LD_LIBRARY_PATH).
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=${1:-.carry/deps}
packages=(libcli11-dev catch2 libstb-dev libpng-dev libpng16-16 zlib1g-dev nettle-dev
  liblodepng-dev liblodepng0 libdeflate-dev libdeflate0 libjpeg62-turbo-dev libjpeg62-turbo
  libwebp-dev libwebp7 libwebpmux3 libwebpdemux2 libtiff-dev libtiff6 libjbig0 liblerc4 libzstd1
  liblzma5 libgif-dev libgif7 libtbb-dev libtbb12 libtbbmalloc2
  libtbbbind-2-5)  # TBB's CMake config names tbbbind's library: it must exist
debs=$(mktemp -d)
trap 'rm -rf "$debs"' EXIT
(cd "$debs" && apt-get download "${packages[@]}")
mkdir -p "$dir"
for deb in "$debs"/*.deb; do dpkg -x "$deb" "$dir"; done
echo "unpacked ${packages[*]} into $dir"
