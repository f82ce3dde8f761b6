#!/usr/bin/env bash
bash scripts/device_rows.sh "1c0807e"
cd "$OUT" && tar czf logs.tgz * && ls | grep -v logs.tgz | xargs rm -f
