#!/usr/bin/env bash
# The HTML report of `warpsim validate`, checked in headless Chromium: a
# passing and a failing report (and, given the mutants plugin, a report with
# a shrunk counterexample) each load with no console errors, and the page's
# own ?selftest finds a row per check, a chart per law, exactly the rejected
# categories marked, the counterexample's layout drawn, and for rows that
# differ both PIT charts and the rows that stand out.
# Usage: validate_html_test.sh WARPSIM [MUTANTS_PLUGIN]; exit 77 (skipped) without Chromium.
set -euo pipefail
warpsim=$1 plugin=${2:-}
source "$(dirname "$0")/chromium.sh"
require_chromium
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '1\n2\n3\n0\n4\n' > "$work/w.txt"
# Correct draws (inverse CDF of awk's seeded generator); wrong ones: category 1 never drawn.
awk 'BEGIN { srand(7); for (i = 0; i < 4000; ++i) { u = rand() * 10; print (u < 1 ? 0 : u < 3 ? 1 : u < 6 ? 2 : 4) } }' > "$work/good.txt"
sed 's/^1$/2/' "$work/good.txt" > "$work/bad.txt"
"$warpsim" validate --weights "$work/w.txt" --draws "$work/good.txt" --format html > "$work/good.html"
rc=0; "$warpsim" validate --weights "$work/w.txt" --draws "$work/bad.txt" --format html > "$work/bad.html" || rc=$?
[[ $rc == 1 ]] || { echo "FAIL: the wrong draws exit $rc, not 1"; exit 1; }
grep -q 'inconsistent' "$work/bad.html" || { echo "FAIL: the failing page does not say inconsistent"; exit 1; }
# Rows that differ (every draw by its own row): 300 rows of 4, one draw a row.
awk 'BEGIN { srand(11); for (r = 0; r < 300; ++r) { a = 1 + r % 5; b = 2; c = 1 + r % 3; d = 0.5; print a, b, c, d;
  u = rand() * (a + b + c + d); x = (u < a ? 0 : u < a + b ? 1 : u < a + b + c ? 2 : 3); print x > "'"$work/rows_d.txt"'" } }' > "$work/rows_w.txt"
"$warpsim" validate --weights "$work/rows_w.txt" --draws "$work/rows_d.txt" --format html > "$work/rows.html"
grep -q 'class="pit"' "$work/rows.html" || { echo "FAIL: no PIT chart on the rows page"; exit 1; }
pages="good bad rows"
if [[ -n "$plugin" ]]; then
  rc=0; "$warpsim" validate --plugin "$plugin" --sampler mutant.stale-padding --tests 30 --draws-per-law 2000 \
    --counterexample "$work/ce.txt" --format html > "$work/counterexample.html" || rc=$?
  [[ $rc == 1 ]] || { echo "FAIL: the mutant exits $rc, not 1"; exit 1; }
  grep -q 'class="layout"' "$work/counterexample.html" || { echo "FAIL: no layout of the counterexample"; exit 1; }
  pages="$pages counterexample"
fi
for page in $pages; do selftest_page "$work/$page.html" "$page"; done
echo "both reports render; the selftest finds every check, the charts and the marked categories"
