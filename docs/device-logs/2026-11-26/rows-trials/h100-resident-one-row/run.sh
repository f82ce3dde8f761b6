#!/usr/bin/env bash
# One row of 2^18-2^21 weights with S = 2-64 draws: every segmented layout
# forced beside the plan's (3e3cc17), the resident pass among them, which
# the plan takes for S > 1 only where the grid is at most a block a
# multiprocessor. H100, two rounds.
P=""
for k in 262144 524288 1048576 2097152; do for s in 2 8 64; do P="$P --point 1:$k:$s"; done; done
D=.device-out
tar -C $D -xJf $D/bins.tar.xz || exit 2
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > "$OUT/device.txt" 2>&1
echo "3e3cc17" > "$OUT/commit.txt"
for r in 1 2; do $D/bench_gpu_rows $P --forced segmented > "$OUT/forced_$r.jsonl" 2>&1; done
cd "$OUT" && tar czf logs.tgz * && ls | grep -v logs.tgz | xargs rm -f
