#!/usr/bin/env bash
# %globaltimer stamps inside the resident pass (d0e6224's kernel with
# stamps; phase_driver.cu), two rounds.
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$OUT/device.txt"
for r in 1 2; do ./.device-out/phase_driver > "$OUT/phase_$r.txt" 2>&1; done
tail -5 "$OUT/phase_1.txt"
