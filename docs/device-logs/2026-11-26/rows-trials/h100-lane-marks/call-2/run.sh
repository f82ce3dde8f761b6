#!/usr/bin/env bash
# A/B: a block a row's draws from their lanes' marks (one batch of vectors).
# The call's tests, sanitizers and benchmarks, as written since with
# scripts/device_ab.sh (they were lines of this file of its own):
SANITIZE='SumTreeSampler.BlockPerRowUnderSanitizers' MEMCHECK_EXTRA='SumTreeSampler.EveryDrawIsTheOraclesFp64' TOOLS='memcheck racecheck' \
  bash scripts/device_ab.sh "$1" --forced block --point 1:32768:1 --point 64:32768:1 --point 1:4096:1 --point 64:4096:1 --point 4096:64:1024 \
  --point 1024:32768:16 --point 1024:32768:1 --point 4096:32768:8 --point 4096:32768:1 --point 1024:131072:16 --point 256:131072:64 \
  --point 65536:4096:1 --point 1024:4096:1 --point 1:64:65536 --point 16:1024:4096 --point 32:4096:8192 --point 4096:1024:512 \
  --point 1:4096:65536 --point 64:32768:1024
out=${OUT:-/tmp/out}
timeout 120 ncu --metrics gpu__time_duration.sum,dram__bytes_read.sum,lts__t_sector_hit_rate.pct --csv -k 'regex:block_pass' -c 5 \
  .device-out/bench_new --fp64 --forced none --point 1024:32768:16 > "$out/ncu_new.csv" 2>&1
cd "$out" && tar czf logs.tgz * && ls | grep -v logs.tgz | xargs rm -f
