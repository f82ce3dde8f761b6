#!/usr/bin/env bash
# A shrunk counterexample is saved and replays: a mutant plugin's failure is
# written to a file, the report's replay command fails on it again (exit 1),
# and the correct sampler passes the same file (exit 0).
# Usage: validate_replay_test.sh WARPSIM MUTANTS_PLUGIN
set -uo pipefail
warpsim=$1 plugin=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
"$warpsim" validate --plugin "$plugin" --sampler mutant.remnant-skipped --tests 60 --draws-per-law 2000 --counterexample ce.txt > report.txt
rc=$?
[[ $rc == 1 ]] || { echo "FAIL: the mutant exits $rc, not 1"; cat report.txt; exit 1; }
[[ -s ce.txt ]] || { echo "FAIL: no counterexample saved"; exit 1; }
replay=$(grep -o 'replay: warpsim validate .*' report.txt | head -1 | sed 's/^replay: warpsim //')
[[ -n "$replay" ]] || { echo "FAIL: the report gives no replay command"; cat report.txt; exit 1; }
echo "replaying: warpsim $replay"
# shellcheck disable=SC2086
"$warpsim" $replay --progress never > replay.txt
rc=$?
[[ $rc == 1 ]] || { echo "FAIL: the replay exits $rc, not 1"; cat replay.txt; exit 1; }
grep -q "FAIL" replay.txt || { echo "FAIL: the replay names no failing property"; exit 1; }
dtype=$(grep -o -- '--dtype f[0-9]*' report.txt | head -1)
# shellcheck disable=SC2086
"$warpsim" validate --plugin "$plugin" --sampler warp-per-row --weights ce.txt $dtype --progress never > correct.txt
rc=$?
[[ $rc == 0 ]] || { echo "FAIL: the correct sampler exits $rc on the counterexample"; cat correct.txt; exit 1; }
sed -n '1,4p' ce.txt | cut -c1-100
echo "saved, replayed (exit 1), and the correct sampler passes it (exit 0)"
