#!/usr/bin/env bash
# The table's whole script at bea20b7 (the kernels and plan() of 21090a0),
# the reference run of docs/PERF.md's issue-16 tables; then ncu's kernel
# durations at the two S-draw misses (the plan's layout alone).
bash scripts/device_rows.sh bea20b7
if command -v ncu > /dev/null; then
  timeout 200 ncu --cache-control none --clock-control none --metrics gpu__time_duration.sum --csv \
    -k 'regex:block_pass|segment_pass|row_pass|resident_pass|cluster_pass' ./.device-out/bench_gpu_rows --fp64 --forced block \
    --point 1024:32768:16 --point 256:131072:64 --point 1024:32768:1 > "$OUT/ncu_s_misses.csv" 2> "$OUT/ncu_s_misses.err"
  echo "ncu: $(wc -l < "$OUT/ncu_s_misses.csv") lines"
fi
cd "$OUT" && tar czf logs.tgz * && ls | grep -v logs.tgz | xargs rm -f
