#!/usr/bin/env bash
# plan() taking the resident pass for rows of up to 512 segments (new,
# 3e3cc17) against 1c0807e (base: up to 64); H100: the sum tree's tests,
# racecheck on the resident pass's, 3 rounds, ncu's kernel durations.
P=""
for p in 1:131072:1 1:262144:1 1:524288:1 1:1048576:1 2:1048576:1 4:262144:1 1:2097152:1; do P="$P --point $p"; done
D=.device-out
tar -C $D -xJf $D/bins.tar.xz || exit 2
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > "$OUT/device.txt" 2>&1
echo "3e3cc17 vs 1c0807e" > "$OUT/commit.txt"
timeout 300 $D/gpu_tests --gtest_filter='SumTree*:Registry/GpuEntry.*sum_tree*' > "$OUT/gpu_tests.log" 2>&1
echo "gpu_tests: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]+ tests?' "$OUT/gpu_tests.log" | tr '\n' ' ')"
timeout 200 compute-sanitizer --tool racecheck $D/gpu_tests --gtest_filter='SumTreeSampler.ResidentPass*' --gtest_brief=1 > "$OUT/racecheck.log" 2>&1
echo "racecheck: $(tail -n 1 "$OUT/racecheck.log")"
for r in 1 2 3; do
  if ((r % 2 == 0)); then order="new base"; else order="base new"; fi
  for b in $order; do $D/bench_$b $P --forced none > "$OUT/${b}_$r.jsonl" 2>&1; done
done
for b in base new; do
  timeout 200 ncu --cache-control none --clock-control none --metrics gpu__time_duration.sum --csv \
    -k 'regex:segment_pass|row_pass|resident_pass|block_pass' $D/bench_$b $P --forced none > "$OUT/ncu_$b.csv" 2> "$OUT/ncu_$b.err"
done
cd "$OUT" && tar czf logs.tgz * && ls | grep -v logs.tgz | xargs rm -f
