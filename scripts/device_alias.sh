#!/usr/bin/env bash
# One device call for the alias tables (issue 14): the GPU tests against the
# oracle (and the registry's alias GPU entries, alias build --device),
# compute-sanitizer (memcheck, racecheck, synccheck), bench_gpu_alias,
# the PyTorch baselines, and the thesis's own code (built there from
# .thesis-src, carried; bench/thesis_baseline/) timed after ours, alone on the
# GPU. Expects .device-out/{gpu_tests,cli_tests,bench_gpu_alias} (carried). Returns
# $OUT/alias-logs.tar.gz and $OUT/summary.txt.
set -uo pipefail
out=${OUT:-/tmp/out}
logs=$(mktemp -d)/alias-logs
mkdir -p "$out" "$logs"
source bench/thesis_baseline/device_start.sh  # device.txt; the thesis built in the background
./.device-out/gpu_tests --gtest_filter='GpuAlias*:Registry/Gpu*Entry.*alias*' > "$logs/gpu_tests.log" 2>&1
echo "gpu_tests: $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' "$logs/gpu_tests.log" | tr '\n' ' ')"
grep -E "10\^9 (sectioned )?GPU alias|PSA\+ \(groups" "$logs/gpu_tests.log"
./.device-out/cli_tests --gtest_filter='AliasCommand.Device*' > "$logs/cli_tests.log" 2>&1
echo "cli_tests (alias build --device): $(grep -E '^\[  (PASSED|FAILED)' "$logs/cli_tests.log" | tr '\n' ' ')"
for tool in memcheck racecheck synccheck; do
  RC_PARAMS="max_success=15" timeout 150 compute-sanitizer --tool $tool ./.device-out/gpu_tests \
    --gtest_filter='GpuAlias.BuildEqualsTheOracleOnEveryFamily:GpuAlias.BuildEqualsTheOracleWhereHeaviesRunLong:GpuAlias.DrawsEqualTheOracle:GpuAlias.SectionedDrawsEqualTheOracle:GpuAlias.HostWeights*:GpuAlias.GraphReplays*:GpuAlias.BadWeights*' \
    --gtest_brief=1 > "$logs/$tool.log" 2>&1
  echo "$tool: $(tail -1 "$logs/$tool.log")"
done
./.device-out/bench_gpu_alias > "$logs/bench_gpu_alias.jsonl" 2>&1
cat "$logs/bench_gpu_alias.jsonl"
# Each construction kernel's time and DRAM bytes (ncu flushes the caches
# between kernels: each reads from DRAM), at 10^7 and 10^8 items.
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for n in 10000000 100000000; do
  "$ncu" --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum ./.device-out/bench_gpu_alias --once $n \
    > "$logs/ncu_kernels_$n.txt" 2>&1
done
# The same kernels timed in situ: caches kept from the kernel before and
# clocks free, as in a build (ncu still runs them one at a time).
for n in 10000000 100000000; do
  "$ncu" --cache-control none --clock-control none --metrics gpu__time_duration.sum ./.device-out/bench_gpu_alias --once $n \
    > "$logs/ncu_insitu_$n.txt" 2>&1
done
# The construction with plain launches (AliasBuildConfig::dependent_launch
# = false) and as replayed graphs, for the launches' share.
./.device-out/bench_gpu_alias --plain-launch > "$logs/plain_launch.jsonl" 2>&1
./.device-out/bench_gpu_alias --graph > "$logs/graph.jsonl" 2>&1
# The sectioned sampler's first launch (10^8 draws, 10^5 items): its
# instructions, pipes and occupancy.
"$ncu" --kernel-name regex:sectioned_draws --launch-count 1 --section SpeedOfLight --section ComputeWorkloadAnalysis \
  --section Occupancy --metrics smsp__inst_executed.sum,gpu__time_duration.sum ./.device-out/bench_gpu_alias --sampling --quick \
  > "$logs/ncu_sectioned.txt" 2>&1
# Its SASS (the loop of sectioned_draws<false>: 74 instructions a pair of draws).
cuobjdump -sass ./.device-out/gpu_tests 2>/dev/null | awk '/Function : .*sectioned_drawsILb0/{p=1} /Function : /&&!/sectioned_drawsILb0/{p=0} p' \
  > "$logs/sass_sectioned.txt"
PYTHONUNBUFFERED=1 python3 bench/torch_alias_baselines.py > "$logs/torch_alias_baselines.jsonl" 2>&1
cat "$logs/torch_alias_baselines.jsonl"
if [[ -n ${build_pid:-} ]]; then
  wait "$build_pid"
  tail -2 "$logs/thesis_build.log"
  [[ -x $thesis_bin ]] && timeout 300 "$thesis_bin" > "$logs/thesis_bench.jsonl" 2>&1
  cat "$logs/thesis_bench.jsonl" 2>/dev/null
fi
{ cat "$logs/device.txt"; grep -hE '^\[  (PASSED|FAILED)|10\^9' "$logs/gpu_tests.log"; for t in memcheck racecheck synccheck; do echo "$t: $(tail -1 "$logs/$t.log")"; done; } > "$out/summary.txt"
tar -czf "$out/alias-logs.tar.gz" -C "$(dirname "$logs")" alias-logs
