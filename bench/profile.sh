#!/usr/bin/env bash
# profile.sh BUILD_DIR OUT_DIR [SIZE:KSIZE:CHANNELS ...] — Nsight Compute reports of gpublur's
# blur kernel inside gpublur_bench, one per case, with the GPU's clocks left alone
# (--clock-control none). Default cases: 7x7 and 31x31 RGB at 8K, 7x7 RGB at 1080p.
set -uo pipefail
build=$1 out=$2
shift 2
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(8k:7:3 8k:31:3 1080p:7:3)
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
mkdir -p "$out"
for c in "${cases[@]}"; do
  IFS=: read -r size ksize channels <<<"$c"
  "$ncu" --clock-control none -k regex:gb_blur_kernel --launch-skip 3 --launch-count 1 --set full \
    "$build/gpublur_bench" --sizes "$size" --ksizes "$ksize" --channels "$channels" --iters 5 \
    --naive-max 0 >"$out/ncu-$size-$ksize-c$channels.txt" 2>&1
  echo "$c: $(grep -E '^ +Duration' "$out/ncu-$size-$ksize-c$channels.txt" | head -1)"
done
