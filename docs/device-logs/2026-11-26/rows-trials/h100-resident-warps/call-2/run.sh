#!/usr/bin/env bash
# The resident pass's block of 1, 2 or 4 warps (the most that keep the
# grid at 4 warps a multiprocessor) against e3601d5 (base, a warp a
# block); H100: tests, sanitizers, 4 rounds, the resident pass forced at
# rows of 256 and 512 segments, ncu's kernel durations of both.
P=""
for p in 1:131072:1 1:131072:33 1:131072:64 4:131072:1 8:131072:1 16:131072:1 24:32768:1 64:32768:1 1:32768:1 1:32768:64 1:4096:1 64:4096:1 200:4096:1 1:65536:64; do P="$P --point $p"; done
export MEMCHECK_EXTRA='SumTreeSampler.ResidentPass*'
ROUNDS=4 bash scripts/device_ab.sh "resident 1-4 warps a block vs e3601d5" $P --forced none
D=.device-out
$D/bench_new --point 1:1048576:1 --point 1:1048576:8 --point 2:1048576:1 --forced segmented > "$OUT/forced_long.jsonl" 2>&1
for b in base new; do
  timeout 200 ncu --cache-control none --clock-control none --metrics gpu__time_duration.sum --csv -k 'regex:resident_pass|empty_kernel' \
    $D/bench_$b --point 1:131072:1 --point 1:131072:64 --point 4:131072:1 --point 8:131072:1 --point 24:32768:1 --point 64:32768:1 --forced none > "$OUT/ncu_$b.csv" 2> "$OUT/ncu_$b.err"
done
cd "$OUT" && tar czf logs.tgz * && ls | grep -v logs.tgz | xargs rm -f
