#!/usr/bin/env bash
# Trial: a row's cluster at 3 blocks a multiprocessor (80 registers) against
# 4 (64), and of 4 warps a block beside 8, at the S-draw misses and the
# points where plan() takes the cluster; two passes, alternating.
set -uo pipefail
tar -C .device-out -xJf .device-out/exp.tar.xz || exit 2
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > "$OUT/device.txt" 2>&1
P="--point 1024:32768:16 --point 256:131072:64 --point 1024:32768:1 --point 4096:32768:1 --point 256:65536:1 --point 1024:65536:4 --point 1024:131072:16 --point 320:65536:1 --point 1024:65536:1 --point 4096:32768:4"
for pass in 1 2; do
  for b in mb3 mb4; do
    ./.device-out/bench_$b --forced segmented,block $P > "$OUT/${b}_$pass.jsonl" 2>&1; echo "$b $pass rc $?"
  done
done
