# Sourced by the page tests: headless Chromium, found once.
#   require_chromium          exits 77 (CTest: skipped), saying why, without it
#   selftest_page FILE NAME   loads FILE?selftest; fails on console errors or
#                             unless the page's own self-test says "pass"
#   svg_dom FILE WORK         the DOM Chromium builds of FILE (an SVG), to
#                             WORK/svg.dom; fails unless it parses
require_chromium() {
  browser=$(command -v chromium || command -v chromium-browser || true)
  if [[ -z "$browser" ]]; then
    echo "SKIPPED: no chromium on this machine (apt-get install chromium)"
    exit 77
  fi
}

selftest_page() {
  local page=$1 name=$2 dir
  dir=$(dirname "$page")
  timeout 60 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$dir/profile-$name" --enable-logging=stderr --v=0 \
    --dump-dom "file://$page?selftest" > "$dir/$name.dom" 2> "$dir/$name.console" || {
    echo "FAIL: chromium exited with $? on the $name page"; cat "$dir/$name.console"; exit 1; }
  if grep -E "CONSOLE.*(Uncaught|Error|error)" "$dir/$name.console"; then
    echo "FAIL: the $name page logged errors to the console"; exit 1
  fi
  if ! grep -q 'selftest: pass' "$dir/$name.dom"; then
    echo "FAIL: the $name page's self-test: $(grep -o 'selftest: [a-z]*' "$dir/$name.dom" || echo 'no result (the page did not run)')"
    exit 1
  fi
}

svg_dom() {
  local file=$1 work=$2
  timeout 60 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking \
    --disable-component-update --disable-sync --user-data-dir="$work/profile" --dump-dom "file://$file" > "$work/svg.dom" 2> "$work/svg.console" \
    || { echo "FAIL: chromium exited with $?"; cat "$work/svg.console"; exit 1; }
  if grep -qiE "parsererror|following errors" "$work/svg.dom"; then echo "FAIL: the SVG does not parse"; cat "$work/svg.dom"; exit 1; fi
}
