#!/usr/bin/env bash
# clang_tidy.sh BUILD_DIR — .clang-tidy's checks over every source file of src/, compiled as
# BUILD_DIR/compile_commands.json says (the presets export it), headers of src/ and kernels/
# included; any finding fails. Exits 77, which CTest reports as skipped, where Debian's
# clang-tidy-14 is not installed (scripts/install-deps.sh --test installs it). Runs
# GPUBLUR_TIDY_JOBS files at a time (default: the number of cores).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:?usage: tests/clang_tidy.sh BUILD_DIR}
tidy=${CLANG_TIDY:-clang-tidy-14}
command -v "$tidy" >/dev/null || { echo "clang-tidy: $tidy not found (install-deps.sh --test)"; exit 77; }
database="$build/compile_commands.json"
[ -f "$database" ] || { echo "clang-tidy: no $database (CMAKE_EXPORT_COMPILE_COMMANDS=ON)"; exit 1; }
mapfile -t files < <(python3 - "$database" "$root/src/" <<'PY'
import json, sys
entries = json.load(open(sys.argv[1]))
print("\n".join(sorted({e["file"] for e in entries if e["file"].startswith(sys.argv[2])})))
PY
)
[ ${#files[@]} -gt 0 ] || { echo "clang-tidy: $database names no file of $root/src/"; exit 1; }
# The database as clang reads it: GCC-only flags (png_encode.cpp's vectoriser options) left out,
# which clang's driver would refuse as unknown arguments.
filtered=$(mktemp -d)
trap 'rm -rf "$filtered"' EXIT
python3 - "$database" "$filtered/compile_commands.json" <<'PY'
import json, sys
gcc_only = ("-fvect-cost-model",)
entries = json.load(open(sys.argv[1]))
for e in entries:
    if "command" in e:
        e["command"] = " ".join(a for a in e["command"].split() if not a.startswith(gcc_only))
    if "arguments" in e:
        e["arguments"] = [a for a in e["arguments"] if not a.startswith(gcc_only)]
json.dump(entries, open(sys.argv[2], "w"))
PY
jobs=${GPUBLUR_TIDY_JOBS:-$(nproc)}
start=$(date +%s)
# One clang-tidy per file; xargs exits 123 when any of them found something. The "N warnings
# generated" lines count what the header filter and the check list left out.
printf '%s\n' "${files[@]}" | xargs -P "$jobs" -n 1 "$tidy" -p "$filtered" --quiet 2>&1 |
  grep -v '^[0-9]* warnings\? generated\.$'
status=${PIPESTATUS[1]}
echo "clang-tidy: ${#files[@]} files of src/ in $(($(date +%s) - start)) s on $jobs jobs: $([ "$status" = 0 ] && echo clean || echo FINDINGS)"
[ "$status" = 0 ]
