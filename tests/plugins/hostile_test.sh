#!/usr/bin/env bash
# Every way a plugin can end or stall the process (tests/plugins/hostile_plugin.cpp):
# `warpsim validate` exits 2, names the plugin, the sampler's call and what
# happened, and finishes in bounded time (--time-limit 5 for the hangs).
# Usage: hostile_test.sh WARPSIM PLUGIN
set -uo pipefail
warpsim=$1 plugin=$2
fail=0
expect() {  # name, pattern, then the command's extra arguments
  local name=$1 pattern=$2; shift 2
  local t0=$(date +%s)
  out=$(timeout 120 "$warpsim" validate --plugin "$plugin" --progress never --counterexample none --tests 3 "$@" 2>&1)
  local rc=$? t=$(( $(date +%s) - t0 ))
  if [[ $rc != 2 ]] || ! grep -qE "$pattern" <<< "$out"; then
    echo "FAIL $name: exit $rc after ${t}s: $out"; fail=1
  else
    echo "ok   $name: exit 2 after ${t}s: $(grep -oE "$pattern.*" <<< "$out" | head -1 | cut -c1-160)"
  fi
}
expect exit0 "plugin '.*' ended the worker that ran it with exit\(0\) during plugin '.*', sampler 'exit0', draw_rows" --sampler exit0
expect exit3 "with exit\(3\) during .*sampler 'exit3'" --sampler exit3
expect _exit "with exit\(4\) during .*sampler 'underscore-exit'" --sampler underscore-exit
expect sigkill "with signal 9 .* during .*sampler 'sigkill'" --sampler sigkill
expect spin "did not finish within 5 s during .*sampler 'spin', draw_rows" --sampler spin --time-limit 5
expect sleep "did not finish within 5 s during .*sampler 'sleep', draw_rows" --sampler sleep --time-limit 5
WARPSIM_HOSTILE_CONSTRUCTOR=exit0 expect constructor "with exit\(0\) during plugin '.*' \(while loading: its static initialisers\)" --sampler exit0
WARPSIM_HOSTILE_CONSTRUCTOR=exit0 expect constructor_list "with exit\(0\) during plugin '.*' \(while loading" --list
exit $fail
