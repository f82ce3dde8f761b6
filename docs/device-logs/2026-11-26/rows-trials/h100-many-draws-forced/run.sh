#!/usr/bin/env bash
# Many draws of many rows, the many-draws table's points under 2x PyTorch
# in the 3e3cc17 run: every layout forced beside the plan's (3e3cc17's
# bench). H100, two rounds.
P=""
for p in 4096:1024:512 4096:64:1024 4096:256:1024 32:4096:8192 4096:256:256; do P="$P --point $p"; done
D=.device-out
tar -C $D -xJf $D/bins.tar.xz || exit 2
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > "$OUT/device.txt" 2>&1
echo "3e3cc17" > "$OUT/commit.txt"
for r in 1 2; do $D/bench_gpu_rows $P --forced block,segmented,lanes,thread,warp > "$OUT/forced_$r.jsonl" 2>&1; done
cd "$OUT" && tar czf logs.tgz * && ls | grep -v logs.tgz | xargs rm -f
