#!/usr/bin/env bash
# Trial: a row's cluster pushing each segment's sum to every block's tree (new) against reading them after the barrier (base, 987925b).
P=""
for p in 256:131072:64 256:131072:1 1024:131072:1 4096:32768:1 64:131072:64 1024:65536:4 1024:32768:16; do P="$P --point $p"; done
ROUNDS=3 SANITIZE='SumTreeSampler.*UnderSanitizers:SumTreeSampler.RepeatedCalls*' bash scripts/device_ab.sh "987925b+push" $P --forced none
cd "$OUT" && tar czf logs.tgz * && ls | grep -v logs.tgz | xargs rm -f
