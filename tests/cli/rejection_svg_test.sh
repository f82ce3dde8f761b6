#!/usr/bin/env bash
# `warpsim rejection --format svg`, checked in headless Chromium: the picture
# parses (no XML error page), holds the note's curves (uncached, the scalar
# 1/p and pre-cached against p; their ratio) and the marker at the asked p.
# Usage: rejection_svg_test.sh WARPSIM; exit 77 (skipped) without Chromium.
set -euo pipefail
warpsim=$1
source "$(dirname "$0")/chromium.sh"
require_chromium
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$warpsim" rejection --lanes 32 --p 0.8 --cached --format svg > "$work/r.svg"
svg_dom "$work/r.svg" "$work"
curves=$(grep -o '<polyline class="curve"' "$work/svg.dom" | wc -l)
markers=$(grep -o '<line class="asked"' "$work/svg.dom" | wc -l)
[[ $curves == 4 ]] || { echo "FAIL: $curves curves, not 4"; exit 1; }
[[ $markers == 2 ]] || { echo "FAIL: $markers markers of p, not 2"; exit 1; }
grep -q 'uncached E\[L_32\]' "$work/svg.dom" || { echo "FAIL: no uncached curve's label"; exit 1; }
echo "the SVG parses in Chromium: 4 curves, p marked in both panels"
