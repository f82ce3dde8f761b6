#!/usr/bin/env bash
# `mpirun -np R warpsim validate --builtin NAME` (and --plugin LIB): the
# report is the same for R = 1 .. 4 as on one process without mpirun, but for
# its time fields (seconds, processes); a rank that fails ends the job with
# exit 2 and a message naming it; a rank that dies makes mpirun exit
# non-zero within 60 s. CPU ranks, oversubscribed (CI has 2 cores), small
# sizes. Arguments: warpsim, a plugin with a right draw_many sampler
# ('vose'), a plugin whose draw_rows crashes, tests/plugins/hostile_plugin.cpp.
set -uo pipefail
warpsim=$1
alias_plugin=$2
crashing_plugin=$3
hostile_plugin=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Under AddressSanitizer, the ranks run without LeakSanitizer: Open MPI
# keeps allocations until exit in components it dlcloses at MPI_Finalize,
# whose frames LeakSanitizer can then neither name nor suppress. The same
# code's leaks are checked on one process (the first run of each check, and
# every other test).
rank_asan="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
mpi=(mpirun --allow-run-as-root --oversubscribe -x ASAN_OPTIONS="$rank_asan" -x UBSAN_OPTIONS -x WARPSIM_FAULT)
export WARPSIM_FAULT= UBSAN_OPTIONS=${UBSAN_OPTIONS-}
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

same_report() {  # same_report A B: the two JSON reports but for seconds and processes
  python3 - "$1" "$2" <<'PY'
import json, sys
def load(f):
    j = json.load(open(f))
    j.pop("seconds"); j.pop("processes")
    return j
a, b = load(sys.argv[1]), load(sys.argv[2])
sys.exit(0 if a == b else 1)
PY
}

# name, draws, ranks: a table sampler (draws keyed by their index: shares of
# 4,096 draws) and a one-draw-a-row sampler (chunks of 65,536 rows with seeds
# of their own), each split over every R.
check() {
  local name=$1 draws=$2; shift 2
  local way=(--builtin "$name" --on oracle)
  [[ $name == plugin ]] && way=(--plugin "$alias_plugin" --sampler vose)
  local args=(validate "${way[@]}" --draws-per-law "$draws" --tests 2 --max-rows 8 --max-k 20 --format json --counterexample none)
  "$warpsim" "${args[@]}" > "$tmp/one.json" || { fail "$name: one process exited $?"; return; }
  for r in "$@"; do
    "${mpi[@]}" -np "$r" "$warpsim" "${args[@]}" > "$tmp/r$r.json" 2> "$tmp/r$r.err" || { fail "$name -np $r exited $?"; cat "$tmp/r$r.err"; continue; }
    python3 -c "import json,sys; j=json.load(open(sys.argv[1])); sys.exit(0 if j['processes']==int(sys.argv[2]) else 1)" "$tmp/r$r.json" "$r" || fail "$name -np $r: processes is not $r"
    if same_report "$tmp/one.json" "$tmp/r$r.json"; then echo "ok: $name, $draws draws, -np $r: the report of one process"; else fail "$name -np $r: the report differs"; diff "$tmp/one.json" "$tmp/r$r.json" | head -20; fi
  done
}
check alias-psa 30000 1 2 3 4
check baseline-linear 140000 3
# A plugin: its worker, forked before MPI starts, shares the draws through
# its parent (cli/validate/relay.hpp).
check plugin 30000 1 3

# A plugin that crashes (on rank 0, in the properties): exit 2, naming the
# rank and the call.
timeout 60 "${mpi[@]}" -np 2 "$warpsim" validate --plugin "$crashing_plugin" --tests 5 --draws-per-law 1000 --counterexample none > /dev/null 2> "$tmp/crash.err"
rc=$?
if [[ $rc == 2 ]] && grep -q "rank 0 of 2: plugin .* ended the worker .*draw_rows" "$tmp/crash.err"; then echo "ok: a plugin crashing on rank 0 ends the job with exit 2, naming the rank"; else fail "crashing plugin: exit $rc"; cat "$tmp/crash.err"; fi

# A plugin that sleeps in every call, on every rank (rank 0 in the
# properties, the others in their share of the law): the worker's time
# limit ends the job, exit 2, within 60 s.
start=$SECONDS
timeout 60 "${mpi[@]}" -np 2 "$warpsim" validate --plugin "$hostile_plugin" --sampler sleep --time-limit 3 --tests 5 --draws-per-law 1000 --counterexample none > /dev/null 2> "$tmp/sleeps.err"
rc=$?
if [[ $rc == 2 ]] && grep -q "rank [01] of 2: plugin .* did not finish within 3 s" "$tmp/sleeps.err"; then echo "ok: a plugin that sleeps ends the job with exit 2 after $((SECONDS - start)) s"; else fail "sleeping plugin: exit $rc"; cat "$tmp/sleeps.err"; fi

# A rank refusing its share (bad input on one shard): exit 2, the rank named.
WARPSIM_FAULT=1:usage timeout 60 "${mpi[@]}" -np 3 "$warpsim" validate --builtin alias-psa --on oracle --draws-per-law 30000 --tests 2 > /dev/null 2> "$tmp/usage.err"
rc=$?
if [[ $rc == 2 ]] && grep -q "rank 1 of 3: WARPSIM_FAULT" "$tmp/usage.err"; then echo "ok: a rank's bad input ends the job with exit 2, naming the rank"; else fail "rank 1's bad input: exit $rc"; cat "$tmp/usage.err"; fi

# A rank killed mid-run (SIGKILL, as a host lost): mpirun ends the job, exit
# non-zero, within 60 s (timeout's 124 would be a hang).
start=$SECONDS
WARPSIM_FAULT=2:kill timeout 60 "${mpi[@]}" -np 3 "$warpsim" validate --builtin alias-psa --on oracle --draws-per-law 30000 --tests 2 > /dev/null 2> "$tmp/kill.err"
rc=$?
if [[ $rc != 0 && $rc != 124 ]]; then echo "ok: a rank killed mid-run: mpirun exits $rc after $((SECONDS - start)) s"; else fail "rank 2 killed: exit $rc"; cat "$tmp/kill.err"; fi

# Ways in that do not share their work refuse several processes, exit 2.
"${mpi[@]}" -np 2 "$warpsim" validate --mutants > /dev/null 2> "$tmp/way.err"
rc=$?
if [[ $rc == 2 ]] && grep -q "shares the draws of a sampler of indices" "$tmp/way.err"; then echo "ok: --mutants under -np 2 refused"; else fail "--mutants under -np 2: exit $rc"; cat "$tmp/way.err"; fi

# A sharded alias table (dist/alias.hpp): weights generated on each rank, a
# table a shard; for every R the same unit and total (the one table's), the
# whole's law consistent, the shards' masses adding up to the total.
for r in 1 2 3 4; do
  "${mpi[@]}" -np "$r" "$warpsim" alias sharded --generate 20000 --draws 200000 --seed 4 --format json > "$tmp/a$r.json" 2> "$tmp/a$r.err"
  rc=$?
  if [[ $rc == 0 ]] && python3 - "$tmp/a$r.json" "$r" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
r = int(sys.argv[2])
assert j["shards"] == r and len(j["ranks"]) == r, "shards"
assert j["items"] == 20000 and sum(x["items"] for x in j["ranks"]) == 20000, "items"
assert sum(x["mass"] for x in j["ranks"]) == j["total_units"], "masses"
assert sum(x["draws"] for x in j["ranks"]) == 200000, "draws"
assert j["law"]["verdict"] == "consistent", "law"
PY
  then echo "ok: alias sharded over $r shards: consistent"; else fail "alias sharded -np $r: exit $rc"; cat "$tmp/a$r.err"; fi
done
if python3 -c "
import json, sys
s = {(json.load(open(f))['unit_exponent'], json.load(open(f))['total_units']) for f in sys.argv[1:]}
sys.exit(0 if len(s) == 1 else 1)" "$tmp"/a[1234].json; then echo "ok: the same unit and total for 1-4 shards"; else fail "the unit or total differs with the shards"; fi

# A bad weight on one shard: exit 2, its rank and its index in the whole named.
printf '1\n2\n3\n4\n5\n6\n7\nnan\n9\n' > "$tmp/w.txt"
timeout 60 "${mpi[@]}" -np 3 "$warpsim" alias sharded --weights "$tmp/w.txt" --draws 1000 > /dev/null 2> "$tmp/nan.err"
rc=$?
if [[ $rc == 2 ]] && grep -q "rank 2 of 3: weight 7 is not a number" "$tmp/nan.err"; then echo "ok: a NaN weight on shard 2 ends the job with exit 2, naming it"; else fail "a NaN on shard 2: exit $rc"; cat "$tmp/nan.err"; fi

# The cap: 10^12 draws a process.
"$warpsim" validate --builtin sum-tree --draws-per-law 1500000000000 > /dev/null 2> "$tmp/cap.err"
rc=$?
if [[ $rc == 2 ]] && grep -q "at most 10^12 a process" "$tmp/cap.err"; then echo "ok: 1.5 x 10^12 draws on one process refused"; else fail "the cap: exit $rc"; cat "$tmp/cap.err"; fi

exit $((failures > 0))
