#!/usr/bin/env bash
# The table's whole script at COMMIT, its logs tarred into one file.
set -uo pipefail
mkdir -p /tmp/rows
OUT_FINAL=$OUT
OUT=/tmp/rows bash scripts/device_rows.sh "$1" > /tmp/rows/console.log 2>&1
echo "rc $?"
grep -E "^(gpu_tests|memcheck|racecheck|synccheck|bench_s|torch_s|short_s|ncu)" /tmp/rows/console.log
tar -C /tmp -czf "$OUT_FINAL/rows.tgz" rows
