#!/usr/bin/env bash
# The false-positive rate of `validate --builtin gamma` as users meet it:
# the gamma sampler (its oracle; the kernels draw the same values) judged
# with the clamp it declares (oracle/rejection/gamma.hpp's underflow rule),
# at alpha 0.05 so that the rate resolves in a few hundred seeds. Cells:
# shapes 0.01, 0.05 (where fp32 and fp64 clamp), 0.3, 1 and 5, float64 and
# float32, 10 to 10^5 values; SEEDS seeds a cell (SEEDS_BIG at 10^5). One
# line a cell, "shape dtype n seeds rejected", to stdout.
#   WARPSIM=build-rel/cli/warpsim SEEDS=200 SEEDS_BIG=40 JOBS=2 bash scripts/calibrate_builtin_gamma.sh
set -euo pipefail
W=${WARPSIM:-build-rel/cli/warpsim}
[[ -x $W ]] || { echo "no warpsim at $W (set WARPSIM)" >&2; exit 2; }
cell() {  # shape dtype n seeds
  local rej=0 extra=()
  [[ $2 == f32 ]] && extra=(--dtype f32)
  for s in $(seq 1 "$4"); do
    "$W" validate --builtin gamma --on oracle --law "gamma:$1,1" "${extra[@]}" --draws-per-law "$3" --seed "$s" --alpha 0.05 2>&1 |
      tail -1 | grep -q '^verdict: CONSISTENT' || rej=$((rej + 1))
  done
  echo "$1 $2 $3 $4 $rej"
}
export -f cell
export W
for a in 0.01 0.05 0.3 1 5; do
  for dt in f64 f32; do
    for n in 10 100 1000 10000; do echo "$a $dt $n ${SEEDS:-200}"; done
    echo "$a $dt 100000 ${SEEDS_BIG:-40}"
  done
done | xargs -P "${JOBS:-2}" -L 1 bash -c 'cell "$@"' _
