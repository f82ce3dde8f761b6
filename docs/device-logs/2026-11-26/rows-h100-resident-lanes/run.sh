#!/usr/bin/env bash
bash scripts/device_rows.sh "da140a3"
cd "$OUT" && tar czf logs.tgz * && ls | grep -v logs.tgz | xargs rm -f
