#!/usr/bin/env bash
# Trial: the fp64 segment pass (Tail::None) nearer a bare read: `fast`, a
# lane's vectors read with no test a vector where the whole segment is in
# the row on 16 bytes (same sums, same order); f4m8: that and fp64
# at 4 vectors in flight, 8 blocks a multiprocessor (f4m8).
# base: 8c68c33. Three rounds alternating, then ncu (caches flushed) of the
# segment pass at the two fp64 issue points.
set -uo pipefail
tar -C .device-out -xJf .device-out/var.tar.xz || exit 2
mkdir -p /tmp/o; O=/tmp/o
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > "$O/device.txt" 2>&1
P64="--point 256:131072:1 --point 32:1048576:1 --point 64:1048576:1 --point 1:16777216:1 --point 512:65536:1 --point 1024:131072:1 --point 64:131072:1"
P32="--point 64:1048576:1 --point 256:131072:1 --point 32:1048576:1 --point 1024:131072:1 --point 1:16777216:1"
for pass in 1 2 3; do
  for b in base fast f4m8; do
    ./.device-out/bench_$b --fp64 --forced none $P64 > "$O/${b}_fp64_$pass.jsonl" 2>&1
    ./.device-out/bench_$b --fp32 --forced none $P32 > "$O/${b}_fp32_$pass.jsonl" 2>&1
    echo "$b $pass rc $?"
  done
done
M="gpu__time_duration.sum,dram__bytes_read.sum.per_second,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread"
for b in base fast f4m8; do
  for p in 256:131072:1 32:1048576:1; do
    timeout 60 ncu --cache-control all --clock-control none --metrics $M --csv -k 'regex:segment_pass|row_pass' -c 8 \
      ./.device-out/bench_$b --fp64 --forced none --point $p > "$O/ncu_${b}_${p%%:*}.csv" 2> "$O/ncu_${b}_${p%%:*}.err"
    echo "ncu $b $p rc $?"
  done
done
tar -C /tmp -czf "$OUT/o.tgz" o
