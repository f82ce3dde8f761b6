#!/usr/bin/env bash
# Trial: the segment pass (Tail::None, the kernel that reads most matrices)
# at more blocks a multiprocessor: batch B vectors a lane in flight, at
# least M blocks of 8 warps (launch bounds), bench_bBmM; b8m1 is the code
# as it is (54 registers: 4 blocks). The plan's layout at the points where
# it runs, three rounds, alternating.
set -uo pipefail
tar -C .device-out -xJf .device-out/var.tar.xz || exit 2
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > "$OUT/device.txt" 2>&1
P="--point 64:131072:1 --point 256:131072:1 --point 512:131072:1 --point 1024:131072:1 --point 32:1048576:1 --point 64:1048576:1 --point 1:16777216:1 --point 1024:1048576:1 --point 256:262144:1 --point 128:262144:1 --point 1024:65536:1 --point 512:65536:1"
for pass in 1 2 3; do
  for b in b8m1 b4m8 b2m8; do
    ./.device-out/bench_$b --forced none $P > "$OUT/${b}_$pass.jsonl" 2>&1; echo "$b $pass rc $?"
  done
done
M="gpu__time_duration.sum,dram__bytes_read.sum.per_second,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread"
for b in b8m1 b4m8 b2m8; do
  timeout 60 ncu --cache-control all --clock-control none --metrics $M --csv -k 'regex:segment_pass' -c 6 \
    ./.device-out/bench_$b --forced none --point 256:131072:1 --point 64:1048576:1 > "$OUT/ncu_$b.csv" 2> "$OUT/ncu_$b.err"
  echo "ncu $b rc $?"
done
