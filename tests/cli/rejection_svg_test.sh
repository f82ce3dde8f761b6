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
timeout 60 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking \
  --disable-component-update --disable-sync --user-data-dir="$work/profile" --dump-dom "file://$work/r.svg" > "$work/r.dom" 2> "$work/r.console" \
  || { echo "FAIL: chromium exited with $?"; cat "$work/r.console"; exit 1; }
if grep -qiE "parsererror|following errors" "$work/r.dom"; then echo "FAIL: the SVG does not parse"; cat "$work/r.dom"; exit 1; fi
curves=$(grep -o '<polyline class="curve"' "$work/r.dom" | wc -l)
markers=$(grep -o '<line class="asked"' "$work/r.dom" | wc -l)
[[ $curves == 4 ]] || { echo "FAIL: $curves curves, not 4"; exit 1; }
[[ $markers == 2 ]] || { echo "FAIL: $markers markers of p, not 2"; exit 1; }
grep -q 'uncached E\[L_32\]' "$work/r.dom" || { echo "FAIL: no uncached curve's label"; exit 1; }
echo "the SVG parses in Chromium: 4 curves, p marked in both panels"
