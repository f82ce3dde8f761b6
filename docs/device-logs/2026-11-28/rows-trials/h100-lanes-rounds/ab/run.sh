#!/usr/bin/env bash
# ddd27d8 (base) against the working tree on it (new): lanes a row's S <= G
# draws of few rows one step of rows a warp, and fp32 rows of 8 vectors a
# lane lanes a row for one round of draws only. All of gpu_tests,
# sanitizers, then three rounds of the A/B.
P=""
for p in 256:1024:64 2048:1024:64 2048:1024:256 4096:1024:128 16384:1024:256 1000:769:64 \
         256:128:32 1024:128:32 2048:128:32 16384:128:32 1024:256:32 4096:256:16 1024:512:32 100:64:16 65536:64:16 65536:32:8 65536:16:8 \
         1024:64:16 2048:256:32 \
         4096:512:256 4096:1024:512 65536:128:32 4096:256:256 65536:1024:8 65536:64:32 4096:64:1024; do P="$P --point $p"; done
ROUNDS=3 MEMCHECK_EXTRA='SumTreeSampler.LanesPerRowEveryKernel*' bash scripts/device_ab.sh "ddd27d8 + working tree (one step for S <= G; fp32 NV = 8 one round)" $P --forced none
cd "$OUT" && tar czf logs.tgz * && ls | grep -v logs.tgz | xargs rm -f
