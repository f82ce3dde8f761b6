#!/usr/bin/env bash
# base 0c1f90d; v3 (keyed Philox everywhere, lanes a row's Philox
# unbranched, whole warps read untested); v5 = v3 with lanes a row's
# kernels split by whether every row is 16-byte aligned (kAligned) and
# its Round draws' Philox branched again. gpu_tests and memcheck on v5.
P=""
for p in 67108864:4:1 134217728:2:1 67108864:3:1 1048576:256:1 1048576:255:1 1048576:254:1 262144:1000:1 524288:511:1 1048576:256:8 4096:256:256 16777216:16:1 2097152:128:1 1:131072:64 256:131072:64 64:131072:1; do P="$P --point $p"; done
AB=0 TOOLS=memcheck SANITIZE='SumTreeSampler.LanesPerRow*:SumTreeSampler.TinyTails*:SumTreeSampler.*UnderSanitizers' bash scripts/device_ab.sh "v5: working tree on 0c1f90d" --point 1:4096:1 --forced none
D=.device-out
for r in 1 2 3; do
  case $r in 1) order="base v3 v5";; 2) order="v5 base v3";; 3) order="v3 v5 base";; esac
  for b in $order; do $D/bench_$b $P --forced none > "$OUT/${b}_$r.jsonl" 2>&1; done
done
cd "$OUT" && tar czf logs.tgz * && ls | grep -v logs.tgz | xargs rm -f
