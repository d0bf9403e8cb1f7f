#!/usr/bin/env bash
# install-deps.sh [--test] — installs gpublur's build and test dependencies from Debian's packages.
# --test adds what only the whole test suite needs (scripts/test.sh passes it): clang for the fuzz
# targets, clang-tidy for the lint test, and Slurm with munge for the cluster test (which starts
# its own daemons; the packages' services find no /etc/slurm/slurm.conf and stay down). The CUDA 13 toolkit (cuda.h, nvrtc.h, libnvrtc)
# is a prerequisite installed separately.
set -euo pipefail

packages=(cmake g++ pkg-config libcli11-dev catch2 nettle-dev libtbb-dev
  liblodepng-dev libdeflate-dev libjpeg62-turbo-dev libwebp-dev libtiff-dev libgif-dev  # codecs
  libstb-dev libpng-dev    # tests only: second decoders the codecs are held to
  python3-dev python3-venv  # the Python package (pip install .)
  python3-scipy python3-opencv)  # tests comparing with SciPy and OpenCV
if [ "${1:-}" = "--test" ]; then
  packages+=(clang-14 libclang-rt-14-dev  # fuzz/: libFuzzer with AddressSanitizer and UBSan
    clang-tidy-14  # tests/clang_tidy.sh: .clang-tidy's checks over src/
    slurmctld slurmd slurm-client munge python3-yaml)  # tests/e2e/slurm_end_to_end.sh
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

cuda_home="${CUDA_HOME:-/usr/local/cuda}"
if [ ! -f "$cuda_home/include/nvrtc.h" ]; then
  echo "install-deps: the CUDA 13 toolkit was not found under $cuda_home (set CUDA_HOME)" >&2
  exit 1
fi

# nvJPEG's header (the GPU's JPEG codec), where the toolkit has none.
bash "$(dirname "$0")/fetch-nvjpeg.sh"
