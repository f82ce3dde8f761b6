#!/usr/bin/env bash
# Trial: prefetch into L2, at each warp's end of its sums, the first lines of
# the same warp's segment in the block the device's resident blocks later
# (block_pass and cluster_pass). WARPSIM_TRIAL_PREFETCH_LINES 0 / 32 / 64.
set -uo pipefail
mkdir -p /tmp/o; O=/tmp/o
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > "$O/device.txt" 2>&1
P64="--point 1024:32768:1 --point 1024:32768:16 --point 4096:32768:1 --point 256:131072:64 --point 65536:4096:1"
P32="--point 4096:32768:1 --point 1024:32768:1 --point 1024:32768:16 --point 256:131072:64 --point 65536:4096:1"
for pass in 1 2 3; do
  for lines in 0 32 64; do
    WARPSIM_TRIAL_PREFETCH_LINES=$lines ./.device-out/bench_trial --fp64 --forced block $P64 > "$O/l${lines}_fp64_$pass.jsonl" 2>&1
    WARPSIM_TRIAL_PREFETCH_LINES=$lines ./.device-out/bench_trial --fp32 --forced block $P32 > "$O/l${lines}_fp32_$pass.jsonl" 2>&1
    echo "$lines $pass rc $? $(date +%T)"
  done
done
tar -C /tmp -czf "$OUT/o.tgz" o
