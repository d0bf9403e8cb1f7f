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

# Peak memory: a run holds about twice its decoded image (the image and the blurred image; the
# encoder frees the image once it has what it needs). Small files of 128 MiB images, each blurred
# on the CPU, whose peak resident memory must stay under 2.5x the image and 64 MiB for the
# process itself. Before: 3.4x (16-bit PNG), 3.9x (premultiplied), 3.9x (GIF: an RGBA canvas
# and an RGB copy).
"$python" - "$bin" "$work" <<'PY' && pass || fail "peak memory above 2.5x the decoded image"
import os, struct, subprocess, sys, zlib
binary, work = sys.argv[1], sys.argv[2]

def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

def png16(path, w, h, alpha):  # RGBA, 16 bits: a ramp, then rows "up" from it (all zeros)
    row = b"".join(struct.pack(">HHHH", (4 * x) & 0xFFFF, 30000, (7 * x) & 0xFFFF, alpha)
                   for x in range(w))
    z = zlib.compressobj(9)
    data = z.compress(b"\0" + row) + b"".join(z.compress(b"\2" + bytes(8 * w)) for _ in range(h - 1))
    data += z.flush()
    ihdr = struct.pack(">IIBBBBB", w, h, 16, 6, 0, 0, 0)
    open(path, "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", data) +
                           chunk(b"IEND", b""))

def hdr(path, w, h):  # run-length scanlines of one colour
    line = b"\2\2" + struct.pack(">H", w)
    for value in (100, 120, 140, 128):
        left = w
        while left:
            n = min(127, left)
            line += bytes((128 + n, value))
            left -= n
    open(path, "wb").write(b"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y %d +X %d\n" % (h, w) + line * h)

def gif(path, w, h):  # a 1x1 frame on a w x h canvas: RGBA, transparent around it
    open(path, "wb").write(b"GIF89a" + struct.pack("<HHBBB", w, h, 0x80, 0, 0) + bytes(3) +
                           b"\xff" * 3 + b"," + struct.pack("<HHHHB", 0, 0, 1, 1, 0) +
                           b"\x02\x02\x44\x01\x00;")

cases = [("16-bit RGBA PNG", "a.png", lambda p: png16(p, 4096, 4096, 65535), 4096 * 4096 * 8),
         ("16-bit RGBA PNG, transparent (premultiplied)", "b.png",
          lambda p: png16(p, 4096, 4096, 40000), 4096 * 4096 * 8),
         ("HDR", "c.hdr", lambda p: hdr(p, 4096, 2731), 4096 * 2731 * 12),
         ("GIF", "d.gif", lambda p: gif(p, 8192, 4096), 8192 * 4096 * 4)]
ok = True
for what, name, make, decoded in cases:
    path = os.path.join(work, name)
    make(path)
    out = os.path.join(work, "peak." + ("hdr" if name.endswith("hdr") else "png"))
    run = subprocess.Popen([binary, path, out, "--size", "3", "--device", "cpu"],
                           stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(run.pid, 0)  # this child's own peak
    run.returncode = os.waitstatus_to_exitcode(status)
    peak = usage.ru_maxrss * 1024
    bound = 2.5 * decoded + (64 << 20)
    print("%s: %.0f MiB decoded, peak %.0f MiB (%.2fx), bound %.0f MiB" %
          (what, decoded / 2**20, peak / 2**20, peak / decoded, bound / 2**20))
    if run.returncode != 0 or peak > bound:
        print("FAIL: %s: exit %d" % (what, run.returncode))
        ok = False
    os.remove(path)
sys.exit(0 if ok else 1)
PY

# A batch's images in flight are held to its memory budget (1 GiB), whatever the number of
# threads, beside at most 512 MiB of large buffers kept for reuse: twelve 8K PPMs (100 MB each,
# hard links) on twelve threads. A check that every thread
# passed before any had counted its image let them all in at once, 3 GB and more.
"$python" - "$bin" "$work" <<'PY' && pass || fail "a batch of 8K images above its memory budget"
import os, subprocess, sys
binary, work = sys.argv[1], sys.argv[2]
w, h = 7680, 4320
folder = os.path.join(work, "k8")
os.makedirs(folder)
first = os.path.join(folder, "k00.ppm")
with open(first, "wb") as f:
    f.write(b"P6\n%d %d\n255\n" % (w, h))
    row = bytes(range(256)) * (3 * w // 256) + bytes(3 * w % 256)
    f.write(row * h)
for i in range(1, 12):
    os.link(first, os.path.join(folder, "k%02d.ppm" % i))
run = subprocess.Popen([binary, folder, "-o", os.path.join(work, "k8out"), "--size", "3",
                        "--device", "cpu", "--threads", "12", "-q"])
_, status, usage = os.wait4(run.pid, 0)
peak = usage.ru_maxrss * 1024
# the budget, the large buffers a batch keeps for reuse (base/large_buffer.hpp's kRecycledBytes),
# one image over the budget, and the program
bound = (1 << 30) + (512 << 20) + (400 << 20)
print("12 8K PPMs on 12 threads: peak %.0f MiB, bound %.0f MiB" % (peak / 2**20, bound / 2**20))
ok = os.waitstatus_to_exitcode(status) == 0 and peak <= bound
for d in (folder, os.path.join(work, "k8out")):
    for name in os.listdir(d):
        os.remove(os.path.join(d, name))
sys.exit(0 if ok else 1)
PY

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
