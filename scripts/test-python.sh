#!/usr/bin/env bash
# test-python.sh — the Python package from this checkout: a virtual environment (build/python-venv,
# seeing Debian's numpy and scipy) with the build tools from PyPI, `pip install .`, then pytest on
# tests/python (GPU cases run where a GPU and CuPy or PyTorch are present, else are skipped).
# scripts/test.sh runs it after CTest.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=build/python-venv
# Debian's interpreter, which install-deps.sh gave venv, headers, numpy and scipy (a python3
# earlier on PATH, e.g. pyenv's, has none of them).
python=/usr/bin/python3
[ -x "$python" ] || python=python3
[ -x "$venv/bin/python" ] || "$python" -m venv --system-site-packages "$venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check "scikit-build-core>=0.10" "nanobind>=2.0" pytest
"$venv/bin/python" -m pip install -q --disable-pip-version-check --no-build-isolation .
GPUBLUR_CLI="$PWD/$venv/bin/gpublur" "$venv/bin/python" -m pytest -q tests/python
