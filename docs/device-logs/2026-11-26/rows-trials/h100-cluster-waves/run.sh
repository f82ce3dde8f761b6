#!/usr/bin/env bash
# fp64 rows of 131,072 with 64 draws (a row's cluster) at M = 24..384:
# does the time step with waves of clusters? (ad6eef4's bench, 3 rounds)
P=""
for m in 24 48 72 96 120 144 168 192 216 240 256 264 288 312 336 360 384; do P="$P --point $m:131072:64"; done
D=.device-out
tar -C $D -xJf $D/bins.tar.xz || exit 2
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > "$OUT/device.txt" 2>&1
for r in 1 2 3; do $D/bench_gpu_rows --fp64 $P --forced none > "$OUT/waves_$r.jsonl" 2>&1; done
cd "$OUT" && tar czf logs.tgz * && ls | grep -v logs.tgz | xargs rm -f
