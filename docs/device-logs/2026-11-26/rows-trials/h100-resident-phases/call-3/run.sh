#!/usr/bin/env bash
# The resident pass with epoch-tagged 16-byte posted sums (no ticket, no
# reset) and its vectors' sums first (new: working tree on d0e6224, change.diff) against d0e6224
# (base): %globaltimer stamps inside the kernel (phase_*), then the A/B in
# CUDA-event time at the resident points, all of gpu_tests and sanitizers.
P="--point 1:131072:1 --point 1:131072:64 --point 1:131072:4 --point 1:32768:1 --point 1:65536:1 --point 16:131072:1 --point 64:32768:1 --point 1:4096:1 --point 64:4096:1"
ROUNDS=4 bash scripts/device_phases.sh "new: d0e6224 + change.diff (the resident pass's vector sums first, ticket relaxed); base: eb11e15 (the same kernels as d0e6224)" $P --forced none
cd "$OUT" && tar czf logs.tgz * && ls | grep -v logs.tgz | xargs rm -f
