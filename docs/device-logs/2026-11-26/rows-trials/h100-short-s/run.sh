#!/usr/bin/env bash
# S draws of short rows: lanes a row against a thread a row
set -uo pipefail
cd .device-out && tar -xJf bins.tar.xz && cd ..
D=.device-out
out=${OUT:-/tmp/out}
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > "$out/device.txt" 2>&1
cat "$out/device.txt"
echo "$1" > "$out/commit.txt"
P=""
for k in 8 16 32 64 128 200 256; do
  for s in 2 4 8 16 32; do
    P="$P --point $((268435456 / k)):$k:$s --point 65536:$k:$s"
  done
done
$D/bench_new --forced lanes,thread $P > "$out/short_s.jsonl" 2>&1
echo "short_s: $(grep -c . "$out/short_s.jsonl") lines, rc $?"
cd "$out" && tar czf logs.tgz * && ls | grep -v logs.tgz | xargs rm -f
