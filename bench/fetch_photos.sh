#!/usr/bin/env bash
# fetch_photos.sh [DIR] — the real photographs bench/photo_set.py crops for the batch benchmark
# (bench/photo_batch.py): the 2560x1600 JPEG of eleven wallpapers from Debian's
# plasma-workspace-wallpapers, copied as NAME.jpg into DIR (default .carry/photos, git-ignored, so
# it can be carried to a GPU machine that has no network). Skipped when DIR holds all eleven.
# The photographs are GPL-2+ (KDE Visual Design Group; the package's debian/copyright): they are
# taken at run time and never committed.
set -euo pipefail
dir=${1:-$(dirname "$0")/../.carry/photos}
names="BytheWater ColdRipple ColorfulCups DarkestHour EveningGlow FallenLeaf Grey Kite OneStandsOut Path summer_1am"
missing=0
for name in $names; do [ -s "$dir/$name.jpg" ] || missing=1; done
if [ "$missing" = 0 ]; then
  echo "fetch_photos: $dir has them already"
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# apt-get download needs no root, only the package lists (apt-get update) to know the package.
# Its messages are shown only on failure: as root it warns that its sandbox user cannot write here.
if ! (cd "$tmp" && apt-get download plasma-workspace-wallpapers >/dev/null 2>"$tmp/apt.err"); then
  cat "$tmp/apt.err" >&2
  echo "fetch_photos: apt-get download plasma-workspace-wallpapers failed (apt-get update first?)" >&2
  exit 1
fi
dpkg -x "$tmp"/plasma-workspace-wallpapers_*.deb "$tmp/root"
mkdir -p "$dir"
for name in $names; do
  cp "$tmp/root/usr/share/wallpapers/$name/contents/images/2560x1600.jpg" "$dir/$name.jpg"
done
echo "fetch_photos: 11 photographs into $dir"
