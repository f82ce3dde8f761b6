#!/usr/bin/env bash
# Occupancy trial (the build of pad.diff): shared memory padded so that
# fewer blocks a multiprocessor stream the matrix. Written back from the
# session's record: the call's own commands.
# (Before these: the binaries unpacked, device.txt and commit.txt written,
# as the first lines of scripts/device_ab.sh do.)
D=.device-out
out=${OUT:-/tmp/out}
B="--point 1024:32768:16 --point 1024:32768:1 --point 4096:32768:8 --point 4096:32768:1 --point 1024:131072:16 --point 256:131072:64"
for r in 1 2; do
  for pad in 0 40000 70000 100000; do WARPSIM_BLOCK_SMEM_PAD=$pad $D/bench_gpu_rows --forced none $B > "$out/block_pad${pad}_$r.jsonl" 2>&1; done
done
S="--point 256:131072:64 --point 256:131072:1 --point 1024:131072:16"
for r in 1 2; do
  for pad in 0 30000 60000 100000; do WARPSIM_SEG_SMEM_PAD=$pad $D/bench_gpu_rows --fp64 --forced none $S > "$out/seg_pad${pad}_$r.jsonl" 2>&1; done
done
for pad in 0 100000; do
  WARPSIM_BLOCK_SMEM_PAD=$pad timeout 120 ncu --metrics gpu__time_duration.sum,dram__bytes_read.sum,lts__t_sector_hit_rate.pct,sm__warps_active.avg.pct_of_peak_sustained_active,launch__occupancy_limit_shared_mem --csv -k 'regex:block_pass' -c 5 $D/bench_gpu_rows --fp64 --forced none --point 1024:32768:16 > "$out/ncu_pad$pad.csv" 2>&1
done
cd "$out" && tar czf logs.tgz * && ls | grep -v logs.tgz | xargs rm -f
