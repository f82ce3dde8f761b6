#!/usr/bin/env bash
# Forced sweep for issue 16: a row's cluster against the second kernel
# (a block a row, a warp a row) and a block a row, M = 128-1,024 x K =
# 32K-256K, fp32 and fp64, one draw a row; two passes (noise). HEAD 6f14f54.
set -uo pipefail
tar -C .device-out -xJf .device-out/bins.tar.xz || exit 2
echo 6f14f54 > "$OUT/commit.txt"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > "$OUT/device.txt" 2>&1
P=""
for m in 128 192 256 320 384 512 768 1024; do for k in 32768 65536 131072 262144; do P="$P --point $m:$k:1"; done; done
for pass in 1 2; do
  ./.device-out/bench_gpu_rows --forced block,segmented $P > "$OUT/sweep_$pass.jsonl" 2>&1; echo "sweep $pass rc $?"
done
timeout 240 ncu --cache-control none --clock-control none --metrics gpu__time_duration.sum --csv \
  -k 'regex:block_pass|segment_pass|row_pass|resident_pass|cluster_pass' ./.device-out/bench_gpu_rows --fp64 --forced segmented \
  --point 256:131072:1 > "$OUT/ncu_256.csv" 2> "$OUT/ncu_256.err"; echo "ncu rc $?"
cd "$OUT" && tar czf logs.tgz * && ls | grep -v logs.tgz | xargs rm -f
