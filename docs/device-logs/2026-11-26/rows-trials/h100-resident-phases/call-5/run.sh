#!/usr/bin/env bash
# The resident pass making both rounds' uniforms while its segment lands
# (new: working tree on b3f40ae, change.diff) against 0f7cc8c (base):
# stamps inside the kernel (phase_*), the A/B in CUDA-event time, all of
# gpu_tests and the sanitizers.
P="--point 1:131072:64 --point 1:131072:33 --point 1:131072:1 --point 1:32768:16 --point 1:4096:4"
ROUNDS=4 bash scripts/device_phases.sh "new: b3f40ae + change.diff (both rounds' uniforms first); base: 0f7cc8c" $P --forced none
cd "$OUT" && tar czf logs.tgz * && ls | grep -v logs.tgz | xargs rm -f
