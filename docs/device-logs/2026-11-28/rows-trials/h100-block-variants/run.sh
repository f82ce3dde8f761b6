#!/usr/bin/env bash
# A/B of a block a row's draws: base (0d56819's bench, the plan as at
# 857ead4), v4 (the 8-warp block kernels at 4 blocks a multiprocessor: 64
# registers), v2d (a lane's draws two at a time: change.diff), v2d4 (both);
# two rounds, alternating order.
D=.device-out
tar -C $D -xJf $D/bins.tar.xz || exit 2
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > "$OUT/device.txt" 2>&1
for b in base v4 v2d v2d4; do cuobjdump --dump-resource-usage $D/bench_$b 2>&1 | grep -A1 "block_pass" > "$OUT/resources_$b.txt"; done
P=""
for p in 4096:64:1024 4096:1024:512 4096:256:1024 32:4096:8192 512:100:2048 256:64:4096 16:1024:4096 64:32768:1024 1:4096:65536 1:64:65536 \
         65536:4096:1 1024:4096:1 1024:32768:1 4096:32768:1 262144:1024:1 64:32768:1; do P="$P --point $p"; done
RB=1,2,4,8,16,33,66,99
for r in 1 2; do
  order="base v4 v2d v2d4"; [[ $r == 2 ]] && order="v2d4 v2d v4 base"
  for b in $order; do $D/bench_$b $P --forced none --row-blocks $RB > "$OUT/${b}_$r.jsonl" 2>&1; done
done
cd "$OUT" && tar czf logs.tgz * && ls | grep -v logs.tgz | xargs rm -f
