#!/usr/bin/env bash
bash scripts/device_rows.sh "7f30d36"
cd "$OUT" && tar czf logs.tgz * && ls | grep -v logs.tgz | xargs rm -f
