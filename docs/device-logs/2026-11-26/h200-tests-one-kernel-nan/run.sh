#!/usr/bin/env bash
# All of gpu_tests with the one-kernel NaN test (the resident pass and a
# row's cluster), memcheck on it and the sanitizer tests; the cluster's
# grid points timed again.
P=""
for p in 256:131072:64 1024:131072:1 4096:32768:1; do P="$P --point $p"; done
AB=0 MEMCHECK_EXTRA='SumTreeSampler.OneKernelPassesEndOnNaNWeights' bash scripts/device_ab.sh "$(git rev-parse --short HEAD 2>/dev/null)+nan-test" $P --forced none
cd "$OUT" && tar czf logs.tgz * && ls | grep -v logs.tgz | xargs rm -f
