#!/usr/bin/env bash
# A row's cluster with each warp's segment past its first batch prefetched
# to L2 at the start (pf) against ad6eef4 (base), H100, 4 rounds.
P=""
for p in 24:131072:64 48:131072:64 96:131072:64 256:131072:64 384:131072:64 256:131072:1 1024:131072:1 4096:32768:1 1024:32768:16; do P="$P --point $p"; done
D=.device-out
tar -C $D -xJf $D/bins.tar.xz || exit 2
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > "$OUT/device.txt" 2>&1
for r in 1 2 3 4; do
  if ((r % 2 == 0)); then order="pf base"; else order="base pf"; fi
  for b in $order; do $D/bench_$b $P --forced none > "$OUT/${b}_$r.jsonl" 2>&1; done
done
cd "$OUT" && tar czf logs.tgz * && ls | grep -v logs.tgz | xargs rm -f
