#!/usr/bin/env bash
# A/B of plan() on fast memory: S > 1 draws of rows of 17-64 segments below
# 8 rows a multiprocessor, matrices past L2, go the second kernel (or a
# block a row) and not a row's cluster. bench_new has the rule; every
# layout forced beside it (the cluster among them), two rounds.
set -uo pipefail
mkdir -p /tmp/o; O=/tmp/o
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > "$O/device.txt" 2>&1
P64=""; P32=""
for m in 64 128 256 512 1024; do
  for s in 2 8 16 64; do
    P64="$P64 --point $m:65536:$s --point $m:131072:$s"; P32="$P32 --point $m:131072:$s --point $m:262144:$s"
  done
done
for pass in 1 2; do
  ./.device-out/bench_new --fp64 --forced block --forced segmented $P64 > "$O/new_fp64_$pass.jsonl" 2>&1
  ./.device-out/bench_new --fp32 --forced block --forced segmented $P32 > "$O/new_fp32_$pass.jsonl" 2>&1
  echo "$pass rc $? $(date +%T)"
done
tar -C /tmp -czf "$OUT/o.tgz" o
