#!/usr/bin/env bash
# A/B: a block a row's draws from their lanes' marks (one batch of vectors)
set -uo pipefail
cd .device-out && tar -xJf bins.tar.xz && cd ..
D=.device-out
out=${OUT:-/tmp/out}
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > "$out/device.txt" 2>&1
echo "$1" > "$out/commit.txt"
timeout 500 $D/gpu_tests > "$out/gpu_tests.log" 2>&1
echo "gpu_tests: $(grep -E '^\[  (PASSED|FAILED)' "$out/gpu_tests.log" | tr '\n' ' ') skipped $(grep -c '^\[  SKIPPED \]' "$out/gpu_tests.log")"
grep -E '^\[  FAILED|Failure' "$out/gpu_tests.log" | head -10
timeout 300 compute-sanitizer --tool memcheck $D/gpu_tests --gtest_filter='SumTreeSampler.BlockPerRowUnderSanitizers:SumTreeSampler.EveryDrawIsTheOraclesFp64' --gtest_brief=1 > "$out/memcheck.log" 2>&1
echo "memcheck: $(tail -1 "$out/memcheck.log")"
timeout 200 compute-sanitizer --tool racecheck $D/gpu_tests --gtest_filter='SumTreeSampler.BlockPerRowUnderSanitizers' --gtest_brief=1 > "$out/racecheck.log" 2>&1
echo "racecheck: $(tail -1 "$out/racecheck.log")"
P="--point 1:32768:1 --point 64:32768:1 --point 1:4096:1 --point 64:4096:1 --point 4096:64:1024 --point 1024:32768:16 --point 1024:32768:1 --point 4096:32768:8 --point 4096:32768:1 --point 1024:131072:16 --point 256:131072:64 --point 65536:4096:1 --point 1024:4096:1 --point 1:64:65536 --point 16:1024:4096 --point 32:4096:8192 --point 4096:1024:512 --point 1:4096:65536 --point 64:32768:1024"
for r in 1 2 3; do
  if [[ $r == 2 ]]; then order="new base"; else order="base new"; fi
  for b in $order; do $D/bench_$b --forced block $P > "$out/${b}_$r.jsonl" 2>&1; done
done
timeout 120 ncu --metrics gpu__time_duration.sum,dram__bytes_read.sum,lts__t_sector_hit_rate.pct --csv -k 'regex:block_pass' -c 5 $D/bench_new --fp64 --forced none --point 1024:32768:16 > "$out/ncu_new.csv" 2>&1
cd "$out" && tar czf logs.tgz * && ls | grep -v logs.tgz | xargs rm -f
