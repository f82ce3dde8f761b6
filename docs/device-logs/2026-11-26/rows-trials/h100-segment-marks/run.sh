#!/usr/bin/env bash
# The second kernel's lane-a-draw draws from marks the segment pass keeps.
# The call's tests, sanitizers and benchmarks, as written since with
# scripts/device_ab.sh:
SANITIZE='SumTreeSampler.SecondKernelUnderSanitizers:SumTreeSampler.TinyTails*' \
  bash scripts/device_ab.sh "$1" --forced segmented --point 256:131072:64 --point 1024:131072:16 --point 1:131072:1024 \
  --point 1:131072:65536 --point 1:1048576:65536 --point 1:131072:64 --point 64:1048576:8 --point 32:4096:8192 --point 256:131072:1 \
  --point 1024:131072:1 --point 1:1048576:1
out=${OUT:-/tmp/out}
timeout 120 ncu --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum --csv -k 'regex:row_pass|segment_pass' -c 8 \
  .device-out/bench_new --fp64 --forced none --point 256:131072:64 > "$out/ncu_new.csv" 2>&1
cd "$out" && tar czf logs.tgz * && ls | grep -v logs.tgz | xargs rm -f
