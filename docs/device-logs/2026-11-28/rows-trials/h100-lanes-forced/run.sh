#!/usr/bin/env bash
# 18691b8: lanes a row (one step a warp where its rows are few) and a block
# a row forced beside the plan's at S draws of many rows where the plan
# takes a block a row; two rounds.
D=.device-out
tar -C $D -xJf $D/bins.tar.xz || exit 2
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > "$OUT/device.txt" 2>&1
echo 18691b8 > "$OUT/commit.txt"
P=""
for p in 4096:64:1024 4096:128:1024 2048:64:1024 1024:256:1024 4096:64:256 4096:1024:512 8192:64:512 1024:64:256 16384:64:256 4096:100:1024 \
         4096:512:1024 2048:1024:256; do P="$P --point $p"; done
for r in 1 2; do $D/bench_gpu_rows $P --forced lanes,block > "$OUT/forced_$r.jsonl" 2>&1; done
cd "$OUT" && tar czf logs.tgz * && ls | grep -v logs.tgz | xargs rm -f
