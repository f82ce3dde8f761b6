#!/usr/bin/env bash
# The resident pass's two rounds of draws in straight-line code, uniforms
# made while the segment lands (new) against e3601d5 (base); H100, tests,
# sanitizers, 4 rounds, then ncu's kernel durations of both.
P=""
for p in 1:131072:1 1:131072:16 1:131072:33 1:131072:64 16:131072:1 1:32768:1 1:32768:64 64:32768:1 1:4096:1 64:4096:1 1:65536:64; do P="$P --point $p"; done
export MEMCHECK_EXTRA='SumTreeSampler.ResidentPass*'
ROUNDS=4 bash scripts/device_ab.sh "resident rounds straight-line vs e3601d5" $P --forced none
D=.device-out
for b in base new; do
  timeout 200 ncu --cache-control none --clock-control none --metrics gpu__time_duration.sum --csv -k 'regex:resident_pass|empty_kernel' \
    $D/bench_$b --point 1:131072:1 --point 1:131072:64 --point 1:32768:64 --forced none > "$OUT/ncu_$b.csv" 2> "$OUT/ncu_$b.err"
done
cd "$OUT" && tar czf logs.tgz * && ls | grep -v logs.tgz | xargs rm -f
