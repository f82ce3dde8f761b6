#!/usr/bin/env bash
# Trial: a row's cluster with 3 blocks a multiprocessor (base, 80 registers) against 4 (new, 64 and spills).
tar -C .device-out -xJf .device-out/bins.tar.xz || exit 2
P=""
for p in 256:131072:64 256:131072:1 64:131072:64 1024:131072:1 4096:32768:1 1024:65536:4; do P="$P --point $p"; done
for r in 1 2; do
  if ((r % 2 == 0)); then order="new base"; else order="base new"; fi
  for b in $order; do .device-out/bench_$b $P --forced segmented > "$OUT/${b}_$r.jsonl" 2>&1; done
done
cd "$OUT" && tar czf logs.tgz * && ls | grep -v logs.tgz | xargs rm -f
