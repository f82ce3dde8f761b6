#!/usr/bin/env bash
# Probe: where the 64 us points' time goes past the segment pass. base:
# 8c68c33; t1: the segment pass alone (the second kernel not launched);
# t2: the second kernel launched but returning once the segment pass is
# done (row_pass: previous_grid_done(), then return). Five rounds
# alternating; the draws of t1 and t2 are not made (timing only).
set -uo pipefail
tar -C .device-out -xJf .device-out/var.tar.xz || exit 2
mkdir -p /tmp/o; O=/tmp/o
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > "$O/device.txt" 2>&1
P64="--point 256:131072:1 --point 32:1048576:1 --point 64:1048576:1 --point 512:65536:1"
P32="--point 64:1048576:1 --point 256:131072:1 --point 32:1048576:1"
for pass in 1 2 3 4 5; do
  for b in base t1 t2; do
    ./.device-out/bench_$b --fp64 --forced none $P64 > "$O/${b}_fp64_$pass.jsonl" 2>&1
    ./.device-out/bench_$b --fp32 --forced none $P32 > "$O/${b}_fp32_$pass.jsonl" 2>&1
    echo "$b $pass rc $?"
  done
done
tar -C /tmp -czf "$OUT/o.tgz" o
