#!/usr/bin/env bash
bash scripts/device_rows.sh "3e3cc17"
cd "$OUT" && tar czf logs.tgz * && ls | grep -v logs.tgz | xargs rm -f
