#!/usr/bin/env bash
# One device call for rejection sampling (issue 15): the GPU tests of seed
# 004's loops, of Bringmann-Larsen and of the gamma variates and LDA's theta
# and phi against the oracle (and the registry's GPU entry), compute-sanitizer (memcheck, racecheck, synccheck),
# bench_gpu_rejection, PyTorch's gamma variates (bench/torch_gamma_baseline.py),
# and the thesis's own Bringmann-Larsen (built there
# from .thesis-src, carried; bench/thesis_baseline/driver.cu rejection),
# timed after ours. Expects .device-out/{gpu_tests,bench_gpu_rejection}
# (carried). Logs under $OUT/rejection-logs/, a summary on stdout.
set -uo pipefail
out=${OUT:-/tmp/out}
logs=$out/rejection-logs
mkdir -p "$logs"
source bench/thesis_baseline/device_start.sh  # device.txt; the thesis built in the background
./.device-out/gpu_tests --gtest_filter='GpuBringmannLarsen*:GpuRejection*:GpuGamma*:Registry/Gpu*Entry.*bringmann*' > "$logs/gpu_tests.log" 2>&1
echo "gpu_tests: $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' "$logs/gpu_tests.log" | tr '\n' ' ')"
grep -E "FAILED|iterations a warp call|relative difference" "$logs/gpu_tests.log"
for tool in memcheck racecheck synccheck; do
  timeout 200 compute-sanitizer --tool $tool ./.device-out/gpu_tests \
    --gtest_filter='GpuBringmannLarsen.BuildsTheOraclesStructureBitForBit:GpuBringmannLarsen.RefusesBad*:GpuBringmannLarsen.UncachedAttempts*:GpuRejection.EachWarp*:GpuGamma.LdaGibbs*' \
    --gtest_brief=1 > "$logs/$tool.log" 2>&1
  echo "$tool: $(tail -1 "$logs/$tool.log")"
done
./.device-out/bench_gpu_rejection ${BENCH_FLAGS:-} > "$logs/bench_gpu_rejection.jsonl" 2>&1
cat "$logs/bench_gpu_rejection.jsonl"
(cd bench && PYTHONUNBUFFERED=1 python3 torch_gamma_baseline.py) > "$logs/torch_gamma_baseline.jsonl" 2>&1
cat "$logs/torch_gamma_baseline.jsonl"
if [[ -n ${build_pid:-} ]]; then
  wait "$build_pid"
  tail -2 "$logs/thesis_build.log"
  [[ -x $thesis_bin ]] && timeout 240 "$thesis_bin" rejection > "$logs/thesis_rejection.jsonl" 2>&1
  cat "$logs/thesis_rejection.jsonl"
fi
