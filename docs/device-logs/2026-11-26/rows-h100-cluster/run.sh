#!/usr/bin/env bash
bash scripts/device_rows.sh "630f7e8"
cd "$OUT" && tar czf logs.tgz * && ls | grep -v logs.tgz | xargs rm -f
