#!/usr/bin/env bash
# The calibration harness for values of continuous laws
# (cli/validate/calibration.hpp, ValuesCell): every law of
# `warpsim validate --values` at n = 10 to 10^6, stored as float64, float32,
# bfloat16 and float16, the two clamps, 1,000 runs a cell (100 at 10^6);
# then the faults, 20 runs a cell. Writes the logs behind docs/validate.md's
# table of them:
#
#   bash scripts/calibration_values.sh [BIN] [PART]
#
# BIN: a Release warpsim_calibration (default build/cli/warpsim_calibration).
# PART: all (default), or one of the reference run's parts -- a (uniform,
# normal, exponential and gamma at n <= 10^5), b (beta and the truncated
# normals at n <= 10^5), c (every law at 10^6, and the faults) -- each about
# 5 minutes on 16 cores (the device machine's CPUs), 40 on 2. Progress on
# standard error; logs to docs/calibration/values-*.tsv (OUT_DIR to change;
# WARPSIM_COMMIT names the commit where the checkout has no git, as on the
# device). Then: python3 scripts/calibration_values_report.py LOGS > docs/calibration/VALUES.md
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/cli/warpsim_calibration}
part=${2:-all}
out=${OUT_DIR:-docs/calibration}
mkdir -p "$out"
run() {  # FILE ARGS...: one log, its first line saying how it ran
  local file=$1
  shift
  { echo "# $(date -u +%Y-%m-%d) ${WARPSIM_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo '?')} $(nproc) threads: warpsim_calibration $*"
    "$bin" "$@" || true; } > "$out/$file"   # exit 1 when a tally is flagged: the log says which
}
small_n=(--n 10 100 1000 10000 100000)
case $part in all | a | b | c) ;; *) echo "part: all, a, b or c" >&2; exit 2 ;; esac
if [[ $part == all || $part == a ]]; then
  run values-full-a.tsv --values full --runs 1000 "${small_n[@]}" --only uniform normal exponential gamma
fi
if [[ $part == all || $part == b ]]; then
  run values-full-b.tsv --values full --runs 1000 "${small_n[@]}" --only beta truncated-normal
fi
if [[ $part == all || $part == c ]]; then
  run values-full-c.tsv --values full --runs 1000 --n 1000000
  run values-power.tsv --values power --runs 20
fi
echo "calibration: $out/values-*.tsv" >&2
