#!/usr/bin/env bash
# ddd27d8: lanes a row and a block a row forced beside the plan's at S = 1-8
# rounds of 32 lanes' draws (rows of 32-256 vectors), M = 256-16,384; two
# rounds. Then fp32 (4,096, 1,024, 512) and (2,048, 1,024, 256) at several
# blocks a row.
D=.device-out
tar -C $D -xJf $D/bins.tar.xz || exit 2
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > "$OUT/device.txt" 2>&1
cp $D/commit.txt "$OUT/commit.txt"
P=""
for m in 256 1024 2048 4096 16384; do for k in 128 256 512 1024; do for s in 32 64 128 256; do P="$P --point $m:$k:$s"; done; done; done
for r in 1 2; do
  for t in fp32 fp64; do
    start=$(date +%s)
    timeout 200 $D/bench_gpu_rows --$t $P --forced lanes,block > "$OUT/sweep_${t}_$r.jsonl" 2>&1
    echo "sweep $t round $r: rc $? $(( $(date +%s) - start )) s"
  done
done
for r in 1 2; do
  timeout 100 $D/bench_gpu_rows --fp32 --point 4096:1024:512 --point 2048:1024:256 --point 8192:1024:512 --point 4096:512:512 \
    --forced lanes,block --row-blocks 1,2,3,4,6,8,12,16 > "$OUT/rowblocks_$r.jsonl" 2>&1
  echo "row blocks round $r: rc $?"
done
cd "$OUT" && tar czf logs.tgz * && ls | grep -v logs.tgz | xargs rm -f
