#!/usr/bin/env bash
# All of gpu_tests and the sanitizers at eb11e15 (the resident pass's S rule,
# its NaN test), and the few-row S points with every block a row forced.
E=""
for p in 1:4096:2 1:4096:4 64:4096:4 1:32768:2 1:32768:4 64:32768:4 100:16384:8 100:4096:32 132:32768:3 1:131072:64 1:131072:1; do E="$E --point $p"; done
SANITIZE='SumTreeSampler.TinyTails*:SumTreeSampler.*UnderSanitizers:SumTreeSampler.ResidentPass*:SumTreeSampler.RepeatedCalls*' AB=0 bash scripts/device_ab.sh "eb11e15" --forced block,segmented $E
cd "$OUT" && tar czf logs.tgz * && ls | grep -v logs.tgz | xargs rm -f
