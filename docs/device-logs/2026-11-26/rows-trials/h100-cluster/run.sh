#!/usr/bin/env bash
# Trial: a row's cluster (then second_pass 5; 4 since 1f6fcb9) and the row's
# last block (4 in that build, not kept), forced beside the plan's.
P=""
for p in 256:131072:64 256:131072:8 256:131072:1 64:131072:1 64:131072:64 1024:131072:1 1024:131072:16 1024:32768:16 4096:32768:1 1024:65536:4 2048:65536:1; do P="$P --point $p"; done
AB=0 bash scripts/device_ab.sh "87da79a+wip" $P --forced segmented,block
cd "$OUT" && tar czf logs.tgz * && ls | grep -v logs.tgz | xargs rm -f
