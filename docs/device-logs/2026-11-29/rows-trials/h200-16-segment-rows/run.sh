#!/usr/bin/env bash
# Sweep: rows of 16 segments (fp64 K = 32,768, fp32 K = 65,536) at M = 256
# to 2,048, one draw and S = 16, every layout forced, two rounds.
set -uo pipefail
mkdir -p /tmp/o; O=/tmp/o
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > "$O/device.txt" 2>&1
P64=""; P32=""
for m in 256 384 512 768 1024 1536 2048; do
  for s in 1 16; do P64="$P64 --point $m:32768:$s"; P32="$P32 --point $m:65536:$s"; done
done
for pass in 1 2; do
  ./.device-out/bench_base --fp64 --forced block --forced segmented $P64 > "$O/base_fp64_$pass.jsonl" 2>&1
  ./.device-out/bench_base --fp32 --forced block --forced segmented $P32 > "$O/base_fp32_$pass.jsonl" 2>&1
  echo "$pass rc $? $(date +%T)"
done
tar -C /tmp -czf "$OUT/o.tgz" o
