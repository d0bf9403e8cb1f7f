#!/usr/bin/env bash
# fetch-photos.sh [DIR] — real photographs for the [gpu] test that bounds how far nvJPEG's decode
# is from libjpeg-turbo's (tests/gpu_jpeg_test.cpp): scikit-image's sample images (public domain
# or CC0; see skimage/data/README.txt in the wheel), taken from its PyPI wheel into DIR (default
# .deps/photos, git-ignored; carry it to a GPU machine that has no network).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-.deps/photos}
photos="astronaut.png chelsea.png coffee.png motorcycle_left.png camera.png rocket.jpg hubble_deep_field.jpg"
if [ -d "$dir" ] && [ "$(ls "$dir" | wc -l)" -ge 7 ]; then
  echo "fetch-photos: $dir has them already"
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python=$(command -v python3)
if ! "$python" -m pip --version >/dev/null 2>&1; then
  python3 -m venv "$tmp/venv"
  python="$tmp/venv/bin/python"
fi
"$python" -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.12 \
  --platform manylinux_2_28_x86_64 --dest "$tmp" "scikit-image==0.26.0"
mkdir -p "$dir"
"$python" - "$tmp"/scikit_image-*.whl "$dir" $photos <<'PY'
import shutil, sys, zipfile
wheel, out, names = sys.argv[1], sys.argv[2], sys.argv[3:]
with zipfile.ZipFile(wheel) as z:
    for name in names:
        with z.open("skimage/data/" + name) as src, open(f"{out}/{name}", "wb") as dst:
            shutil.copyfileobj(src, dst)
PY
echo "fetch-photos: $photos into $dir"
