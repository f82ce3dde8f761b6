#!/usr/bin/env bash
# The stepping page of `warpsim show --format html`, checked in headless
# Chromium: it loads with no console errors, and stepping forward changes the
# grid (and stepping back restores it) -- the page's own ?selftest reports it.
# Usage: html_page_test.sh WARPSIM [ARGS...]; exit 77 (skipped) without Chromium.
set -euo pipefail
warpsim=$1; shift
browser=$(command -v chromium || command -v chromium-browser || true)
if [[ -z "$browser" ]]; then
  echo "SKIPPED: no chromium on this machine (apt-get install chromium)"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$warpsim" show "$@" --format html > "$work/page.html"
timeout 60 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$work/profile" --enable-logging=stderr --v=0 \
  --dump-dom "file://$work/page.html?selftest" > "$work/dom.html" 2> "$work/console.log" || {
  echo "FAIL: chromium exited with $?"; cat "$work/console.log"; exit 1; }
if grep -E "CONSOLE.*(Uncaught|Error|error)" "$work/console.log"; then
  echo "FAIL: the page logged errors to the console"
  exit 1
fi
if ! grep -q 'selftest: pass' "$work/dom.html"; then
  echo "FAIL: stepping did not change the grid (or the page did not run)"
  grep -o 'selftest: [a-z]*' "$work/dom.html" || echo "(no selftest result in the page)"
  exit 1
fi
echo "page loaded without console errors; stepping changed the grid and back restored it"
