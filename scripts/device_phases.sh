#!/usr/bin/env bash
# A device call that times builds of the sum tree two ways: by stamps
# inside their kernels (phase_<build>, a driver built with a stamped copy
# of gpu/sum_tree_sampler.cu, as in
# docs/device-logs/2026-11-26/rows-trials/h100-resident-phases/ at commit
# 2ea68a0), then by
# scripts/device_ab.sh (all of gpu_tests, the sanitizers, bench_base
# against bench_new in CUDA-event time). Unpacks .device-out/bins.tar.xz
# (carried); every argument goes to device_ab.sh (the commit note first).
#   PHASES  the stamped builds, in turn (default: base new)
#   STAMPS  rounds of them (default: 2)
# Logs under $OUT (phase_<build>_<round>.txt and device_ab.sh's); the
# caller packs them. The sanitizers' filter defaults to the resident
# pass's tests and the sum tree's sanitizer tests (SANITIZE overrides).
set -uo pipefail
if [[ -f .device-out/bins.tar.xz ]]; then tar -C .device-out -xJf .device-out/bins.tar.xz || exit 2; fi
out=${OUT:-/tmp/out}
mkdir -p "$out"
for ((r = 1; r <= ${STAMPS:-2}; ++r)); do
  for b in ${PHASES:-base new}; do ./.device-out/phase_$b > "$out/phase_${b}_$r.txt" 2>&1; done
done
export SANITIZE=${SANITIZE:-'SumTreeSampler.TinyTails*:SumTreeSampler.*UnderSanitizers:SumTreeSampler.ResidentPass*:SumTreeSampler.RepeatedCalls*'}
bash scripts/device_ab.sh "$@"
