#!/usr/bin/env bash
# All of gpu_tests and the sanitizers at 0f7cc8c (one launch helper for every
# kernel), and the resident points with every layout forced beside the plan's.
P="--point 1:131072:1 --point 1:131072:64 --point 1:32768:1 --point 1:4096:1 --point 64:4096:1 --point 16:131072:1"
SANITIZE='SumTreeSampler.TinyTails*:SumTreeSampler.*UnderSanitizers:SumTreeSampler.ResidentPass*:SumTreeSampler.RepeatedCalls*' AB=0 bash scripts/device_ab.sh "0f7cc8c" --forced block,segmented $P
cd "$OUT" && tar czf logs.tgz * && ls | grep -v logs.tgz | xargs rm -f
