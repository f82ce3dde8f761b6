#!/usr/bin/env bash
# One device call for issue 16 (the sum-tree draw across the (M, K) plane):
# its GPU tests against the oracle, compute-sanitizer (memcheck, racecheck,
# synccheck) on them, bench_gpu_rows and PyTorch's methods on the same grid,
# and ncu's kernel durations at small M (latency: what an event-timed call
# adds to the kernel); logs under $OUT. Expects the binaries
# built here in .device-out/ (carried): gpu_tests, bench_gpu_rows, or
# .device-out/bins.tar.xz holding them (the carried tree stays under 64 MiB).
set -uo pipefail
if [[ -f .device-out/bins.tar.xz ]]; then tar -C .device-out -xJf .device-out/bins.tar.xz || exit 2; fi
out=${OUT:-/tmp/out}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > "$out/device.txt" 2>&1
cat "$out/device.txt"
./.device-out/gpu_tests --gtest_filter='SumTree*:Registry/GpuEntry.*sum_tree*' > "$out/gpu_tests.log" 2>&1
echo "gpu_tests: $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' "$out/gpu_tests.log" | tr '\n' ' ')"
grep -E '^\[  FAILED|Failure|GPU [0-9]' "$out/gpu_tests.log" | head -20
for tool in memcheck racecheck synccheck; do
  filter='SumTreeSampler.TinyTails*:SumTreeSampler.Refuses*:SumTreeSampler.*UnderSanitizers'
  [[ $tool == memcheck ]] && filter="$filter:SumTreeSampler.EveryDrawIsTheOraclesFp32:SumTreeSampler.LanesPerRowEveryKernel*"
  timeout 300 compute-sanitizer --tool $tool ./.device-out/gpu_tests --gtest_filter="$filter" \
    --gtest_brief=1 > "$out/$tool.log" 2>&1
  echo "$tool: $(tail -1 "$out/$tool.log")"
done
./.device-out/bench_gpu_rows 2>&1 | tee "$out/bench_gpu_rows.jsonl"
[[ ${SKIP_TORCH:-0} == 1 ]] || PYTHONUNBUFFERED=1 python3 bench/torch_rows_baselines.py 2>&1 | tee "$out/torch_rows_baselines.jsonl"
# Kernel durations at small M, the GPU's own clock (L2 warm, as in the
# benchmark): set beside the event-timed medians of bench_gpu_rows.jsonl.
if command -v ncu > /dev/null; then
  timeout 300 ncu --cache-control none --clock-control none --metrics gpu__time_duration.sum --csv \
    -k 'regex:block_pass|segment_pass|row_pass|empty_kernel' ./.device-out/bench_gpu_rows --fp32 \
    --point 1:4096:1 --point 64:4096:1 --point 1:32768:1 --point 1:131072:1 --point 1:131072:64 --point 1:1048576:1 \
    > "$out/ncu_small_m.csv" 2> "$out/ncu_small_m.err"
  echo "ncu: $(wc -l < "$out/ncu_small_m.csv") lines"
fi
