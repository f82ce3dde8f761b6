#!/usr/bin/env bash
# An H100 A/B after rows-h100-keyed-philox/'s table: base 0c1f90d, new
# ad6eef4 (keyed Philox, lanes a row's aligned whole warps), 4 rounds.
P=""
for p in 67108864:4:1 134217728:2:1 67108864:3:1 16777216:16:1 1048576:256:1 262144:1000:1 1048576:256:8 1:1048576:1 64:32768:1 1:131072:64 256:131072:64; do P="$P --point $p"; done
D=.device-out
tar -C $D -xJf $D/bins.tar.xz || exit 2
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > "$OUT/device.txt" 2>&1
for r in 1 2 3 4; do
  if ((r % 2 == 0)); then order="new base"; else order="base new"; fi
  for b in $order; do $D/bench_$b $P --forced none > "$OUT/${b}_$r.jsonl" 2>&1; done
done
cd "$OUT" && tar czf logs.tgz * && ls | grep -v logs.tgz | xargs rm -f
