#!/usr/bin/env bash
# A/B of the lanes a row's packed uniforms and a block a row's spread walk
# (bench_base: 8cf7737; bench_new and gpu_tests: c7a1fa3 with 6bb5150's
# spread walk), written back from the session's record: the call's own
# commands.
# (Before these: the binaries unpacked, device.txt and commit.txt written,
# as the first lines of scripts/device_ab.sh do.)
D=.device-out
out=${OUT:-/tmp/out}
timeout 420 $D/gpu_tests --gtest_filter='SumTree*:Registry/GpuEntry.*sum_tree*' > "$out/gpu_tests.log" 2>&1
P="--point 1048576:256:8 --point 1048576:256:4 --point 262144:1024:8 --point 4194304:64:4 --point 1048576:256:1 --point 1024:32768:16 --point 4096:32768:8 --point 256:131072:64 --point 1024:32768:1 --point 1024:131072:16"
for r in 1 2; do
  if [[ $r == 1 ]]; then order="base new"; else order="new base"; fi
  for b in $order; do $D/bench_$b $P > "$out/${b}_$r.jsonl" 2>&1; done
done
M="gpu__time_duration.sum,dram__bytes_read.sum,lts__t_sector_hit_rate.pct,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__occupancy_limit_registers,smsp__inst_executed.sum,smsp__thread_inst_executed_per_inst_executed.ratio"
for b in base new; do
  timeout 150 ncu --metrics $M --csv -k 'regex:block_pass' -c 60 $D/bench_$b --fp64 --point 1024:32768:16 > "$out/ncu_block_$b.csv" 2> "$out/ncu_block_$b.err"
  timeout 150 ncu --metrics $M --csv -k 'regex:lanes_pass' -c 20 $D/bench_$b --fp32 --point 1048576:256:8 > "$out/ncu_lanes_$b.csv" 2> "$out/ncu_lanes_$b.err"
done
cd "$out" && tar czf logs.tgz * && ls | grep -v logs.tgz | xargs rm -f
