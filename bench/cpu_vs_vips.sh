#!/usr/bin/env bash
# cpu_vs_vips.sh GPUBLUR [WORKDIR] — whole-process time of gpublur's CPU path against
# `vips gaussblur` on a 3840x2160 RGB PNG, the same 7-wide kernel (sigma 1.5; vips' min-ampl 0.1
# gives its mask 7x7), timed by hyperfine. Needs Debian's libvips-tools and hyperfine.
set -euo pipefail
gpublur=$1
work=${2:-$(mktemp -d)}
here=$(cd "$(dirname "$0")" && pwd)
[ -f "$work/scene4k.png" ] || {
  python3 "$here/make_scene.py" 3840 2160 "$work/scene4k.ppm"
  "$gpublur" "$work/scene4k.ppm" "$work/scene4k.png" --size 1 --device cpu
}
vips gaussmat "$work/mask.mat" 1.5 0.1
echo "vips mask (width height scale offset): $(head -1 "$work/mask.mat")"
nproc
hyperfine -w 1 -r 7 -N \
  "vips gaussblur $work/scene4k.png $work/vips.png 1.5 --min-ampl 0.1" \
  "$gpublur $work/scene4k.png $work/gpublur.png --size 7 --sigma 1.5 --device cpu"
"$gpublur" "$work/scene4k.png" "$work/gpublur.png" --size 7 --sigma 1.5 --device cpu --timings
