#!/usr/bin/env bash
# Probe: 256 MiB matrices whose rows are 8, 16 and 32 segments, every
# layout forced, three rounds; ncu on a block a row at fp64 (1,024, 32,768)
# and (2,048, 16,384).
set -uo pipefail
mkdir -p /tmp/o; O=/tmp/o
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > "$O/device.txt" 2>&1
P64="--point 2048:16384:1 --point 1024:32768:1 --point 512:65536:1 --point 4096:8192:1 --point 1024:32768:16 --point 2048:16384:16"
P32="--point 4096:16384:1 --point 2048:32768:1 --point 1024:65536:1 --point 512:131072:1"
for pass in 1 2 3; do
  ./.device-out/bench_base --fp64 --forced block --forced segmented $P64 > "$O/base_fp64_$pass.jsonl" 2>&1
  ./.device-out/bench_base --fp32 --forced block --forced segmented $P32 > "$O/base_fp32_$pass.jsonl" 2>&1
  echo "$pass rc $? $(date +%T)"
done
for pt in 1024:32768:1 2048:16384:1; do
  timeout 200 ncu --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --metrics dram__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum -k regex:block_pass --launch-skip 5 --launch-count 1 --csv \
    ./.device-out/bench_base --fp64 --forced block --point $pt > "$O/ncu_${pt//:/_}.csv" 2> "$O/ncu_${pt//:/_}.err"
  echo "ncu $pt rc $?"
done
tar -C /tmp -czf "$OUT/o.tgz" o
