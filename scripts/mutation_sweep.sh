#!/usr/bin/env bash
# The seeded-bug catalogue over many RapidCheck seeds: how often each mutant
# is killed, and how long killing takes (docs/properties.md).
#   bash scripts/mutation_sweep.sh [SEEDS] [TESTS] [WARPSIM_MUTANTS]   (default 40 100 build/properties/warpsim_mutants)
set -euo pipefail
seeds=${1:-40}
tests=${2:-100}
exe=${3:-build/properties/warpsim_mutants}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for s in $(seq 1 "$seeds"); do
  "$exe" --tests "$tests" --seed "$s" --format json > "$work/$s.json" 2>/dev/null || true
done
python3 - "$work" "$seeds" "$tests" <<'PY'
import glob, json, statistics, sys
work, seeds, tests = sys.argv[1], sys.argv[2], sys.argv[3]
runs = [m for f in glob.glob(f"{work}/*.json") for m in json.load(open(f))["mutants"]]
killed = [m for m in runs if m["killed"]]
survived = {}
for m in runs:
    if not m["killed"]:
        survived[m["name"]] = survived.get(m["name"], 0) + 1
times = [m["seconds"] for m in killed]
print(f"seeds 1..{seeds}, {tests} tests a precision: {len(killed)} of {len(runs)} killed; "
      f"time to kill median {statistics.median(times):.3f} s, max {max(times):.3f} s")
print("survivors:", survived or "none")
PY
