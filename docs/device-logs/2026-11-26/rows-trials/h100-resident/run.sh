#!/usr/bin/env bash
# The resident pass (second_pass 3) beside every other layout at small M:
# base = cooperative launch, new = plain launch (same code otherwise).
P="--point 1:4096:1 --point 64:4096:1 --point 1:4096:4 --point 1:32768:1 --point 64:32768:1 --point 1:65536:1 --point 1:131072:1 --point 16:131072:1 --point 1:131072:4 --point 1:131072:64 --point 1:1048576:1 --point 4:1048576:1"
ROUNDS=2 bash scripts/device_ab.sh "working tree on d456fd8: resident_pass; base cooperative launch, new plain launch" $P --forced block,segmented
cd "$OUT" && tar czf logs.tgz * && ls | grep -v logs.tgz | xargs rm -f
