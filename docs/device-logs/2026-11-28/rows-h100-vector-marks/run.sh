#!/usr/bin/env bash
# The table's whole script at 0580c8f.
bash scripts/device_rows.sh 0580c8f
cd "$OUT" && tar czf logs.tgz * && ls | grep -v logs.tgz | xargs rm -f
