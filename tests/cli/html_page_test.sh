#!/usr/bin/env bash
# The stepping page of `warpsim show --format html`, checked in headless
# Chromium: it loads with no console errors, and stepping forward changes the
# grid (and stepping back restores it) -- the page's own ?selftest reports it.
# Usage: html_page_test.sh WARPSIM [ARGS...]; exit 77 (skipped) without Chromium.
set -euo pipefail
warpsim=$1; shift
source "$(dirname "$0")/chromium.sh"
require_chromium
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$warpsim" show "$@" --format html > "$work/page.html"
selftest_page "$work/page.html" stepping
echo "page loaded without console errors; stepping changed the grid and back restored it"
