#!/usr/bin/env bash
# The second kernel's lane-a-draw draws from marks the segment pass keeps
set -uo pipefail
cd .device-out && tar -xJf bins.tar.xz && cd ..
D=.device-out
out=${OUT:-/tmp/out}
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > "$out/device.txt" 2>&1
echo "$1" > "$out/commit.txt"
timeout 500 $D/gpu_tests > "$out/gpu_tests.log" 2>&1
echo "gpu_tests: $(grep -E '^\[  (PASSED|FAILED)' "$out/gpu_tests.log" | tr '\n' ' ') skipped $(grep -c '^\[  SKIPPED \]' "$out/gpu_tests.log")"
grep -E '^\[  FAILED|Failure' "$out/gpu_tests.log" | head -10
for tool in memcheck racecheck synccheck; do
  timeout 200 compute-sanitizer --tool $tool $D/gpu_tests --gtest_filter='SumTreeSampler.SecondKernelUnderSanitizers:SumTreeSampler.TinyTails*' --gtest_brief=1 > "$out/$tool.log" 2>&1
  echo "$tool: $(tail -1 "$out/$tool.log")"
done
P="--point 256:131072:64 --point 1024:131072:16 --point 1:131072:1024 --point 1:131072:65536 --point 1:1048576:65536 --point 1:131072:64 --point 64:1048576:8 --point 32:4096:8192 --point 256:131072:1 --point 1024:131072:1 --point 1:1048576:1"
for r in 1 2 3; do
  if [[ $r == 2 ]]; then order="new base"; else order="base new"; fi
  for b in $order; do $D/bench_$b --forced segmented $P > "$out/${b}_$r.jsonl" 2>&1; done
done
timeout 120 ncu --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum --csv -k 'regex:row_pass|segment_pass' -c 8 $D/bench_new --fp64 --forced none --point 256:131072:64 > "$out/ncu_new.csv" 2>&1
cd "$out" && tar czf logs.tgz * && ls | grep -v logs.tgz | xargs rm -f
