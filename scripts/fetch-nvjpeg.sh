#!/usr/bin/env bash
# fetch-nvjpeg.sh [DIR] — nvJPEG's header and library, for a CUDA toolkit that lacks them, from
# PyPI's nvidia-nvjpeg wheel (NVIDIA's own redistribution) into DIR (default .deps/nvjpeg,
# git-ignored): DIR/include/nvjpeg.h, which the build needs, and DIR/lib/libnvjpeg.so.13, which
# gpublur loads at run time where no other is found. The version is pinned to the CUDA 13.0
# toolkit's, which every CUDA 13 driver runs.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-.deps/nvjpeg}
version=13.0.4.44
cuda_home="${CUDA_HOME:-/usr/local/cuda}"
if [ -f "$cuda_home/include/nvjpeg.h" ] && [ -z "${GPUBLUR_FETCH_NVJPEG:-}" ]; then
  echo "fetch-nvjpeg: the toolkit has nvjpeg.h ($cuda_home/include)"
  exit 0
fi
if [ -f "$dir/include/nvjpeg.h" ] && [ -f "$dir/lib/libnvjpeg.so.13" ]; then
  echo "fetch-nvjpeg: $dir has nvJPEG already"
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python=$(command -v python3)
if ! "$python" -m pip --version >/dev/null 2>&1; then  # Debian's python3 without python3-pip
  python3 -m venv "$tmp/venv"
  python="$tmp/venv/bin/python"
fi
"$python" -m pip download --quiet --no-deps --only-binary=:all: --platform manylinux2014_x86_64 \
  --dest "$tmp" "nvidia-nvjpeg==$version"
mkdir -p "$dir/include" "$dir/lib"
"$python" - "$tmp"/nvidia_nvjpeg-*.whl "$dir" <<'PY'
import shutil, sys, zipfile
wheel, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as z:
    for name, target in (("nvidia/cu13/include/nvjpeg.h", "include/nvjpeg.h"),
                         ("nvidia/cu13/lib/libnvjpeg.so.13", "lib/libnvjpeg.so.13")):
        with z.open(name) as src, open(f"{out}/{target}", "wb") as dst:
            shutil.copyfileobj(src, dst)
PY
echo "fetch-nvjpeg: nvidia-nvjpeg $version into $dir"
