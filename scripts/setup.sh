#!/usr/bin/env bash
# Installs what warpsim needs on a fresh Debian 12 machine (run as root).
# Every library comes from a Debian package; CUDA (nvcc) is optional and used
# when found at /usr/local/cuda.
set -euo pipefail

packages=(
  cmake ninja-build g++ git
  libgtest-dev libgmock-dev librapidcheck-dev libbenchmark-dev
  libeigen3-dev libboost1.81-dev librandom123-dev libcli11-dev nlohmann-json3-dev
  clang libclang-rt-14-dev  # libFuzzer, for the fuzz targets (fuzz/)
  chromium  # headless, for the test of `warpsim show --format html`
  python3   # scripts/rows_report.py, which the rows picture's test runs
  python3-dev python3-numpy python3-pytest pybind11-dev  # the Python package (python/) and its tests
  libopenmpi-dev openmpi-bin  # the distributed paths (dist/, docs/distributed.md): mpirun -np R warpsim validate
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
else
  echo "setup: all packages present"
fi
