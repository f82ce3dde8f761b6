#!/usr/bin/env bash
# Probe: how fast can a kernel only read on this H200 (grid-stride and a
# warp a 16 KB segment, 256 MiB and 1 GiB), against the segment pass's own
# DRAM throughput at two points whose 64 us floor sits at 1.2x (ncu).
set -uo pipefail
tar -C .device-out -xJf .device-out/bins.tar.xz || exit 2
D=./.device-out
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv > "$OUT/device.txt" 2>&1
for i in 1 2; do $D/read_probe > "$OUT/probe_$i.jsonl" 2>&1; echo "probe $i rc $?"; done
M="gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_read.sum.per_second,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__occupancy_limit_registers,sm__maximum_warps_per_active_cycle_pct"
timeout 200 ncu --cache-control all --clock-control none --metrics $M --csv -k 'regex:segment_pass|row_pass' -c 8 \
  $D/bench_gpu_rows --fp64 --forced none --point 256:131072:1 --point 32:1048576:1 > "$OUT/ncu_segment_pass.csv" 2> "$OUT/ncu_segment_pass.err"
echo "ncu seg rc $?"
timeout 120 ncu --cache-control all --clock-control none --metrics $M --csv -k 'regex:seg_sum' -c 3 \
  $D/read_probe > "$OUT/ncu_probe.csv" 2> "$OUT/ncu_probe.err"
echo "ncu probe rc $?"
cat "$OUT"/probe_1.jsonl
