#!/usr/bin/env bash
# The Python package on the GPU machine, in two halves.
#
#   bash scripts/device_python.sh prepare      (here) builds the C++ core for sm_90 (CUDA, Release:
#       build-pygpu/), merges the module's static libraries into one archive and packs it with
#       the CUDA `warpsim` command into .device-out/python-core.tar.xz (carry .device-out)
#   bash scripts/device_python.sh run PART...  (on the device) builds _warpsim for the device's
#       python3 against that archive (python/src/module.cpp includes only core.hpp, samplers.hpp
#       and pybind11, so no Debian library is needed there), then runs each PART:
#         pytest       python/tests (host and device tests) -> $OUT/pytest.txt
#         validate     bench/python_device.py validate       -> $OUT/validate.json
#         multinomial  bench/python_device.py multinomial    -> $OUT/multinomial.json
#         thirdparty   bench/python_device.py thirdparty (PyTorch, then JAX) -> $OUT/thirdparty*.json
#         tokenlaws    bench/token_laws.py (PyTorch's reference beside the token law) -> $OUT/token_laws.jsonl
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:?prepare or run}
shift || true

if [[ $what == prepare ]]; then
  b=${WARPSIM_PY_BUILD:-build-gpu}  # a CUDA build (Release); only these targets are built
  cmake -S . -B $b -G Ninja -DCMAKE_BUILD_TYPE=Release -DWARPSIM_CUDA=ON -DWARPSIM_PYTHON=ON > /dev/null
  cmake --build $b --target warpsim_python_core warpsim
  libs=(python/libwarpsim_python_core.a cli/libwarpsim_validate_core.a properties/libwarpsim_value_samplers.a stats/libwarpsim_stats.a
        sim/libwarpsim_sim.a gpu/libwarpsim_gpu.a gpu/libwarpsim_sum_tree_plan.a)
  { echo "create libwarpsim_python_all.a"; for l in "${libs[@]}"; do echo "addlib $l"; done; echo save; echo end; } > $b/merge.mri
  (cd $b && rm -f libwarpsim_python_all.a && ar -M < merge.mri)
  mkdir -p .device-out
  tar cJf .device-out/python-core.tar.xz -C $b libwarpsim_python_all.a cli/warpsim
  ls -l .device-out/python-core.tar.xz
  exit 0
fi

out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/pyb
tar xJf .device-out/python-core.tar.xz -C /tmp/pyb
pkg=/tmp/pyb/python/warpsim
mkdir -p "$pkg"
cp python/warpsim/*.py "$pkg/"
ext=$(python3 -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))")
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; date -u; python3 --version; echo "commit ${WARPSIM_COMMIT:-?}"; } | tee "$out/device.txt"
t0=$(date +%s)
g++ -O2 -std=c++20 -shared -fPIC -I. $(python3 -m pybind11 --includes) python/src/module.cpp /tmp/pyb/libwarpsim_python_all.a \
  -L/usr/local/cuda/lib64 -lcudart_static -ldl -lrt -lpthread -o "$pkg/_warpsim$ext"
echo "module built in $(( $(date +%s) - t0 )) s: $pkg/_warpsim$ext" | tee -a "$out/device.txt"
export PYTHONPATH=/tmp/pyb/python WARPSIM_CLI=/tmp/pyb/cli/warpsim PYTHONUNBUFFERED=1
for part in "$@"; do
  echo "== $part"
  case $part in
    pytest) python3 -m pytest -q -p no:cacheprovider -rs python/tests 2>&1 | tee "$out/pytest.txt" || true ;;
    validate|multinomial) python3 bench/python_device.py "$part" "$out/$part.json" 2>&1 | tail -n 40 || true ;;
    thirdparty)
      python3 bench/python_device.py thirdparty "$out/thirdparty.json" "$WARPSIM_CLI" "${THIRDPARTY_DRAWS:-1e8}" 2>&1 | tail -n 20 || true
      python3 bench/python_device.py thirdparty "$out/thirdparty-jax.json" "$WARPSIM_CLI" "${THIRDPARTY_DRAWS:-1e8}" --jax 2>&1 | tail -n 8 || true ;;
    tokenlaws) (cd bench && python3 token_laws.py "$out/token_laws.jsonl" 2>&1 | tail -n 40) || true ;;
    *) echo "unknown part $part" ;;
  esac
done
