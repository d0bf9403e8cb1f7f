#!/usr/bin/env bash
# device-run.sh PACK SECONDS TARGET:JOBS... — runs fuzz targets packed by fuzz/pack.sh for SECONDS
# each, JOBS processes at a time per target (libFuzzer's -fork), all targets at once, with
# run.sh's limits (10 s an input, 1 GiB an allocation). LD_LIBRARY_PATH must find the codec
# libraries (scripts/device/deps.sh's). Prints, per target, inputs run, CPU seconds and
# findings; packs the findings and logs into $OUT/fuzz-findings.tar.xz.
set -uo pipefail
pack=$1 seconds=$2
shift 2
work=$(mktemp -d)
tar -C "$work" -xJf "$pack"
run() {
  local t=$1 jobs=$2
  mkdir -p "$work/findings/$t"
  (cd "$work" && "./fuzz_$t" "corpus/$t" -fork="$jobs" -max_total_time="$seconds" -timeout=10 \
    -rss_limit_mb=3072 -malloc_limit_mb=1024 -artifact_prefix="findings/$t/" \
    -print_final_stats=1 >"$t.log" 2>&1)
  local code=$?
  times >"$work/$t.times"  # this subshell's children: the target's processes
  local cpu
  cpu=$(sed -n 2p "$work/$t.times" | awk '{ s = 0; for (i = 1; i <= 2; ++i) {
    split($i, p, "m"); s += p[1] * 60 + p[2] } printf "%d", s }')
  local runs
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work/$t.log" | grep -o '[0-9]*$' |
    awk '{ s += $1 } END { print s + 0 }')
  [ "$runs" -gt 0 ] || runs=$(grep -o '#[0-9]*' "$work/$t.log" | tail -1 | tr -d '#')
  echo "fuzz_$t: ${runs:-?} inputs in $seconds s on $jobs processes ($cpu CPU-s), exit $code," \
    "findings: $(ls "$work/findings/$t" | wc -l) $(ls "$work/findings/$t" | head -3 | tr '\n' ' ')"
}
for spec in "$@"; do
  run "${spec%%:*}" "${spec##*:}" &
done
wait
mkdir -p "${OUT:-.}"
tar -C "$work" -cJf "${OUT:-.}/fuzz-findings.tar.xz" findings $(cd "$work" && ls ./*.log)
