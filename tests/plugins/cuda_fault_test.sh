#!/usr/bin/env bash
# A plugin's CUDA fault is reported as the plugin's: exit 2, naming the
# plugin, sampler and the CUDA error. Skipped (77) without a device.
set -uo pipefail
warpsim=$1 plugin=$2
err=$("$warpsim" validate --plugin "$plugin" --tests 3 --counterexample none 2>&1 >/dev/null)
rc=$?
if grep -q "no CUDA device" <<<"$err"; then echo "SKIPPED: $err"; exit 77; fi
echo "exit $rc: $err"
[[ $rc == 2 ]] || { echo "FAIL: exit $rc, not 2"; exit 1; }
grep -q "sampler 'faulty', draw_rows: its launch left CUDA error" <<<"$err" || { echo "FAIL: the message does not name the plugin's CUDA error"; exit 1; }
