#!/usr/bin/env bash
# The table's whole script at 21090a0 (plan(): fast memory takes the second
# kernel over a row's cluster; with the sim/ inline change, uncommitted), on
# an H200; then the plan alone at the sweep's points (rows-h200-cluster-sweep/).
bash scripts/device_rows.sh "21090a0 (+ sim/ inline accessors, uncommitted)"
P=""
for m in 128 192 256 320 384 512 768 1024; do for k in 32768 65536 131072 262144; do P="$P --point $m:$k:1"; done; done
./.device-out/bench_gpu_rows --forced none $P > "$OUT/sweep_plan.jsonl" 2>&1; echo "sweep_plan rc $?"
cd "$OUT" && tar czf logs.tgz * && ls | grep -v logs.tgz | xargs rm -f
