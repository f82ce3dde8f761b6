#!/usr/bin/env bash
bash scripts/device_rows.sh "ad6eef4"
cd "$OUT" && tar czf logs.tgz * && ls | grep -v logs.tgz | xargs rm -f
