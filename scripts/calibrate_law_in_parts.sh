#!/usr/bin/env bash
# The false-positive rate of `warpsim alias sharded`'s law in parts
# (dist/alias.hpp, law_in_parts) on correct tables: SEEDS seeds at each size,
# the fraction of p-values under 0.05 and 0.01 and the verdicts that failed
# at alpha = 10^-3. One process: the statistics are the same sums for any
# number of shards. docs/distributed.md records a run.
#   [SIZES='ITEMS DRAWS,...'] bash scripts/calibrate_law_in_parts.sh build-cpu/cli/warpsim [SEEDS]
set -euo pipefail
warpsim=${1:-build-cpu/cli/warpsim}
seeds=${2:-300}
IFS=, read -ra sizes <<< "${SIZES:-2 10,30 60,100 300,1000 10000,100000 2000000,1048576 1048576}"
for size in "${sizes[@]}"; do
  set -- $size
  for s in $(seq 1 "$seeds"); do
    "$warpsim" alias sharded --generate "$1" --draws "$2" --seed "$s" --format json || true
  done | python3 -c "
import json, sys
text = sys.stdin.read()
dec = json.JSONDecoder(); at = 0; laws = []
while at < len(text):
    while at < len(text) and text[at].isspace(): at += 1
    if at >= len(text): break
    j, at = dec.raw_decode(text, at); laws.append(j['law'])
n = len(laws)
f = lambda key, lvl: sum(l[key] < lvl for l in laws) / n
print(f'items $1, draws $2, {n} seeds: pearson p<0.05 {f(\"pearson_p\", 0.05):.3f}, p<0.01 {f(\"pearson_p\", 0.01):.3f}; '
      f'G p<0.05 {f(\"g_p\", 0.05):.3f}, p<0.01 {f(\"g_p\", 0.01):.3f}; inconsistent at 1e-3: {sum(l[\"verdict\"] != \"consistent\" for l in laws)}')
"
done
