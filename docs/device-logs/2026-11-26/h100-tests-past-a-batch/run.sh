#!/usr/bin/env bash
AB=0 bash scripts/device_ab.sh "$1" --forced none --point 1024:32768:16 --point 1:1048576:65536
cd "${OUT:-/tmp/out}" && tar czf logs.tgz * && ls | grep -v logs.tgz | xargs rm -f
