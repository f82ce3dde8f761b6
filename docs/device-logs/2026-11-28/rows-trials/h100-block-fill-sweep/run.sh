#!/usr/bin/env bash
# Many draws of many rows: a block a row at each of a sweep of blocks a
# row (bench_gpu_rows --row-blocks) beside the plan's; ncu's occupancy,
# launch and scheduler sections on a block a row at fp32 (4,096, 64, 1,024).
D=.device-out
tar -C $D -xJf $D/bins.tar.xz || exit 2
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > "$OUT/device.txt" 2>&1
P=""
for p in 4096:64:1024 4096:1024:512 4096:256:1024 32:4096:8192 512:100:2048 256:64:4096 4096:256:256 16:1024:4096 64:32768:1024; do P="$P --point $p"; done
RB=1,2,3,4,5,6,8,12,16,24,32,66,99,131,198,256
for r in 1 2; do $D/bench_gpu_rows $P --forced none --row-blocks $RB > "$OUT/sweep_$r.jsonl" 2>&1; done
ncu --cache-control none --clock-control none --section SpeedOfLight --section Occupancy --section LaunchStats --section SchedulerStats \
  --section WarpStateStats -k regex:block_pass --launch-skip 3 --launch-count 1 $D/bench_gpu_rows --point 4096:64:1024 --fp32 --forced none > "$OUT/ncu_block_4096_64_1024.txt" 2>&1
ncu --cache-control none --clock-control none --section SpeedOfLight --section Occupancy --section LaunchStats --section SchedulerStats \
  --section WarpStateStats -k regex:lanes_pass --launch-skip 3 --launch-count 1 $D/bench_gpu_rows --point 4096:256:1024 --fp32 --forced none > "$OUT/ncu_lanes_4096_256_1024.txt" 2>&1
cd "$OUT" && tar czf logs.tgz * && ls | grep -v logs.tgz | xargs rm -f
