#!/usr/bin/env bash
# run.sh SECONDS [TARGET...] — runs each fuzz target (default: all that `fuzz_decoder --targets`
# lists) for SECONDS on its corpus (FUZZ_OUT/corpus/TARGET, seeded by gpublur_fuzz_seeds and by
# tests/crashers), two at a time.
# Fails, naming the input, if a target crashes, hangs (10 s an input), or allocates more than
# 1 GiB at once. A long run, e.g. half an hour each: fuzz/run.sh 1800
# FUZZ_OUT (default build/fuzz) holds the targets, corpora, logs and findings; GPUBLUR_FUZZ_SEEDS
# names a built gpublur_fuzz_seeds (default: the ci preset's, built if missing). Exits 77, which
# CTest reports as skipped, where Debian's clang-14 is not installed (install-deps.sh installs it).
set -uo pipefail
cd "$(dirname "$0")/.."
seconds=${1:?usage: fuzz/run.sh SECONDS [TARGET...]}
shift
targets=("$@")
command -v "${CXX_FUZZ:-clang++-14}" >/dev/null || { echo "fuzz: ${CXX_FUZZ:-clang++-14} not found"; exit 77; }
out=${FUZZ_OUT:-build/fuzz}
bash fuzz/build.sh "$out" >/dev/null || exit 1
[ ${#targets[@]} -gt 0 ] || mapfile -t targets < <("$out/cmake/fuzz_decoder" --targets)
seeds=${GPUBLUR_FUZZ_SEEDS:-build/ci/gpublur_fuzz_seeds}
if [ ! -x "$seeds" ]; then
  cmake --preset ci >/dev/null && cmake --build --preset ci --target gpublur_fuzz_seeds >/dev/null || exit 1
fi
"$seeds" "$out/seeds" || exit 1
run_one() {
  local t=$1
  mkdir -p "$out/corpus/$t" "$out/findings/$t"
  cp -n "$out/seeds/$t"/* "$out/corpus/$t/" 2>/dev/null
  [ -d "tests/crashers/$t" ] && cp -n "tests/crashers/$t"/* "$out/corpus/$t/" 2>/dev/null
  "$out/fuzz_$t" "$out/corpus/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=3072 \
    -malloc_limit_mb=1024 -artifact_prefix="$out/findings/$t/" -print_final_stats=1 \
    >"$out/$t.log" 2>&1
  local code=$?
  # CPU seconds as well as wall seconds: on a busy machine a target gets less than its wall time.
  # run_one is a subshell of its own, so `times` counts this target's fuzzer and nothing else.
  times >"$out/$t.times"
  local runs cpu
  cpu=$(sed -n 2p "$out/$t.times" | awk '{ s = 0; for (i = 1; i <= 2; ++i) {
    split($i, p, "m"); s += p[1] * 60 + p[2] } printf "%d", s }')
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$out/$t.log" | grep -o '[0-9]*$')
  if [ "$code" -eq 0 ]; then
    echo "fuzz_$t: ${runs:-?} inputs in ${seconds} s (${cpu} CPU-s), no finding"
  else
    echo "fuzz_$t: FINDING (exit $code): $(ls "$out/findings/$t" | head -3); see $out/$t.log"
  fi
  return "$code"
}
status=0
running=0
pids=()
names=()
for t in "${targets[@]}"; do
  run_one "$t" &
  pids+=($!)
  names+=("$t")
  running=$((running + 1))
  if [ "$running" -ge 2 ]; then
    wait "${pids[0]}" || status=1
    pids=("${pids[@]:1}")
    running=$((running - 1))
  fi
done
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
exit "$status"
