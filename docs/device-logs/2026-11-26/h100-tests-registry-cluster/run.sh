#!/usr/bin/env bash
# The registry's properties on a row's cluster (Registry/GpuEntry.ClusterRows...),
# the cluster through the launch helpers: all of gpu_tests, the sanitizers,
# the cluster's grid points timed.
P=""
for p in 256:131072:64 1024:131072:1 4096:32768:1 1024:32768:16; do P="$P --point $p"; done
AB=0 MEMCHECK_EXTRA='SumTreeSampler.OneKernelPassesEndOnNaNWeights' bash scripts/device_ab.sh "6138450+registry-cluster" $P --forced none
cd "$OUT" && tar czf logs.tgz * && ls | grep -v logs.tgz | xargs rm -f
