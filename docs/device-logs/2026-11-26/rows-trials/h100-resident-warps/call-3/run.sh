#!/usr/bin/env bash
# Why the resident pass of 1-4 warps a block (new) is slower than
# e3601d5's (base) at grids of 256-512 blocks: new with e3601d5's kernel
# verbatim where it takes one warp a block (old1). H100, 3 rounds in
# rotation, then ncu's kernel durations of the three.
P=""
for p in 1:131072:1 4:131072:1 8:131072:1 16:131072:1 24:32768:1 64:32768:1; do P="$P --point $p"; done
D=.device-out
tar -C $D -xJf $D/bins.tar.xz || exit 2
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > "$OUT/device.txt" 2>&1
for r in 1 2 3; do
  case $r in 1) order="base new old1";; 2) order="new old1 base";; 3) order="old1 base new";; esac
  for b in $order; do $D/bench_$b $P --forced none > "$OUT/${b}_$r.jsonl" 2>&1; done
done
for b in base new old1; do
  timeout 200 ncu --cache-control none --clock-control none --metrics gpu__time_duration.sum,sm__warps_launched.sum,launch__occupancy_limit_shared_mem,launch__shared_mem_config_size --csv -k 'regex:resident_pass' \
    $D/bench_$b $P --forced none > "$OUT/ncu_$b.csv" 2> "$OUT/ncu_$b.err"
done
cd "$OUT" && tar czf logs.tgz * && ls | grep -v logs.tgz | xargs rm -f
