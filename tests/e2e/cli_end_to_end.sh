#!/usr/bin/env bash
# cli_end_to_end.sh BIN SAMPLES_DIR — the real gpublur binary: exit codes, one-line errors,
# outputs written whole or not at all. GPUBLUR_LIBCUDA=/nonexistent simulates a machine
# without a GPU driver, so the CPU path is covered on every machine.
set -u
bin=$1
samples=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
passes=0

pass() { passes=$((passes + 1)); }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# expect CODE DESCRIPTION -- ARGS...: runs gpublur, checks the exit code; keeps stdout/stderr.
expect() {
  local code=$1 what=$2
  shift 3
  "$bin" "$@" >"$work/stdout" 2>"$work/stderr"
  local got=$?
  if [ "$got" -eq "$code" ]; then pass; else fail "$what: exit $got, expected $code; stderr: $(cat "$work/stderr")"; fi
}

contains() {  # FILE TEXT DESCRIPTION
  if grep -qF -- "$2" "$1"; then pass; else fail "$3: '$2' not in $(basename "$1"): $(head -c 400 "$1")"; fi
}

expect 0 "help" -- --help
contains "$work/stdout" "Exit codes" "help"

expect 0 "version" -- --version
contains "$work/stdout" "gpublur " "version"

# The CPU path, announced, on a machine without a driver.
GPUBLUR_LIBCUDA=/nonexistent/libcuda.so.1 expect 0 "blur without a GPU" -- \
  "$samples/edges.png" "$work/cpu.png" --size 7 --sigma 1.5
contains "$work/stderr" "blurring on the CPU" "CPU announcement"
if [ -s "$work/cpu.png" ] && ! cmp -s "$work/cpu.png" "$samples/edges.png"; then pass; else fail "no blurred output"; fi
if head -c 8 "$work/cpu.png" | od -An -tx1 | grep -q '89 50 4e 47'; then pass; else fail "output is not a PNG"; fi

# Without nvJPEG the binary starts and every JPEG takes libjpeg-turbo: --codec auto and cpu give
# the CPU path's bytes; --codec gpu is one actionable line, exit 1, no output.
GPUBLUR_NVJPEG=/nonexistent/libnvjpeg.so.13 expect 0 "version without nvJPEG" -- --version
contains "$work/stdout" "nvJPEG: not available" "version without nvJPEG"
"$bin" "$samples/edges.png" "$work/edges.jpg" --size 1 --codec cpu 2>/dev/null
GPUBLUR_NVJPEG=/nonexistent/libnvjpeg.so.13 expect 0 "JPEG without nvJPEG" -- \
  "$work/edges.jpg" "$work/nonv.jpg" --size 7 --sigma 1.5 --json
contains "$work/stdout" '"decoder": "libjpeg-turbo"' "JPEG without nvJPEG"
expect 0 "JPEG, --codec cpu" -- "$work/edges.jpg" "$work/cpucodec.jpg" --size 7 --sigma 1.5 --codec cpu
if cmp -s "$work/nonv.jpg" "$work/cpucodec.jpg"; then pass; else fail "--codec auto without nvJPEG differs from --codec cpu"; fi
GPUBLUR_NVJPEG=/nonexistent/libnvjpeg.so.13 expect 1 "--codec gpu without nvJPEG" -- \
  "$work/edges.jpg" "$work/nogpu.jpg" --size 7 --codec gpu
contains "$work/stderr" "leave out --codec gpu" "--codec gpu without nvJPEG"
[ ! -e "$work/nogpu.jpg" ] && pass || fail "--codec gpu without nvJPEG left an output"

# Whatever device is here (GPU where present) gives the same bytes as the CPU.
expect 0 "blur on the default device" -- "$samples/edges.png" "$work/auto.png" --size 7 --sigma 1.5
if cmp -s "$work/auto.png" "$work/cpu.png"; then pass; else fail "default device differs from the CPU"; fi
for target in cubin ptx; do
  expect 0 "blur --target $target" -- "$samples/alpha.png" "$work/$target.png" --sigma 2 --target $target
  expect 0 "blur --device cpu" -- "$samples/alpha.png" "$work/$target-cpu.png" --sigma 2 --device cpu
  if cmp -s "$work/$target.png" "$work/$target-cpu.png"; then pass; else fail "--target $target differs from the CPU"; fi
done

# Without NVRTC nothing can run on a GPU: --device auto says so and blurs on the CPU.
GPUBLUR_NVRTC=/nonexistent/libnvrtc.so expect 0 "blur without NVRTC" -- \
  "$samples/edges.png" "$work/no-nvrtc.png" --size 7 --sigma 1.5
contains "$work/stderr" "blurring on the CPU" "fallback without NVRTC"
if cmp -s "$work/no-nvrtc.png" "$work/cpu.png"; then pass; else fail "fallback without NVRTC differs"; fi

GPUBLUR_LIBCUDA=/nonexistent/libcuda.so.1 expect 1 "--device gpu without a GPU" -- \
  "$samples/edges.png" "$work/gpu.png" --size 7 --device gpu
contains "$work/stderr" "no usable GPU" "--device gpu message"
[ ! -e "$work/gpu.png" ] && pass || fail "--device gpu failure left a file"

# What holds for a whole batch is said once, not once a file: no GPU for --device gpu or
# --codec gpu (before any work: no output directory made), and an error or warning that repeats
# word for word (8-bit inputs for --format hdr), with its count at the end.
mkdir -p "$work/five"
for i in 1 2 3 4 5; do cp "$samples/edges.png" "$work/five/e$i.png"; done
cp "$samples/gradient16.png" "$work/five/g16.png"
GPUBLUR_LIBCUDA=/nonexistent/libcuda.so.1 expect 1 "batch, --device gpu without a GPU" -- \
  "$work/five" -o "$work/five-gpu" --size 3 --device gpu
[ "$(wc -l <"$work/stderr")" -eq 1 ] && pass || fail "--device gpu, a batch: not one line: $(cat "$work/stderr")"
contains "$work/stderr" "no usable GPU" "--device gpu, a batch"
[ ! -e "$work/five-gpu" ] && pass || fail "--device gpu, a batch: began before the GPU was found"
GPUBLUR_LIBCUDA=/nonexistent/libcuda.so.1 GPUBLUR_NVJPEG=/nonexistent/libnvjpeg.so.13 \
  expect 1 "batch, --codec gpu without a GPU" -- "$work/five" -o "$work/five-jpeg" --size 3 --codec gpu --format jpg
[ "$(wc -l <"$work/stderr")" -eq 1 ] && pass || fail "--codec gpu, a batch: not one line: $(cat "$work/stderr")"
contains "$work/stderr" "leave out --codec gpu" "--codec gpu, a batch"
expect 1 "8-bit batch to --format hdr" -- "$work/five" -o "$work/five-hdr" --size 3 --format hdr
[ "$(grep -c 'an 8-bit image cannot be written as .hdr' "$work/stderr")" -eq 2 ] && pass || fail "8-bit to hdr: not said once and counted: $(cat "$work/stderr")"
contains "$work/stderr" "HDR output needs HDR input (5 files)" "8-bit to hdr, counted"
contains "$work/stderr" "g16.png: a 16-bit image cannot be written as .hdr" "16-bit to hdr, named"

# The worker process (src/detached_exit.hpp): a blur that may use a GPU runs in a child. Output
# read through a pipe ends with the command, whole; --no-detach gives the same bytes; on a GPU,
# --verbose names the worker left to release it.
json=$(timeout 60 "$bin" "$samples/edges.png" "$work/piped.png" --size 7 --sigma 1.5 --json -v 2>"$work/stderr")
[ "$?" -eq 0 ] && pass || fail "blur read through a pipe: $(cat "$work/stderr")"
case "$json" in "{"*"}") pass ;; *) fail "JSON read through a pipe is not whole: $json" ;; esac
cmp -s "$work/piped.png" "$work/cpu.png" && pass || fail "worker's output differs from the CPU"
if [[ "$json" == *'"device": "gpu"'* ]]; then
  contains "$work/stderr" "goes on to release the GPU" "detached worker announced"
fi
expect 0 "--no-detach" -- "$samples/edges.png" "$work/waited.png" --size 7 --sigma 1.5 --no-detach -v
cmp -s "$work/waited.png" "$work/cpu.png" && pass || fail "--no-detach output differs"
if grep -qF "goes on to release" "$work/stderr"; then fail "--no-detach detached"; else pass; fi

# One SIGTERM ends a run that waits on its input at once (as `timeout`, systemd and Kubernetes
# send one, then SIGKILL): a pipe whose writer stays silent (`sleep 30 | gpublur - ...`), a FIFO
# no one opens for writing. Exit 143, no output, no temporary. Three tries each, the signal half
# a second in; 5 s allowed for a slow machine (before, the run waited as long as the writer).
stopped_promptly() {  # DESCRIPTION ARGS... (stdin is the test's)
  local what=$1
  shift
  local try start pid code elapsed
  for try in 1 2 3; do
    start=$(date +%s%N)
    "$bin" "$@" 0<&0 2>"$work/stderr" &  # (not /dev/null, as for a command put in the background)
    pid=$!
    sleep 0.5
    kill -TERM "$pid"
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    elapsed=$((($(date +%s%N) - start) / 1000000))
    if kill -0 "$pid" 2>/dev/null; then
      kill -KILL "$pid"
      fail "$what: still running ${elapsed} ms after SIGTERM (try $try)"
    fi
    wait "$pid"
    code=$?
    [ "$code" -eq 143 ] && pass || fail "$what: exit $code after SIGTERM, expected 143 (try $try): $(cat "$work/stderr")"
    [ ! -e "$work/stopped.png" ] && [ -z "$(find "$work" -name '.*gpublur-*')" ] && pass || fail "$what: left a file"
  done
}
mkfifo "$work/silent" "$work/unopened"
sleep 30 >"$work/silent" &
writer=$!
stopped_promptly "silent pipe on stdin" - "$work/stopped.png" --format png --size 3 <"$work/silent"
stopped_promptly "silent pipe, --no-detach" - "$work/stopped.png" --format png --size 3 --no-detach <"$work/silent"
kill "$writer"
wait "$writer" 2>/dev/null
stopped_promptly "FIFO with no writer" "$work/unopened" "$work/stopped.png" --size 3
stopped_promptly "FIFO with no writer, a batch" "$work/unopened" -o "$work/stopped" --format png --size 3
[ ! -e "$work/stopped" ] || [ -z "$(ls -A "$work/stopped")" ] && pass || fail "a stopped batch wrote"

# 16-bit PNG in, 16-bit PNG out; to another format the image is converted to 8 bits, which
# --verbose reports.
expect 0 "16-bit PNG" -- "$samples/gradient16.png" "$work/g16.png" --size 7 --sigma 1.5
bit_depth() { od -An -tu1 -j24 -N1 "$1" | tr -d ' '; }
[ "$(bit_depth "$work/g16.png")" = 16 ] && pass || fail "16-bit input did not stay 16-bit"
expect 0 "16-bit to JPEG" -- "$samples/gradient16.png" "$work/g16.jpg" --size 7 -v
contains "$work/stderr" "converted to 8 bits" "16-bit conversion reported"
expect 0 "16-bit kernel dump" -- "$samples/gradient16.png" --size 7 --arch sm_90 --dump-ptx -
contains "$work/stdout" ".entry gb_horizontal_kernel(" "16-bit input dumps the general kernel"

# TIFF outputs keep an uncompressed TIFF input uncompressed and Deflate the rest, unless
# --tiff-compression says; the pixels are the same either way.
size_of() { stat -c %s "$1"; }
expect 0 "PNG to uncompressed TIFF" -- "$samples/edges.png" "$work/plain.tif" --size 3 --tiff-compression none
expect 0 "uncompressed TIFF to TIFF" -- "$work/plain.tif" "$work/kept.tif" --size 3
expect 0 "uncompressed TIFF to Deflate" -- "$work/plain.tif" "$work/deflated.tif" --size 3 --tiff-compression deflate
expect 0 "PNG to TIFF" -- "$samples/edges.png" "$work/fromPng.tif" --size 3
[ "$(size_of "$work/kept.tif")" -ge "$(size_of "$work/plain.tif")" ] && pass || fail "an uncompressed TIFF's output was compressed"
[ "$(size_of "$work/deflated.tif")" -lt "$(size_of "$work/kept.tif")" ] && pass || fail "--tiff-compression deflate did not compress"
[ "$(size_of "$work/fromPng.tif")" -lt "$(size_of "$work/plain.tif")" ] && pass || fail "a PNG's TIFF output was not Deflated"
"$bin" "$work/kept.tif" "$work/kept.png" --size 1 && "$bin" "$work/deflated.tif" "$work/deflated.png" --size 1
cmp -s "$work/kept.png" "$work/deflated.png" && pass || fail "uncompressed and Deflated TIFF outputs differ in pixels"
expect 2 "bad --tiff-compression" -- "$samples/edges.png" "$work/bad.tif" --tiff-compression lzw
contains "$work/stderr" "--tiff-compression" "bad --tiff-compression names the option"

# HDR in, HDR out: floating point; to another format: reduced to 8 bits, with a warning.
expect 0 "HDR" -- "$samples/glow.hdr" "$work/glow.hdr" --sigma 3
[ "$(head -c 10 "$work/glow.hdr")" = "#?RADIANCE" ] && pass || fail "HDR output is not Radiance"
expect 0 "HDR to PNG" -- "$samples/glow.hdr" "$work/glow.png" --sigma 3
contains "$work/stderr" "warning: HDR input reduced to 8 bits" "HDR reduction warning"

# --linear: blurred in linear light (the 16-bit kernel), so its PTX is the general kernel's.
expect 0 "--linear" -- "$samples/edges.png" "$work/linear.png" --size 7 --linear
if ! cmp -s "$work/linear.png" "$work/cpu.png"; then pass; else fail "--linear changed nothing"; fi
expect 0 "--linear with --dump-ptx" -- --arch sm_90 --size 7 --linear --dump-ptx -
contains "$work/stdout" ".entry gb_vertical_kernel(" "--linear dumps the general kernel"

# --alpha: premultiplied by default, straight on request; the choice matters on a sample with
# transparency, and a bad value is a usage error.
expect 0 "alpha premultiplied" -- "$samples/alpha.png" "$work/alpha-p.png" --size 9 -v
contains "$work/stderr" "alpha: premultiplied" "premultiplied alpha reported"
expect 0 "alpha straight" -- "$samples/alpha.png" "$work/alpha-s.png" --size 9 --alpha straight
if ! cmp -s "$work/alpha-p.png" "$work/alpha-s.png"; then pass; else fail "--alpha changed nothing"; fi
expect 2 "bad --alpha" -- "$samples/alpha.png" "$work/alpha-x.png" --alpha sideways
contains "$work/stderr" "--alpha" "bad --alpha named"
expect 2 "--kernel tiled with premultiplied alpha" -- "$samples/alpha.png" "$work/alpha-t.png" --kernel tiled

# Compiling and dumping need no GPU and no image.
expect 0 "dump PTX for sm_90" -- --arch sm_90 --size 7 --sigma 1.5 --dump-ptx -
contains "$work/stdout" ".target sm_90" "dumped PTX"
expect 0 "dump PTX to a file" -- --arch sm_120 --size 3 --target ptx --dump-ptx "$work/k.ptx"
contains "$work/k.ptx" ".target sm_120" "PTX file"
expect 0 "dump source" -- --size 7 --sigma 1.5 --channels 4 --dump-source -
contains "$work/stdout" "#define GB_CHANNELS 4" "dumped source"
GPUBLUR_NVRTC=/nonexistent/libnvrtc.so expect 1 "no NVRTC" -- --arch sm_90 --size 7 --dump-ptx -
contains "$work/stderr" "cannot load NVRTC" "NVRTC message"

# The kernel cache: a miss compiles and stores, a hit loads, a damaged entry is a miss again, and
# a cache that cannot be written is a warning. (Compiling for --arch needs no GPU.)
cache_args=(--arch sm_90 --size 5 --dump-ptx "$work/c.ptx" -v --cache-dir "$work/cache")
expect 0 "cache miss" -- "${cache_args[@]}"
contains "$work/stderr" "gpublur: compiled" "cache miss"
expect 0 "cache hit" -- "${cache_args[@]}"
contains "$work/stderr" "kernel cache hit" "cache hit"
for entry in "$work"/cache/*.kernel; do printf 'garbage' >"$entry"; done
expect 0 "corrupt cache entry" -- "${cache_args[@]}"
contains "$work/stderr" "gpublur: compiled" "corrupt entry recompiled"
expect 0 "replaced cache entry" -- "${cache_args[@]}"
contains "$work/stderr" "kernel cache hit" "entry replaced"
expect 0 "--no-cache" -- "${cache_args[@]}" --no-cache
contains "$work/stderr" "cache off" "--no-cache"
printf 'a file, not a directory' >"$work/not-a-dir"
expect 0 "unwritable cache" -- --arch sm_90 --size 5 --dump-ptx "$work/c.ptx" --cache-dir "$work/not-a-dir/cache"
contains "$work/stderr" "warning: kernel cache not written" "unwritable cache warning"

# Concurrent processes filling one cache: all succeed, and the entry they leave is whole.
pids=()
for i in 1 2 3 4 5 6; do
  "$bin" --arch sm_90 --size 9 --dump-ptx "$work/race$i.ptx" --cache-dir "$work/race-cache" \
    >/dev/null 2>"$work/race$i.err" &
  pids+=($!)
done
raced=0
for pid in "${pids[@]}"; do wait "$pid" || raced=1; done
[ "$raced" -eq 0 ] && pass || fail "a concurrent cache writer failed: $(cat "$work"/race*.err)"
expect 0 "cache after a race" -- --arch sm_90 --size 9 --dump-ptx "$work/race.ptx" -v --cache-dir "$work/race-cache"
contains "$work/stderr" "kernel cache hit" "cache entry whole after concurrent writers"
[ -z "$(find "$work/race-cache" -name '.*gpublur-*')" ] && pass || fail "concurrent writers left temporaries"

# XMP: kept JPEG to JPEG (and to PNG), said where the output cannot hold it, gone with --strip.
packet='<x:xmpmeta xmlns:x="adobe:ns:meta/">gpublur-xmp-test</x:xmpmeta>'
length=$((2 + 29 + ${#packet}))
{
  head -c 2 "$work/edges.jpg"
  printf "\\377\\341\\$(printf %o $((length / 256)))\\$(printf %o $((length % 256)))"
  printf 'http://ns.adobe.com/xap/1.0/\0%s' "$packet"
  tail -c +3 "$work/edges.jpg"
} >"$work/xmp.jpg"
for out in xmp-out.jpg xmp-out.png; do
  expect 0 "XMP into $out" -- "$work/xmp.jpg" "$work/$out" --size 3 --codec cpu
  grep -qa "gpublur-xmp-test" "$work/$out" && pass || fail "XMP not in $out"
done
expect 0 "XMP into BMP" -- "$work/xmp.jpg" "$work/xmp-out.bmp" --size 3 -v
contains "$work/stderr" "XMP not kept: bmp cannot hold it" "XMP into BMP"
expect 0 "XMP with --strip" -- "$work/xmp.jpg" "$work/xmp-strip.jpg" --size 3 --strip
! grep -qa "gpublur-xmp-test" "$work/xmp-strip.jpg" && pass || fail "--strip kept XMP"

# --timings and --json
expect 0 "--timings --json" -- "$samples/edges.png" "$work/t.png" --size 7 --timings --json
contains "$work/stderr" "decode" "--timings"
contains "$work/stderr" "encode" "--timings"
contains "$work/stdout" '"timings_ms": {' "--json"
contains "$work/stdout" '"width": 512' "--json image facts"
if command -v python3 >/dev/null; then
  python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$work/stdout" && pass || fail "--json is not valid JSON"
fi

# Outputs that are not regular files (atomic_file.hpp): a symbolic link is written through (the
# link kept, its target replaced whole), a FIFO and a character device are written into, not
# replaced by a file, and a replaced file's setuid bit is not copied. Every device and link is
# made here: a regression must never replace the machine's own /dev/null or /dev/stdout.
"$bin" "$samples/edges.png" "$work/ref.png" --size 7 --device cpu 2>/dev/null
mkdir -p "$work/real"
printf 'old' >"$work/real/target.png"
ln -s real/target.png "$work/link.png"
expect 0 "output through a link" -- "$samples/edges.png" "$work/link.png" --size 7
[ -L "$work/link.png" ] && cmp -s "$work/real/target.png" "$work/ref.png" && pass || fail "an output link was replaced, or its target not written"
ln -s real/dump.cu "$work/dump-link.cu"
expect 0 "--dump-source through a link" -- --size 7 --dump-source "$work/dump-link.cu"
[ -L "$work/dump-link.cu" ] && grep -q "GB_" "$work/real/dump.cu" && pass || fail "--dump-source replaced its link"
mkfifo "$work/fifo.png"
timeout 20 cat "$work/fifo.png" >"$work/from-fifo.png" &
reader=$!
expect 0 "output to a FIFO" -- "$samples/edges.png" "$work/fifo.png" --size 7
wait "$reader"
[ -p "$work/fifo.png" ] && cmp -s "$work/from-fifo.png" "$work/ref.png" && pass || fail "a FIFO output was replaced, or its reader got other bytes"
ln -s /proc/self/fd/1 "$work/stdout-link.png"  # what /dev/stdout is
"$bin" "$samples/edges.png" "$work/stdout-link.png" --size 7 2>/dev/null | cat >"$work/via-pipe.png"
cmp -s "$work/via-pipe.png" "$work/ref.png" && [ -L "$work/stdout-link.png" ] && pass || fail "output through a link to a pipe"
"$bin" "$samples/edges.png" "$work/stdout-link.png" --size 7 2>/dev/null >"$work/via-redirect.png"
cmp -s "$work/via-redirect.png" "$work/ref.png" && [ -L "$work/stdout-link.png" ] && pass || fail "output through a link to a redirected file"
if mknod "$work/null.png" c 1 3 2>/dev/null; then  # root only
  expect 0 "output to a character device" -- "$samples/edges.png" "$work/null.png" --size 7
  [ -c "$work/null.png" ] && pass || fail "a character device output was replaced by a file"
fi
printf 'old' >"$work/setuid.png"
chmod 4755 "$work/setuid.png"
expect 0 "replacing a setuid file" -- "$samples/edges.png" "$work/setuid.png" --size 7
[ "$(stat -c %a "$work/setuid.png")" = 755 ] && pass || fail "setuid bit copied: $(stat -c %a "$work/setuid.png")"

# The single form refuses to overwrite its input, however the output is spelled: a usage error,
# as in a batch (the output went over the input, silently).
cp "$samples/edges.png" "$work/self.png"
expect 2 "output is the input" -- "$work/self.png" "$work/self.png" --size 7
contains "$work/stderr" "would replace its input" "output is the input"
(program=$(realpath "$bin") && cd "$work" && "$program" self.png ./self.png --size 7 >/dev/null 2>&1)
[ "$?" -eq 2 ] && pass || fail "./self.png over self.png not refused"
ln "$work/self.png" "$work/self-hard.png"
expect 2 "output a hard link of the input" -- "$work/self.png" "$work/self-hard.png" --size 7
cmp -s "$work/self.png" "$samples/edges.png" && pass || fail "the input was overwritten"
# Standard output that cannot be written (a reader gone: EPIPE; a full disk: /dev/full) is one
# error line with its reason and code (141 for a closed pipe, else 1), never a silent exit 0 or
# a death by SIGPIPE; a batch stops there, leaving no temporary.
mkdir -p "$work/many"
for i in $(seq 1 40); do cp "$samples/edges.png" "$work/many/e$i.png"; done
closed_pipe() {  # ARGS...: runs gpublur with stdout a pipe whose reader has already gone
  python3 -c 'import os, subprocess, sys
r, w = os.pipe()
os.close(r)
sys.exit(subprocess.run(sys.argv[1:], stdout=w).returncode)' "$bin" "$@"
}
stdout_failure() {  # CODE REASON DESCRIPTION (after a run that wrote stderr to $work/stderr)
  [ "$got" -eq "$1" ] && pass || fail "$3: exit $got, expected $1: $(cat "$work/stderr")"
  contains "$work/stderr" "gpublur: error: cannot write to standard output: $2" "$3"
  [ "$(grep -c 'cannot write to standard output' "$work/stderr")" -eq 1 ] && pass || fail "$3: said more than once"
  [ -z "$(find "$work" -name '.*gpublur-*')" ] && pass || fail "$3: left a temporary file"
}
if command -v python3 >/dev/null; then
  closed_pipe "$work/many" -o "$work/piped-batch" --size 3 --json 2>"$work/stderr"
  got=$?
  stdout_failure 141 "Broken pipe" "batch --json to a closed pipe"
  blurred=$(sed -n 's/^gpublur: \([0-9]*\) blurred.*/\1/p' "$work/stderr")
  [ -n "$blurred" ] && [ "$blurred" -lt 40 ] && pass || fail "batch to a closed pipe went on: ${blurred:-?} of 40 blurred"
  closed_pipe "$samples/edges.png" "$work/piped.png" --size 3 --json 2>"$work/stderr"
  got=$?
  stdout_failure 141 "Broken pipe" "--json to a closed pipe"
fi
"$bin" "$samples/edges.png" - --format png --png-level 0 --size 3 2>"$work/stderr" | head -c 10 >/dev/null
got=${PIPESTATUS[0]}  # 160 KB: more than the pipe holds once head has gone
stdout_failure 141 "Broken pipe" "an image to '| head -c 10'"
"$bin" "$work/many" -o "$work/full-batch" --size 3 --json >/dev/full 2>"$work/stderr"
got=$?
stdout_failure 1 "No space left on device" "batch --json to /dev/full"
for args in "--version" "--help" "--arch sm_90 --size 3 --dump-source -" \
  "$samples/edges.png $work/full.png --size 3 --json" "$samples/edges.png - --format png --size 3"; do
  # shellcheck disable=SC2086 # (the arguments hold no spaces)
  "$bin" $args >/dev/full 2>"$work/stderr"
  got=$?
  stdout_failure 1 "No space left on device" "$args to /dev/full"
done

# Odd file names: --json's lines are valid UTF-8 JSON whose "input" and "output" give back each
# name's bytes (os.fsencode: non-UTF-8 bytes are lone surrogates, PEP 383), and stderr holds no
# raw control byte (C1's CSI included) and no byte that is not UTF-8.
if command -v python3 >/dev/null; then
  python3 -X utf8 - "$samples/edges.png" "$work/odd" <<'EOF_PY' && pass || fail "odd names: could not make them"
import os, shutil, sys
os.makedirs(os.fsencode(sys.argv[2]))
names = [b"bad\xff.png", b"c1\xc2\x9b31m.png", b"esc\x1b[31m.png", b"new\nline.png", b"caf\xc3\xa9.png",
         b"overlong\xc0\xaf.png", b"surrogate\xed\xa0\x80.png", b"emoji\xf0\x9f\x98\x80.png",
         b"quote\".png", b"back\\slash.png", b"tab\t.png", b"del\x7f.png", b"cut\xe2\x82.png"]
for name in names:
    shutil.copy(sys.argv[1], os.path.join(os.fsencode(sys.argv[2]), name))
open(os.path.join(os.fsencode(sys.argv[2]), b"text\x1b\xc2\x9b\xff.png"), "wb").write(b"not an image")
EOF_PY
  "$bin" "$work/odd" -o "$work/odd-out" --size 3 --json -v >"$work/stdout" 2>"$work/stderr"
  [ "$?" -eq 1 ] && pass || fail "odd names: exit code (one file is text): $(cat "$work/stderr")"
  python3 -X utf8 - "$work/odd" "$work/odd-out" "$work/stdout" "$work/stderr" <<'EOF_PY' && pass || fail "odd names: JSON or stderr"
import json, os, sys
src, dst = os.fsencode(sys.argv[1]), os.fsencode(sys.argv[2])
lines = open(sys.argv[3], "rb").read().decode("utf-8").rstrip("\n").split("\n")  # strict UTF-8
files = [json.loads(line) for line in lines[:-1]]
assert "summary" in json.loads(lines[-1])
inputs = sorted(os.fsencode(f["input"]) for f in files)
assert inputs == sorted(os.path.join(src, n) for n in os.listdir(src)), inputs
for f in files:
    name = os.path.basename(os.fsencode(f["input"]))
    assert os.fsencode(f["output"]) == os.path.join(dst, name), f
    assert f["status"] == ("failed" if name.startswith(b"text") else "done"), f
    assert f["status"] == "failed" or os.path.isfile(os.fsencode(f["output"])), f
err = open(sys.argv[4], "rb").read().decode("utf-8")  # strict
bad = [c for c in err if c != "\n" and (ord(c) < 0x20 or 0x7f <= ord(c) < 0xa0)]
assert not bad, bad
assert "\\x1b\\xc2\\x9b\\xff.png" in err, err
EOF_PY
fi

# Option values and paths in messages: no raw control byte (ESC, C1's CSI) reaches stderr.
esc=$'\x1b[31m' csi=$'\xc2\x9b31m' in="$samples/edges.png"
for args in "$in|o${esc}.xyz|--size|3" "$in|o.png|--size|3|--format|p${esc}" \
  "$in|o.png|--size|3|--border|c${csi}" "$in|-o|d|--size|3|--shard|1${esc}/2" \
  "$in|o.png|--size|3${esc}" "$in|$work/no${esc}/o.png|--size|3"; do
  IFS='|' read -r -a argv <<<"$args"
  "$bin" "${argv[@]}" >/dev/null 2>"$work/stderr"
  contains "$work/stderr" "gpublur: error: " "an odd value: ${argv[*]}"
  if LC_ALL=C grep -q $'\x1b\|\xc2\x9b' "$work/stderr"; then fail "raw control byte on stderr: $args"; else pass; fi
done
SLURM_ARRAY_TASK_ID="3$esc" expect 2 "an odd shard variable" -- "$in" -o "$work/d" --size 3 --shard auto
if LC_ALL=C grep -q $'\x1b' "$work/stderr"; then fail "raw control byte on stderr from the shard's variables"; else pass; fi
contains "$work/stderr" "SLURM_ARRAY_TASK_ID='3\x1b[31m'" "the shard's variables, escaped"

# Bad input: one line, the documented code, no output file, an existing output untouched.
printf 'this is text\n' >"$work/text.png"
head -c 2000 "$samples/detail.png" >"$work/truncated.png"
printf 'keep me' >"$work/existing.png"
check_failure() {  # CODE DESCRIPTION ARGS... (the output argument is $work/existing.png or new)
  local code=$1 what=$2
  shift 2
  expect "$code" "$what" -- "$@"
  [ "$(wc -l <"$work/stderr")" -eq 1 ] && pass || fail "$what: not one line: $(cat "$work/stderr")"
  contains "$work/stderr" "gpublur: error: " "$what"
  [ "$(cat "$work/existing.png")" = "keep me" ] && pass || fail "$what: existing output changed"
  [ ! -e "$work/new.png" ] && [ ! -e "$work/new.gif" ] && pass || fail "$what: left an output file"
  [ -z "$(find "$work" -name '.*gpublur-*')" ] && pass || fail "$what: left a temporary file"
}
check_failure 1 "missing input" "$work/none.png" "$work/existing.png" --size 7
check_failure 1 "text named .png" "$work/text.png" "$work/existing.png" --size 7
check_failure 1 "truncated PNG" "$work/truncated.png" "$work/existing.png" --size 7
check_failure 2 "--size 4" "$samples/edges.png" "$work/existing.png" --size 4
check_failure 2 "--size 0" "$samples/edges.png" "$work/new.png" --size 0
check_failure 2 "--sigma -1" "$samples/edges.png" "$work/existing.png" --sigma -1
check_failure 2 "--sigma nan" "$samples/edges.png" "$work/new.png" --sigma nan
check_failure 1 "missing output directory" "$samples/edges.png" "$work/missing/new.png" --size 7
check_failure 2 "unknown output extension" "$samples/edges.png" "$work/new.gif" --size 7
check_failure 2 "unknown option" "$samples/edges.png" "$work/new.png" --size 7 --bogus
check_failure 2 "--png-level 13" "$samples/edges.png" "$work/existing.png" --size 7 --png-level 13
check_failure 2 "--threads 100000" "$samples/edges.png" "$work/new.png" --size 7 --threads 100000

# Beyond the Gaussian (issue 38): refusals in one line, saying what to change.
check_failure 2 "--matrix even" "$samples/edges.png" "$work/new.png" --matrix "1 2; 3 4"
contains "$work/stderr" "must be odd" "--matrix even"
check_failure 2 "--matrix empty" "$samples/edges.png" "$work/new.png" --matrix " ; "
check_failure 2 "--matrix ragged" "$samples/edges.png" "$work/new.png" --matrix "1 2 1; 2 4"
contains "$work/stderr" "row 2" "--matrix ragged"
check_failure 2 "--matrix no number" "$samples/edges.png" "$work/new.png" --matrix "1 x 1"
check_failure 2 "--divisor 0" "$samples/edges.png" "$work/existing.png" --matrix "1 2 1" --divisor 0
check_failure 2 "--matrix past the bounds" "$samples/edges.png" "$work/new.png" --matrix "1e17 1 1e17" --divisor 1
contains "$work/stderr" "bound" "--matrix past the bounds"
check_failure 2 "--unsharp 11" "$samples/edges.png" "$work/new.png" --unsharp 11 --sigma 2
check_failure 2 "--unsharp without a size" "$samples/edges.png" "$work/new.png" --unsharp 1
check_failure 2 "--matrix and --unsharp" "$samples/edges.png" "$work/new.png" --matrix 1 --unsharp 1
check_failure 2 "--divisor without --matrix" "$samples/edges.png" "$work/new.png" --size 3 --divisor 2
# What the GPU would run, the matrix and the finish's numbers baked in (no GPU needed).
expect 0 "--matrix --dump-source" -- --matrix "-1 -1 -1; -1 8 -1; -1 -1 -1" --dump-source -
contains "$work/stdout" "#define GB_MATRIX {-1, -1, -1, -1, 8, -1, -1, -1, -1}" "--matrix --dump-source"
contains "$work/stdout" "the dense-mma kernel for a 3x3 convolution matrix" "--matrix --dump-source"
expect 0 "--matrix --kernel dp4a" -- --matrix "-1 -1 -1; -1 8 -1; -1 -1 -1" --kernel dp4a --dump-source -
contains "$work/stdout" "the dp4a kernel for a 3x3 convolution matrix" "--matrix --kernel dp4a --dump-source"
expect 0 "--matrix --kernel dense" -- --matrix "-1 -1 -1; -1 8 -1; -1 -1 -1" --kernel dense --dump-source -
contains "$work/stdout" "the dense kernel for a 3x3 convolution matrix" "--matrix --kernel dense --dump-source"
expect 2 "--matrix --kernel dense-mma, past its bound" -- --matrix "128 -1 -1; -1 8 -1; -1 -1 -1" --kernel dense-mma --arch sm_90 --dump-ptx -
contains "$work/stderr" "from -128 to 127" "--matrix --kernel dense-mma, past its bound"
# Past a byte, and past 15x15, dp4a takes the matrix: byte planes, the tile's rows in a loop.
expect 0 "--matrix past a byte: dp4a" -- --matrix "128 -1 -1; -1 8 -1; -1 -1 -1" --arch sm_90 -v --dump-ptx -
contains "$work/stderr" "gpublur_dp4a_matrix_3x3" "--matrix past a byte: dp4a"
contains "$work/stdout" "dp4a.u32.u32" "--matrix past a byte: a dp4a of unsigned bytes for the low plane"
big=$(python3 -c 'print(";".join(" ".join(str((3 * i + 7 * j) % 11 - 5 + (50 if i == j == 0 else 0)) for i in range(31)) for j in range(31)))')
expect 0 "--matrix 31x31: dp4a" -- --matrix "$big" --arch sm_90 -v --dump-ptx -
contains "$work/stderr" "gpublur_dp4a_matrix_31x31" "--matrix 31x31: dp4a"
expect 0 "--unsharp --dump-ptx" -- --unsharp 1.5 --size 7 --arch sm_90 --dump-ptx -
contains "$work/stdout" ".entry gb_blur_kernel(" "--unsharp --dump-ptx (8-bit: the tensor cores)"
expect 0 "--unsharp --kernel separable" -- --unsharp 1.5 --size 7 --kernel separable --arch sm_90 --dump-ptx -
contains "$work/stdout" ".entry gb_separable_kernel(" "--unsharp --kernel separable --dump-ptx"
expect 0 "--unsharp --arch sm_75" -- --unsharp 1.5 --size 7 --arch sm_75 --dump-ptx -
contains "$work/stdout" ".entry gb_separable_kernel(" "--unsharp --arch sm_75 --dump-ptx"
expect 0 "--matrix --dump-ptx, rank one" -- --matrix "1 2 1" --arch sm_90 --dump-ptx -
contains "$work/stdout" ".entry gb_blur_kernel(" "--matrix rank one --dump-ptx (8-bit: the tensor cores)"
expect 0 "--matrix --kernel separable" -- --matrix "1 2 1" --kernel separable --arch sm_90 --dump-ptx -
contains "$work/stdout" ".entry gb_separable_kernel(" "--matrix --kernel separable --dump-ptx"
expect 0 "--matrix --kernel general" -- --matrix "1 2 1" --kernel general --arch sm_90 --dump-ptx -
contains "$work/stdout" ".entry gb_vertical_kernel(" "--matrix --kernel general --dump-ptx"
expect 2 "--matrix --kernel tiled" -- --matrix "1 2 1" --kernel tiled --arch sm_90 --dump-ptx -
contains "$work/stderr" "takes --kernel mma, separable or general (or auto)" "--matrix --kernel tiled"
expect 2 "--matrix --kernel mma, past its bound" -- --matrix "199; 59; 0" --kernel mma --arch sm_90 --dump-ptx -
contains "$work/stderr" "--kernel mma runs a matrix of rank one" "--matrix --kernel mma, past its bound"
expect 0 "--matrix past mma's bound" -- --matrix "199; 59; 0" --arch sm_90 --dump-ptx -
contains "$work/stdout" ".entry gb_separable_kernel(" "--matrix past mma's bound --dump-ptx"

# The edge detector on a white square: its inner edge lit, the rest black; -v says the form.
printf 'P5 9 9 255\n' >"$work/square.pgm"
python3 -c 'import sys; sys.stdout.buffer.write(bytes(255 if 3 <= y <= 5 and 3 <= x <= 5 else 0 for y in range(9) for x in range(9)))' >>"$work/square.pgm"
expect 0 "edge detector" -- "$work/square.pgm" "$work/edges.pgm" --matrix "-1 -1 -1; -1 8 -1; -1 -1 -1" -v
contains "$work/stderr" "a dense 2-D pass" "edge detector -v"
lit=$(tail -c 81 "$work/edges.pgm" | od -An -tu1 -v | tr -s ' ' '\n' | grep -c '^255$')
[ "$lit" -eq 8 ] && pass || fail "edge detector: $lit pixels lit, expected the square's 8 outer ones"
# The same matrix from a libvips matrix file; a box of rank one says its two passes.
printf '3 3 1 0\n-1 -1 -1\n-1 8 -1\n-1 -1 -1\n' >"$work/edges.mat"
expect 0 "--matrix @FILE" -- "$work/square.pgm" "$work/file.pgm" --matrix "@$work/edges.mat"
cmp -s "$work/edges.pgm" "$work/file.pgm" && pass || fail "--matrix @FILE differs from the text"
expect 0 "box, rank one" -- "$samples/edges.png" "$work/box.png" --matrix "1 1 1; 1 1 1; 1 1 1" -v --json
contains "$work/stderr" "two 1-D passes (rank one)" "box -v"
contains "$work/stdout" '"operation": "matrix"' "box --json"
expect 0 "unsharp" -- "$samples/edges.png" "$work/sharp.png" --unsharp 1.5,2 --sigma 2 --json
contains "$work/stdout" '"operation": "unsharp"' "unsharp --json"

# Raw files read straight into the raster and written straight from it (codecs/raw_samples.hpp)
# give the bytes of the ordinary decode and encode: PAM in, PNG out (its decoder's samples) and
# PNG in, PAM out (its encoder's file) against PAM to PAM; 16-bit RGBA and 8-bit gray.
python3 - "$work" <<'PY'
import os, random, struct, sys
random.seed(7)
work = sys.argv[1]
w, h = 37, 23
with open(os.path.join(work, "raw16.pam"), "wb") as f:
    f.write(b"P7\nWIDTH %d\nHEIGHT %d\nDEPTH 4\nMAXVAL 65535\nTUPLTYPE RGB_ALPHA\nENDHDR\n" % (w, h))
    f.write(struct.pack(">%dH" % (w * h * 4), *(random.randrange(65536) for _ in range(w * h * 4))))
with open(os.path.join(work, "raw8.pgm"), "wb") as f:
    f.write(b"P5\n# a comment\n%d %d\n255\n" % (w, h))
    f.write(bytes(random.randrange(256) for _ in range(w * h)))
PY
for raw in raw16.pam raw8.pgm; do
  ext=${raw##*.}
  "$bin" "$work/$raw" "$work/direct.$ext" --sigma 1.5 --device cpu -q &&
    "$bin" "$work/$raw" "$work/$raw.png" --size 1 --device cpu -q &&
    "$bin" "$work/$raw.png" "$work/via-png.$ext" --sigma 1.5 --device cpu -q &&
    "$bin" "$work/$raw" "$work/direct.png" --sigma 1.5 --device cpu -q &&
    "$bin" "$work/$raw.png" "$work/png-png.png" --sigma 1.5 --device cpu -q
  cmp -s "$work/direct.$ext" "$work/via-png.$ext" && pass || fail "$raw: a raw read differs from the PNG decoder's samples"
  cmp -s "$work/direct.png" "$work/png-png.png" && pass || fail "$raw: a raw read then PNG differs from PNG to PNG"
  expect 0 "$raw to standard output" -- "$work/$raw" - --format pnm --sigma 1.5 --device cpu -q
  cmp -s "$work/stdout" "$work/direct.$ext" && pass || fail "$raw: a raw write to standard output differs from the file"
done

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
