#!/usr/bin/env bash
# batch_end_to_end.sh BIN — the batch form of the real binary on a few hundred small files, some
# of them broken: outputs, one error line per broken file, the exit code, --json lines, the same
# bytes as single-file runs, also split over processes; collisions refused up front; --format,
# --from-list, pipes; a batch interrupted by SIGINT and SIGTERM (also over processes) and resumed
# with --skip-existing. Inputs are drawn by Debian's python3 with OpenCV (scripts/install-deps.sh);
# skipped (77) without them.
set -u
bin=$1
python=/usr/bin/python3
[ -x "$python" ] && "$python" -c 'import cv2, numpy' 2>/dev/null || { echo "SKIPPED: no python3-opencv"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
passes=0
pass() { passes=$((passes + 1)); }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
check() { if eval "$1"; then pass; else fail "$2"; fi; }

# 300 good images of every readable kind, and 20 broken files.
"$python" - "$work/in" <<'EOF'
import os, sys, numpy as np, cv2
root = sys.argv[1]
rng = np.random.default_rng(7)
def image(i, channels):
    h, w = int(rng.integers(5, 70)), int(rng.integers(5, 90))
    y, x = np.mgrid[0:h, 0:w]
    base = (x * 3 + y * 5 + i) % 256
    img = np.stack([base, (base * 7) % 256, (255 - base)], -1)[:, :, :channels if channels != 1 else 1]
    img = (img + rng.integers(0, 40, img.shape)).clip(0, 255).astype(np.uint8)
    if channels == 4:
        alpha = (x * 9 % 256).astype(np.uint8)[..., None]
        img = np.concatenate([img, alpha], -1)
    return img[:, :, 0] if channels == 1 else img
kinds = [("a", ".png", (1, 3, 4)), ("b", ".jpg", (1, 3)), ("c/sub", ".bmp", (3,)), ("c", ".tif", (1, 3, 4)),
         ("", ".webp", (3, 4)), ("d", ".pgm", (1,)), ("d", ".ppm", (3,))]
n = 0
for directory, ext, channel_counts in kinds:
    os.makedirs(os.path.join(root, directory), exist_ok=True)
    for i in range(300 // len(kinds) + 1):
        if n == 300: break
        c = channel_counts[i % len(channel_counts)]
        path = os.path.join(root, directory, "img%03d%s" % (i, ext))
        assert cv2.imwrite(path, image(n, c)), path
        n += 1
os.makedirs(os.path.join(root, "broken"), exist_ok=True)
good = open(os.path.join(root, "a", "img000.png"), "rb").read()
for i in range(20):
    with open(os.path.join(root, "broken", "bad%02d%s" % (i, [".png", ".jpg", ".tif", ".bmp"][i % 4])), "wb") as f:
        f.write([good[: len(good) // 2], b"not an image\n", b"", b"BM" + bytes(40)][i % 4])
with open(os.path.join(root, "notes.txt"), "w") as f:
    f.write("not an image: passed over\n")
EOF

# The batch: exit code 1 (some failed), one error line per broken file, the rest blurred.
"$bin" "$work/in" -o "$work/out" --recursive --sigma 1.5 --json >"$work/json" 2>"$work/err"
code=$?
check '[ "$code" -eq 1 ]' "a batch with broken files exits 1, not $code: $(tail -3 "$work/err")"
check '[ "$(grep -c "^gpublur: error: " "$work/err")" -eq 20 ]' "20 error lines: $(grep -c "^gpublur: error: " "$work/err")"
check '[ "$(grep "^gpublur: error: " "$work/err" | grep -c "/broken/bad")" -eq 20 ]' "each error line names its file"
check 'grep -q "300 blurred, 20 failed of 320" "$work/err"' "summary: $(tail -1 "$work/err")"
check '[ "$(find "$work/out" -type f | wc -l)" -eq 300 ]' "300 outputs: $(find "$work/out" -type f | wc -l)"
check '[ -z "$(find "$work/out" -name ".*")" ]' "no temporary files left"
check '[ ! -e "$work/out/broken" ] || [ -z "$(ls -A "$work/out/broken")" ]' "no output for a broken file"
check '[ -f "$work/out/c/sub/img000.bmp" ] && [ -f "$work/out/img000.webp" ]' "paths mirrored below the directory"
"$python" - "$work/json" <<'EOF' && pass || fail "--json lines"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
files, summary = lines[:-1], lines[-1]["summary"]
assert len(files) == 320 and summary["done"] == 300 and summary["failed"] == 20, summary
assert all(f["status"] == ("failed" if "/broken/" in f["input"] else "done") for f in files)
assert all("error" in f for f in files if f["status"] == "failed")
assert all(f["bytes_out"] > 0 and "encode" in f["ms"] for f in files if f["status"] == "done")
done = [f["done_s"] for f in files]  # each file's time of finishing, in the order lines are said
assert all(0 <= a <= b for a, b in zip(done, done[1:])), done
assert done[-1] <= summary["seconds"] + 0.001, (done[-1], summary["seconds"])
EOF

# Every output is byte for byte what the single-file command writes for its input.
same=0
while read -r input; do
  rel=${input#"$work/in/"}
  "$bin" "$input" "$work/single.${input##*.}" --sigma 1.5 2>/dev/null || continue
  cmp -s "$work/single.${input##*.}" "$work/out/$rel" && same=$((same + 1))
done < <(find "$work/in" -type f ! -path "*/broken/*" ! -name "*.txt" | sort)
check '[ "$same" -eq 300 ]' "batch outputs identical to single-file runs: $same of 300"

# Under umask 027 no output is more open than 0640, and no directory than 0750, run after run
# (the umask was read by setting it, which raced the batch's threads: tens of 400 files, and the
# directories made after them, came out with no umask at all).
for run in 1 2 3 4 5; do
  (umask 027 && "$bin" "$work/in" -o "$work/umask$run" --recursive --sigma 1 --threads 16 -q 2>/dev/null)
done
loose=$(find "$work"/umask? \( -type f ! -perm 0640 \) -o \( -type d ! -perm 0750 \) | wc -l)
check '[ "$loose" -eq 0 ] && [ "$(find "$work"/umask? -type f | wc -l)" -eq 1500 ]' "umask 027: $loose outputs or directories more open"
rm -rf "$work"/umask?
# --processes: the batch split over three processes (process_lanes.hpp) writes the same bytes,
# reports every file once (the broken ones as errors), and sums up as one process would.
"$bin" "$work/in" -o "$work/lanes" --recursive --sigma 1.5 --processes 3 --json \
  >"$work/lanes.json" 2>"$work/lanes.err"
check '[ "$?" -eq 1 ]' "--processes 3: exit 1 for the broken files"
check 'diff -r "$work/out" "$work/lanes" >/dev/null' "--processes 3 writes the one process's outputs"
check '[ "$(grep -c "^gpublur: error: " "$work/lanes.err")" -eq 20 ]' "--processes 3: 20 error lines"
"$python" - "$work/lanes.json" <<'EOF' && pass || fail "--processes 3: --json lines"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
files, summary = lines[:-1], lines[-1]["summary"]
assert len(files) == 320 and len({f["input"] for f in files}) == 320, len(files)
assert summary["done"] == 300 and summary["failed"] == 20, summary
EOF

# By default a batch nvJPEG may decode on two or more GPUs runs in a process per GPU (the GPUs
# counted from CUDA_VISIBLE_DEVICES, without a driver here: the children find no GPU); one GPU, or
# --processes 1 keep one process; a batch for the CPU's codec runs in a process per 16 threads.
# A batch of JPEGs runs on k GPUs from (k - 1) k / 2 x 8 gigapixels, unless --devices names them:
# these few small JPEGs on one of two GPUs, in one process.
lanes_line() {
  CUDA_VISIBLE_DEVICES=$1 "$bin" "$work/in/b" -o "$work/lanes_$1" --sigma 1.5 -v "${@:2}" 2>&1 |
    grep -c "the batch in 2 processes"
}
check '[ "$(lanes_line 0,1 --codec gpu --devices all)" -eq 1 ]' "two GPUs named, --codec gpu: a process per GPU"
check '[ "$(lanes_line 0,1 --codec gpu)" -eq 0 ]' "two GPUs, a small batch of JPEGs: one process"
one_gpu=$(CUDA_VISIBLE_DEVICES=0,1 "$bin" "$work/in/b" -o "$work/lanes_one" --sigma 1.5 -v --codec gpu 2>&1 |
  grep -c "nvJPEG on 1 of the 2 GPUs")
check '[ "$one_gpu" -eq 1 ]' "two GPUs, a small batch of JPEGs: -v says one GPU"
# A batch nvJPEG does not decode, in one process, blurs on one GPU unless --devices names more.
blur_gpus() {
  CUDA_VISIBLE_DEVICES=$1 "$bin" "$work/in/a" -o "$work/lanes_blur" --sigma 1.5 -v --threads 2 "${@:2}" 2>&1 |
    grep -c "blurring on one of the 2 GPUs"
  rm -rf "$work/lanes_blur"
}
check '[ "$(blur_gpus 0,1)" -eq 1 ]' "two GPUs, PNGs in one process: -v says one GPU"
check '[ "$(blur_gpus 0,1 --devices all)" -eq 0 ]' "two GPUs, PNGs, --devices all: both"
check '[ "$(blur_gpus 0)" -eq 0 ]' "one GPU, PNGs: nothing to say"
check '[ "$(lanes_line 0 --codec gpu)" -eq 0 ]' "one GPU: one process"
check '[ "$(lanes_line 0,1 --codec gpu --processes 1)" -eq 0 ]' "--processes 1: one process"
check '[ "$(lanes_line 0,1 --codec cpu --threads 2)" -eq 0 ]' "--codec cpu, 2 threads: one process"
rm -rf "$work/lanes_0,1"
check '[ "$(lanes_line 0,1 --codec cpu --threads 32)" -eq 1 ]' "--codec cpu, 32 threads: two processes"
check 'diff -r "$work/out/b" "$work/lanes_0,1" >/dev/null' "--codec cpu in two processes: the same bytes"
check '[ "$(lanes_line 0,1 --device cpu --threads 32 --processes 1)" -eq 0 ]' "--processes 1: one process"
rm -rf "$work"/lanes_*

# --fsync flushes each output before its rename: the same bytes.
"$bin" "$work/in/a" -o "$work/flushed" --sigma 1.5 --fsync -q 2>/dev/null
check 'diff -r "$work/flushed" "$work/out/a" >/dev/null' "--fsync writes the same outputs"

# Conflicts are found before any work: nothing is written.
mkdir -p "$work/other"
cp "$work/in/a/img000.png" "$work/other/img000.png"
"$bin" "$work/in/a/img000.png" "$work/other/img000.png" -o "$work/clash" --sigma 1 2>"$work/err"
check '[ "$?" -eq 2 ] && grep -q "would both be written" "$work/err" && [ ! -e "$work/clash" ]' "collision refused"
"$bin" "$work/in/a" -o "$work/in/a" --sigma 1 2>"$work/err"
check '[ "$?" -eq 2 ] && grep -q "would replace its input" "$work/err"' "output over input refused"
"$bin" "$work/in/a" -o "$work/g" --format gif --sigma 1 2>"$work/err"
check '[ "$?" -eq 2 ]' "--format gif refused"

# Links inside an input directory: read through, each output named by the link's own path and
# inside -o, the file a link leads to never written (photos/deep/link.png -> ../../assets/logo.png
# was written over assets/logo.png); a link back up is not followed round. -P skips links, a line
# each.
mkdir -p "$work/links/photos/deep" "$work/links/assets"
cp "$work/in/a/img000.png" "$work/links/assets/logo.png"
cp "$work/in/a/img001.png" "$work/links/photos/a.png"
ln -s ../../assets/logo.png "$work/links/photos/deep/link.png"
ln -s a.png "$work/links/photos/same.png"
ln -s .. "$work/links/photos/deep/up"
logo=$(md5sum <"$work/links/assets/logo.png")
"$bin" "$work/links/photos" -r -o "$work/links/out" --sigma 1 -v 2>"$work/err"
code=$?
check '[ "$code" -eq 0 ]' "links: exit $code: $(tail -2 "$work/err")"
check '[ "$(md5sum <"$work/links/assets/logo.png")" = "$logo" ]' "a link's target was overwritten"
check '[ "$(cd "$work/links/out" 2>/dev/null && find . -type f | sort | tr "\n" " ")" = "./a.png ./deep/link.png ./same.png " ]' "outputs named by the links, inside -o: $(cd "$work/links" && find . -type f -newer "$work/err")"
check 'cmp -s "$work/links/out/same.png" "$work/links/out/a.png"' "a link to a file gives that file's blur"
check 'grep -q "a link to a directory above it" "$work/err"' "a loop said"
check 'grep -q "2 symbolic links followed" "$work/err"' "links followed said with -v"
"$bin" "$work/links/photos" -r -o "$work/links/skipped" --sigma 1 -P 2>"$work/err"
check '[ "$?" -eq 0 ] && [ "$(find "$work/links/skipped" -type f)" = "$work/links/skipped/a.png" ]' "-P: a.png only"
check '[ "$(grep -c "a symbolic link (--no-follow-links)" "$work/err")" -eq 3 ]' "-P: a line per link: $(cat "$work/err")"

# -o inside a recursive input, resumed as documented: the output tree is never an input (each run
# blurred the last one's outputs again, one level deeper).
mkdir -p "$work/nest/photos/sub"
cp "$work/in/a/img000.png" "$work/nest/photos/a.png"
cp "$work/in/a/img001.png" "$work/nest/photos/sub/b.png"
for run in 1 2 3; do
  "$bin" "$work/nest/photos" -r -o "$work/nest/photos/blurred" --skip-existing --sigma 1 -v 2>"$work/err"
done
check '[ "$(find "$work/nest/photos/blurred" -type f | wc -l)" -eq 2 ] && [ ! -e "$work/nest/photos/blurred/blurred" ]' "the output tree was blurred again: $(find "$work/nest/photos/blurred" -type f)"
check 'grep -q "it is the output directory" "$work/err"' "the output directory passed over, said with -v"

# An -o that cannot be made: one line and exit 1 before any work (it was a line per file).
printf 'x' >"$work/not-a-dir"
"$bin" "$work/in/a" -o "$work/not-a-dir/out" --sigma 1 2>"$work/err"
code=$?
check '[ "$code" -eq 1 ] && [ "$(wc -l <"$work/err")" -eq 1 ] && grep -q "cannot create the output directory" "$work/err"' "-o that cannot be made: exit $code, $(wc -l <"$work/err") lines: $(head -3 "$work/err")"

# --format converts; --from-list reads paths (here from stdin).
printf '%s\n' "$work/in/a/img000.png" "$work/in/b/img001.jpg" |
  "$bin" --from-list - -o "$work/webp" --format webp --sigma 1 -q 2>/dev/null
check '[ -f "$work/webp/img000.webp" ] && [ -f "$work/webp/img001.webp" ]' "--from-list with --format webp"
check '[ "$(head -c 4 "$work/webp/img000.webp")" = "RIFF" ]' "WebP written"

# --from-list entries that cannot be read (a line of spaces, a directory, a missing file) fail
# alone, a "cannot read" line each, and the rest is blurred (they stopped the batch, exit 2).
printf '%s\n' "   " "$work/in/a" "$work/in/missing" "$work/in/a/img000.png" >"$work/badlist"
"$bin" --from-list "$work/badlist" -o "$work/listed" --sigma 1 2>"$work/err"
code=$?
check '[ "$code" -eq 1 ] && [ "$(grep -c "^gpublur: error: cannot read" "$work/err")" -eq 3 ]' "bad list entries: exit $code: $(cat "$work/err")"
check '[ "$(find "$work/listed" -type f)" = "$work/listed/img000.png" ]' "the readable list entry blurred"

# Pipes: stdin to stdout gives the bytes of the file-to-file run.
"$bin" - - --format png --sigma 1.5 <"$work/in/a/img003.png" >"$work/piped.png" 2>/dev/null
"$bin" "$work/in/a/img003.png" "$work/file.png" --sigma 1.5 2>/dev/null
check 'cmp -s "$work/piped.png" "$work/file.png"' "stdin to stdout"

# --skip-existing: a second run leaves every output alone.
touch -d "2000-01-01" "$work/out/a/img000.png"
"$bin" "$work/in" -o "$work/out" --recursive --sigma 1.5 --skip-existing --json >"$work/json2" 2>/dev/null
check '[ "$(grep -c "\"status\": \"skipped\"" "$work/json2")" -eq 300 ]' "300 skipped"
check '[ "$(date -r "$work/out/a/img000.png" +%Y)" = 2000 ]' "skipped output untouched"

# A progress line on a terminal.
if command -v script >/dev/null; then
  script -qec "'$bin' '$work/in/a' -o '$work/tty' --sigma 1" /dev/null >"$work/tty.log" 2>&1
  check 'grep -q "images/s" "$work/tty.log"' "progress line on a terminal"
fi

# Interrupted (SIGINT, then SIGTERM) and resumed: the outputs written are whole, no temporary is
# left, the exit code says the signal, and --skip-existing finishes the rest.
"$python" - "$work/big" <<'EOF'
import os, sys, numpy as np, cv2
os.makedirs(sys.argv[1])
rng = np.random.default_rng(3)
for i in range(120):
    cv2.imwrite(os.path.join(sys.argv[1], "big%03d.png" % i), rng.integers(0, 255, (600, 800, 3), dtype=np.uint8))
EOF
for run in "INT 1" "TERM 1" "TERM 2"; do
  set -- $run
  signal=$1 processes=$2
  rm -rf "$work/resumed"
  "$bin" "$work/big" -o "$work/resumed" --sigma 4 --threads 2 --processes "$processes" -q \
    2>"$work/err" &
  pid=$!
  for _ in $(seq 1 100); do  # until a few outputs exist
    [ "$(find "$work/resumed" -name '*.png' 2>/dev/null | wc -l)" -ge 3 ] && break
    sleep 0.1
  done
  kill -"$signal" "$pid"
  wait "$pid"
  code=$?
  expected=$([ "$signal" = INT ] && echo 130 || echo 143)
  check '[ "$code" -eq "$expected" ]' "SIG$signal ($processes processes): exit $code, expected $expected"
  check '[ -z "$(find "$work/resumed" -name ".*")" ]' "SIG$signal: no temporary file left"
  done_count=$(find "$work/resumed" -name '*.png' | wc -l)
  check '[ "$done_count" -gt 0 ] && [ "$done_count" -lt 120 ]' "SIG$signal: stopped part way ($done_count of 120)"
  "$bin" "$work/big" -o "$work/resumed" --sigma 4 --skip-existing -q 2>>"$work/err"
  check '[ "$?" -eq 0 ] && [ "$(find "$work/resumed" -name "*.png" | wc -l)" -eq 120 ]' "SIG$signal: resumed to the end"
done
# Each output, interrupted or not, is what a single run writes.
whole=0
for i in 000 007 042 119; do
  "$bin" "$work/big/big$i.png" "$work/one.png" --sigma 4 2>/dev/null
  cmp -s "$work/one.png" "$work/resumed/big$i.png" && whole=$((whole + 1))
done
check '[ "$whole" -eq 4 ]' "outputs of the interrupted batch are whole: $whole of 4"

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
