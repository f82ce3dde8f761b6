#!/usr/bin/env bash
# docs/rows-grid.svg (issue 16's picture: time against K for several M, the
# sum-tree draw and the best PyTorch method) is what scripts/rows_report.py
# makes of the committed device run, and it parses in headless Chromium with
# its six curves (ours and PyTorch's for M = 1, 64, 1,024); docs/perf/sum-tree.md's
# three tables (the grid, many draws of few rows, S draws of short rows)
# are what the same script prints.
# Usage: rows_svg_test.sh SOURCE_DIR; exit 77 (skipped) without Chromium.
set -euo pipefail
src=$1
source "$(dirname "$0")/chromium.sh"
require_chromium
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 "$src/scripts/rows_report.py" "$src/docs/device-logs/2026-11-29/rows-h200-reference" "$work/rows.svg" > "$work/table.md"
cmp -s "$work/rows.svg" "$src/docs/rows-grid.svg" || { echo "FAIL: docs/rows-grid.svg is not what scripts/rows_report.py makes of the run"; exit 1; }
# docs/perf/sum-tree.md's table (between its rows-table markers) is the script's too.
sed -n '/^<!-- rows-table -->$/,/^<!-- \/rows-table -->$/p' "$src/docs/perf/sum-tree.md" | sed '1d;$d' > "$work/perf_table.md"
sed -e '${/^$/d;}' "$work/table.md" | cmp -s - "$work/perf_table.md" ||
  { echo "FAIL: docs/perf/sum-tree.md's table is not what scripts/rows_report.py makes of the run"; exit 1; }
# Its table of many draws of few rows is the script's too (its own run).
python3 "$src/scripts/rows_report.py" --s-draws "$src/docs/device-logs/2026-11-29/rows-h200-reference" > "$work/s_table.md"
sed -n '/^<!-- rows-s-table -->$/,/^<!-- \/rows-s-table -->$/p' "$src/docs/perf/sum-tree.md" | sed '1d;$d' > "$work/perf_s_table.md"
sed -e '${/^$/d;}' "$work/s_table.md" | cmp -s - "$work/perf_s_table.md" ||
  { echo "FAIL: docs/perf/sum-tree.md's table of many draws is not what scripts/rows_report.py --s-draws makes of the run"; exit 1; }
# And its table of S draws of short rows.
python3 "$src/scripts/rows_report.py" --short-s "$src/docs/device-logs/2026-11-29/rows-h200-reference" > "$work/short_table.md"
sed -n '/^<!-- rows-short-s-table -->$/,/^<!-- \/rows-short-s-table -->$/p' "$src/docs/perf/sum-tree.md" | sed '1d;$d' > "$work/perf_short_table.md"
sed -e '${/^$/d;}' "$work/short_table.md" | cmp -s - "$work/perf_short_table.md" ||
  { echo "FAIL: docs/perf/sum-tree.md's table of S draws of short rows is not what scripts/rows_report.py --short-s makes of the run"; exit 1; }
[[ $(grep -c '^| fp' "$work/short_table.md") -ge 60 ]] || { echo "FAIL: the short rows' table is short"; exit 1; }
rows=$(grep -c '^| fp' "$work/table.md")
[[ $rows -ge 60 ]] || { echo "FAIL: the table has $rows rows"; exit 1; }
svg_dom "$work/rows.svg" "$work"
curves=$(grep -o '<polyline class="curve' "$work/svg.dom" | wc -l)
[[ $curves == 6 ]] || { echo "FAIL: $curves curves, not 6"; exit 1; }
echo "the SVG parses in Chromium: 6 curves; the table has $rows rows"
