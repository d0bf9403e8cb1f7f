#!/usr/bin/env bash
# test.sh — the whole test suite from a fresh clone: dependencies, configure, build, CTest, then
# the Python package (scripts/test-python.sh: pip install . and pytest).
# GPU tests run where a GPU is present and are reported as skipped elsewhere.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh --test
cmake --preset ci
cmake --build --preset ci -j "$(nproc)"
ctest --preset ci
bash scripts/test-python.sh
