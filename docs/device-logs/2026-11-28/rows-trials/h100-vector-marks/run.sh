#!/usr/bin/env bash
# 355f3c3 (base) against its working tree (new): a block a row's draws over
# rows of 2-8 vectors a lane from the lanes' marks a vector. All of
# gpu_tests, sanitizers (the new tests too), then three rounds of the A/B.
P=""
for p in 4096:1024:512 2048:1024:256 4096:1024:128 16384:1024:256 8192:1024:512 16:1024:4096 1:1024:65536 256:1024:64 1000:769:64 \
         512:200:2048 256:256:4096 4096:300:1024 \
         65536:4096:1 262144:1024:1 1024:4096:1 1024:32768:16 64:32768:1024 32:4096:8192 4096:64:1024 256:64:4096; do P="$P --point $p"; done
ROUNDS=3 SANITIZE='SumTreeSampler.TinyTails*:SumTreeSampler.*UnderSanitizers:SumTreeSampler.BlockPerRowMarksAVector*' \
  bash scripts/device_ab.sh "355f3c3 + working tree (a block a row's marks a vector)" $P --forced none
cd "$OUT" && tar czf logs.tgz * && ls | grep -v logs.tgz | xargs rm -f
