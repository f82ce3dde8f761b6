#!/usr/bin/env bash
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p $out
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $out/device.txt
./.device-out/gpu_tests --gtest_filter='GpuAlias*:Registry/GpuEntry.*alias*:GpuBringmann*' > $out/gpu_tests.log 2>&1
echo "gpu_tests: $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $out/gpu_tests.log | tr '\n' ' ')"; grep -E '^\[  FAILED' $out/gpu_tests.log | head
./.device-out/cli_tests --gtest_filter='AliasCommand.Device*' > $out/cli_tests.log 2>&1
for tool in memcheck racecheck synccheck; do
  RC_PARAMS="max_success=10" timeout 120 compute-sanitizer --tool $tool ./.device-out/gpu_tests \
    --gtest_filter='GpuAlias.BuildEqualsTheOracleOnEveryFamily:GpuAlias.GraphReplays*:GpuAlias.BadWeights*:GpuAlias.BuildEqualsTheOracleAtTheEndsOfTheRange:GpuAlias.BuildEqualsTheOracleWhereHeaviesRunLong' --gtest_brief=1 > $out/$tool.log 2>&1
  echo "$tool: $(tail -1 $out/$tool.log)"
done
b=./.device-out/bench_gpu_alias
{ $b --construction; $b --graph; } 2>&1 | tee $out/bench.jsonl
for n in 10000000 100000000; do
  ncu --cache-control none --clock-control none --metrics gpu__time_duration.sum $b --once $n 2>&1 | grep -E "^  [a-z_ ]|gpu__time" > $out/ncu_insitu_$n.txt
done
paste - - < $out/ncu_insitu_10000000.txt | awk '{print $NF, $2}' | head -20
