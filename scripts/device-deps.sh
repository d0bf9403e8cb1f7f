#!/usr/bin/env bash
# device-deps.sh [DIR] — unpacks the Debian -dev packages gpublur builds against into DIR
# (default .carry/deps, git-ignored), for a GPU machine that has no package registry: carry DIR
# there and run `bash scripts/device-check.sh $PWD/DIR/usr`.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-.carry/deps}
packages=(libcli11-dev catch2 libstb-dev zlib1g-dev libpng-dev nettle-dev liblodepng-dev liblodepng0
  libdeflate-dev)
debs=$(mktemp -d)
trap 'rm -rf "$debs"' EXIT
(cd "$debs" && apt-get download "${packages[@]}")
mkdir -p "$dir"
for deb in "$debs"/*.deb; do dpkg -x "$deb" "$dir"; done
echo "unpacked ${packages[*]} into $dir"
