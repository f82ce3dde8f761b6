#!/usr/bin/env bash
# The calibration harness's full grid (cli/validate/calibration.hpp): every
# law family at K = 2..2^20 and n = 10..10^8, 1,000 runs a cell, validate's
# checks and stats' tests; the exact tails at 0.001; rows that differ judged
# draw by draw, correct samplers (--rows full) and the faults (--rows power).
# Writes the logs that back docs/validate.md's calibration tables and
# regenerates them:
#
#   bash scripts/calibration.sh [BUILD]    # BUILD: a Release build (default build)
#
# About 6 hours on 2 cores (threads: all cores; the reference run split its
# grid by K between this machine and the device's 16 cores, with --k-min,
# --k-max and --only: the logs' first lines say how); progress on standard
# error.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=docs/calibration
mkdir -p "$out"
cmake --build "$build" --target warpsim_calibration
bin="$build/cli/warpsim_calibration"
{
  echo "# $(date -u +%Y-%m-%d) $(git rev-parse --short HEAD) $(nproc) threads: $bin --grid full --runs 1000"
  "$bin" --grid full --runs 1000 || true   # exit 1 when a tally is flagged: the table says which
} > "$out/grid.tsv"
{
  echo "# $(date -u +%Y-%m-%d) $(git rev-parse --short HEAD): $bin --exact-tails"
  "$bin" --exact-tails
} > "$out/exact-tails.tsv"
{
  echo "# $(date -u +%Y-%m-%d) $(git rev-parse --short HEAD) $(nproc) threads: $bin --rows full --runs 1000"
  "$bin" --rows full --runs 1000 || true
} > "$out/rows-full.tsv"
{
  echo "# $(date -u +%Y-%m-%d) $(git rev-parse --short HEAD) $(nproc) threads: $bin --rows power --runs 20"
  "$bin" --rows power --runs 20 || true
} > "$out/rows-power.tsv"
python3 scripts/calibration_report.py "$out/grid.tsv" "$out/exact-tails.tsv" --rows "$out/rows-full.tsv" "$out/rows-power.tsv" > "$out/TABLES.md"
echo "calibration: $out/*.tsv, $out/TABLES.md"
