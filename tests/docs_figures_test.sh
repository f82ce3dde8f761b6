#!/usr/bin/env bash
# The figures docs/ shows (docs/figures/*.svg, scripts/seed_figures.py),
# checked in headless Chromium: each parses as SVG (no XML error page) and
# draws something (a line, a point or a cell) with a title.
# Usage: docs_figures_test.sh SOURCE_DIR; exit 77 (skipped) without Chromium.
set -euo pipefail
src=$1
source "$src/tests/cli/chromium.sh"
require_chromium
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=0
for f in "$src"/docs/figures/*.svg; do
  svg_dom "$f" "$work"
  grep -qE '<(polyline|circle|rect x)' "$work/svg.dom" || { echo "FAIL: $(basename "$f") draws nothing"; exit 1; }
  grep -q '<text' "$work/svg.dom" || { echo "FAIL: $(basename "$f") has no text"; exit 1; }
  n=$((n + 1))
done
[[ $n -gt 0 ]] || { echo "FAIL: no figures under docs/figures"; exit 1; }
echo "$n figures parse in Chromium and draw their data"
