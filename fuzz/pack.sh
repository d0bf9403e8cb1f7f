#!/usr/bin/env bash
# pack.sh FUZZ_OUT DEST TARGET... — the built fuzz targets (stripped of debug information) and
# their corpora from FUZZ_OUT (fuzz/run.sh's), packed into DEST (a .tar.xz) for a machine without
# clang (the device machine has 16 cores): fuzz/device-run.sh runs them there.
set -euo pipefail
out=$1 dest=$2
shift 2
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
for t in "$@"; do
  strip --strip-debug -o "$stage/fuzz_$t" "$out/fuzz_$t"
  mkdir -p "$stage/corpus/$t" && cp -r "$out/corpus/$t/." "$stage/corpus/$t/"
done
tar -C "$stage" -cJf "$dest" .
