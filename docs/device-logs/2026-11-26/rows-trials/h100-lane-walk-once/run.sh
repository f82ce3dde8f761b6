#!/usr/bin/env bash
# The lane walk written once (LaneWalk): tests, sanitizers, A/B at block
# points. The call's tests, sanitizers and benchmarks, as written since
# with scripts/device_ab.sh:
bash scripts/device_ab.sh "$1" --forced none --point 1:4096:1 --point 1:32768:1 --point 1024:4096:1 --point 65536:4096:1 \
  --point 1024:32768:16 --point 256:131072:64 --point 4096:1024:512 --point 32:4096:8192 --point 64:32768:1024 --point 1024:131072:1 \
  --point 256:131072:1
cd "${OUT:-/tmp/out}" && tar czf logs.tgz * && ls | grep -v logs.tgz | xargs rm -f
