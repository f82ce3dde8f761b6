#!/usr/bin/env bash
# Trial: the row's last block draws (a Tail of the segment pass, asked as
# second_pass 4 in that build; change.diff), forced beside the plan's.
P=""
for p in 256:131072:64 256:131072:8 256:131072:1 64:131072:1 1024:131072:1 1024:131072:16 32:1048576:1 64:1048576:1 1024:1048576:1 1024:32768:16 4096:32768:1; do P="$P --point $p"; done
AB=0 bash scripts/device_ab.sh "87da79a+wip" $P --forced segmented,block
cd "$OUT" && tar czf logs.tgz * && ls | grep -v logs.tgz | xargs rm -f
