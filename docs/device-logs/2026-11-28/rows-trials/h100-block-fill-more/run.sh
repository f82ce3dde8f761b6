#!/usr/bin/env bash
# A block a row's blocks a row (bench_gpu_rows --row-blocks) over more
# points: many rows (one to five waves of the grid) with few blocks a row,
# few rows with many; two rounds.
D=.device-out
tar -C $D -xJf $D/bins.tar.xz || exit 2
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > "$OUT/device.txt" 2>&1
MANY=""
for p in 1024:64:1024 2048:64:1024 3168:64:1024 4096:64:1024 6144:64:1024 8192:64:1024 16384:64:1024 4096:64:256 8192:64:256 \
         2048:1024:512 4096:1024:512 8192:1024:512 4096:4096:256 2048:16384:128; do MANY="$MANY --point $p"; done
FEW=""
for p in 64:4096:4096 128:1024:2048 8:4096:65536 100:16384:512 32:1024:1024 200:256:1024 512:64:1024 32:4096:8192 256:64:4096 \
         512:100:2048 64:8192:2048; do FEW="$FEW --point $p"; done
for r in 1 2; do
  $D/bench_gpu_rows $MANY --forced none --row-blocks 1,2,3,4,5,6,8 > "$OUT/many_$r.jsonl" 2>&1
  $D/bench_gpu_rows $FEW --forced none --row-blocks 1,2,3,4,6,8,12,16,24,33,48,66,99,132,198,264 > "$OUT/few_$r.jsonl" 2>&1
done
cd "$OUT" && tar czf logs.tgz * && ls | grep -v logs.tgz | xargs rm -f
