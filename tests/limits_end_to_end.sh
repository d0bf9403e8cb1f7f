#!/usr/bin/env bash
# limits_end_to_end.sh BIN PYTHON — decompression, memory and time bombs against the real binary,
# each run under a cap of its address space (ulimit -v) and of its time, so a regression fails
# the test instead of taking the machine's memory. The inputs are made here (PYTHON draws them
# with its standard library only).
set -u
bin=$1
python=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
passes=0

pass() { passes=$((passes + 1)); }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# capped KIB SECONDS CODE DESCRIPTION -- ARGS...: gpublur under `ulimit -v KIB` and a timeout,
# with stdin from $work/stdin if it exists; checks the exit code, keeps stdout and stderr.
capped() {
  local kib=$1 seconds=$2 code=$3 what=$4
  shift 5
  local input=/dev/null
  [ -e "$work/stdin" ] && input="$work/stdin"
  (ulimit -v "$kib" && exec timeout "$seconds" "$bin" "$@") <"$input" >"$work/stdout" 2>"$work/stderr"
  local got=$?
  if [ "$got" -eq "$code" ]; then pass; else fail "$what: exit $got, expected $code; stderr: $(head -c 600 "$work/stderr")"; fi
}

contains() {  # FILE TEXT DESCRIPTION
  if grep -qF -- "$2" "$1"; then pass; else fail "$3: '$2' not in $(basename "$1"): $(head -c 600 "$1")"; fi
}

# Every input's first bytes are read alone, and a file that is no image is refused before the rest:
# a 3 GB sparse file (read whole before, at 9.4 GB), /dev/zero (read to 4 GiB before).
truncate -s 3G "$work/sparse.png"
capped 1000000 20 1 "3 GB of zeros named .png" -- "$work/sparse.png" "$work/out.png" --size 3
contains "$work/stderr" "not an image gpublur reads" "3 GB of zeros named .png"
capped 1000000 20 1 "/dev/zero" -- /dev/zero "$work/out.png" --size 3
contains "$work/stderr" "not an image gpublur reads" "/dev/zero"

# A pipe that starts as a PNG and never ends is read up to --max-bytes + 64 MiB, then refused.
mkfifo "$work/pipe"
{ printf '\211PNG\r\n\032\n'; cat /dev/zero; } >"$work/pipe" 2>/dev/null &
writer=$!
capped 1000000 30 1 "an endless pipe" -- "$work/pipe" "$work/out.png" --size 3 --max-bytes 1000000
contains "$work/stderr" "longer than 68108864 bytes" "an endless pipe"
kill "$writer" 2>/dev/null
wait "$writer" 2>/dev/null

# --from-list reads paths: /dev/zero is refused at its first byte.
mkdir -p "$work/out"
capped 1000000 20 2 "--from-list /dev/zero" -- --from-list /dev/zero -o "$work/out" --size 3
contains "$work/stderr" "not a list of paths: a NUL byte in line 1" "--from-list /dev/zero"

# A 16x16 RGB TIFF in one 65536x65536 tile: 12.6 GB and 29 s before "damaged TIFF tile".
"$python" - "$work/tile.tif" <<'PY'
import struct, sys
entries = [(256, 4, 1, 16), (257, 4, 1, 16), (258, 3, 1, 8), (259, 3, 1, 1), (262, 3, 1, 2),
           (277, 3, 1, 3), (322, 4, 1, 65536), (323, 4, 1, 65536), (324, 4, 1, 0), (325, 4, 1, 768)]
data_at = 8 + 2 + 12 * len(entries) + 4
ifd = struct.pack("<H", len(entries)) + b"".join(
    struct.pack("<HHII", tag, kind, count, data_at if tag == 324 else value)
    for tag, kind, count, value in entries) + struct.pack("<I", 0)
open(sys.argv[1], "wb").write(b"II*\0" + struct.pack("<I", 8) + ifd + bytes(768))
PY
capped 1000000 20 1 "65536-pixel TIFF tiles" -- "$work/tile.tif" "$work/out.png" --size 3
contains "$work/stderr" "damaged TIFF: tiles of 65536x65536 pixels" "65536-pixel TIFF tiles"

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
