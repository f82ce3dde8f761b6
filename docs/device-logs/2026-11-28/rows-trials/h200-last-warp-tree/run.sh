#!/usr/bin/env bash
# Trial: past 32 segments a row's last warp builds the row's tree and walks
# its draws in the segment pass (one kernel), against the second kernel and
# a row's cluster at the points whose 64 us floor sits at the 1.2x
# boundary; the sum tree's GPU tests (the new ones among them) and the
# sanitizers on the new test.
set -uo pipefail
tar -C .device-out -xJf .device-out/bins.tar.xz || exit 2
D=./.device-out
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > "$OUT/device.txt" 2>&1
timeout 200 $D/gpu_tests --gtest_filter='SumTree*' > "$OUT/gpu_tests.log" 2>&1
echo "gpu_tests: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]+' "$OUT/gpu_tests.log" | tr '\n' ' ')"
grep -E '^\[  FAILED|Failure' "$OUT/gpu_tests.log" | head
for tool in memcheck racecheck synccheck; do
  timeout 150 compute-sanitizer --tool $tool $D/gpu_tests --gtest_filter='SumTreeSampler.LastWarpTreeUnderSanitizers' --gtest_brief=1 > "$OUT/$tool.log" 2>&1
  echo "$tool: $(tail -1 "$OUT/$tool.log")"
done
P32="--point 64:1048576:1 --point 32:1048576:1 --point 256:131072:1 --point 512:131072:1 --point 1024:131072:1 --point 192:262144:1 --point 256:262144:1 --point 1024:262144:1 --point 256:131072:4"
P64="--point 32:1048576:1 --point 64:1048576:1 --point 256:131072:1 --point 512:131072:1 --point 1024:131072:1 --point 512:65536:1 --point 1024:65536:1 --point 256:131072:4 --point 128:262144:1"
for pass in 1 2; do
  $D/bench_gpu_rows --fp32 --forced segmented $P32 > "$OUT/fp32_$pass.jsonl" 2>&1; echo "fp32 $pass rc $?"
  $D/bench_gpu_rows --fp64 --forced segmented $P64 > "$OUT/fp64_$pass.jsonl" 2>&1; echo "fp64 $pass rc $?"
done
