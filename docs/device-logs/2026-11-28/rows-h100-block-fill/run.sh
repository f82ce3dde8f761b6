#!/usr/bin/env bash
# The table's whole script at 5db95a1.
bash scripts/device_rows.sh 5db95a1
cd "$OUT" && tar czf logs.tgz * && ls | grep -v logs.tgz | xargs rm -f
