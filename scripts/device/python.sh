#!/usr/bin/env bash
# scripts/device/python.sh DEPS_PREFIX — the Python package on the device machine (no package
# registry): `pip install .` into the machine's Python with its own scikit-build-core and nanobind
# (--no-build-isolation) against the dependencies unpacked under DEPS_PREFIX (deps.sh),
# kornia from .carry/wheels when carried (pip download kornia kornia_rs), then the Python tests
# (GPU cases included) and bench/python_bench.py (not with BENCH=0). Logs under $OUT.
set -uo pipefail
cd "$(dirname "$0")/../.."
prefix=$1
out=${OUT:-build/device-python}
mkdir -p "$out"
export LD_LIBRARY_PATH="$prefix/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PATH=/usr/local/cuda/bin:$PATH
python3 --version
# The distribution's compiler, whose libstdc++ is the one the process loads: the device's
# CXX=/opt/gcc/bin/g++ links its own newer libstdc++ into the module statically, and that private
# copy's iostreams crashed once NumPy (using the system libstdc++) was loaded in the same process.
export CXX=/usr/bin/g++ CC=/usr/bin/gcc
rm -rf build/python  # configured by another compiler in an earlier call
python3 -m pip install --no-build-isolation --no-index \
  -Ccmake.define.CMAKE_PREFIX_PATH="$prefix" . >"$out/pip.log" 2>&1 || { tail -30 "$out/pip.log"; exit 1; }
if [ -d .carry/wheels ]; then
  python3 -m pip install --no-index --no-deps --find-links .carry/wheels kornia kornia_rs >>"$out/pip.log" 2>&1 ||
    echo "kornia: not installed (see pip.log)"
fi
scripts=$(python3 -c 'import sysconfig; print(sysconfig.get_path("scripts"))')
GPUBLUR_CLI="$scripts/gpublur" python3 -m pytest -q -rs tests/python 2>&1 | tee "$out/pytest.log" | tail -15
status=${PIPESTATUS[0]}
[ "${BENCH:-1}" = 0 ] || python3 bench/python_bench.py 2>&1 | tee "$out/python_bench.log"
exit "$status"
