#!/usr/bin/env bash
# warpsim_lda_sbc's verdicts as exit codes (properties/lda_sbc_main.cpp):
# 0 calibrated, 1 not calibrated, 3 inconclusive (the chain still drifting),
# 2 bad usage -- each from a configuration that gives it for this seed.
#   lda_sbc_exit_codes.sh PATH/TO/warpsim_lda_sbc
set -u
sbc=${1:?warpsim_lda_sbc}
fail=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT
expect() {  # code, then the arguments
  local want=$1; shift
  "$sbc" "$@" > "$log" 2>&1
  local got=$?
  if [[ $got != "$want" ]]; then
    echo "FAIL: warpsim_lda_sbc $* exited $got, expected $want"; cat "$log"; fail=1
  else
    echo "ok: $* -> $got ($(tail -1 "$log"))"
  fi
}
expect 0 --replications 100 --seed 1
expect 1 --replications 100 --seed 1 --fault theta-count
expect 3 --documents 20 --tokens 50 --topics 5 --vocabulary 50 --replications 60 --burn 4 --thin 5 --seed 1
expect 2 --replications 0
expect 2 --fault none-such
exit $fail
