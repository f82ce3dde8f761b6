#!/usr/bin/env bash
# Trial: the segment pass that only sums (Tail::None) reading the matrix so
# that L2 evicts its lines first, leaving the sums it writes there for the
# second kernel. base: 8c68c33; cs: ld.global.cs (__ldcs); hint:
# ld.global.nc with an L2::cache_hint of createpolicy's evict_first. Every
# size where plan() takes it, 32 MB to 8 GB; four rounds alternating.
set -uo pipefail
tar -C .device-out -xJf .device-out/var.tar.xz || exit 2
mkdir -p /tmp/o; O=/tmp/o
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > "$O/device.txt" 2>&1
P64="--point 256:131072:1 --point 32:1048576:1 --point 64:1048576:1 --point 64:131072:1 --point 1:16777216:1 --point 128:1048576:1 --point 1024:131072:1 --point 1024:1048576:1"
P32="--point 64:1048576:1 --point 256:131072:1 --point 32:1048576:1 --point 64:131072:1 --point 1:16777216:1 --point 256:1048576:1 --point 1024:131072:1 --point 1024:1048576:1"
for pass in 1 2 3 4; do
  for b in base cs hint; do
    ./.device-out/bench_$b --fp64 --forced none $P64 > "$O/${b}_fp64_$pass.jsonl" 2>&1
    ./.device-out/bench_$b --fp32 --forced none $P32 > "$O/${b}_fp32_$pass.jsonl" 2>&1
    echo "$b $pass rc $?"
  done
done
tar -C /tmp -czf "$OUT/o.tgz" o
