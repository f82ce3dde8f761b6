#!/usr/bin/env bash
# The resident pass's ticket taken relaxed (new, working tree on 6869ead) against 6869ead (base).
P="--point 1:131072:1 --point 1:131072:64 --point 1:131072:4 --point 1:32768:1 --point 1:65536:1 --point 16:131072:1 --point 64:32768:1 --point 1:4096:1"
ROUNDS=4 bash scripts/device_ab.sh "new: 6869ead + the resident pass's ticket relaxed; base: 6869ead" $P --forced none
cd "$OUT" && tar czf logs.tgz * && ls | grep -v logs.tgz | xargs rm -f
