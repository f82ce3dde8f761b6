#!/usr/bin/env bash
# The table's whole script at 02c36c3.
bash scripts/device_rows.sh 02c36c3
cd "$OUT" && tar czf logs.tgz * && ls | grep -v logs.tgz | xargs rm -f
