#!/usr/bin/env bash
# Minimises the checked-in fuzz corpus to the smallest set of inputs that
# keeps every coverage edge (libFuzzer -merge=1 with -use_counters=0: edges,
# not hit counts), target by target, and prints a line a target: files and
# edges before and after. The campaign (scripts/fuzz.sh) grows the corpus;
# this trims it before it is committed.
#
#   bash scripts/fuzz_minimise.sh [TARGET...]     (default: all targets)
#
# Builds the libFuzzer targets as scripts/fuzz.sh does ($WARPSIM_FUZZ_BUILD,
# default build-fuzz; clang).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${WARPSIM_FUZZ_BUILD:-build-fuzz}
CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWARPSIM_FUZZ=ON \
  -DWARPSIM_TESTS=OFF -DWARPSIM_BENCHMARKS=OFF -DWARPSIM_CUDA=OFF >/dev/null
cmake --build "$build" --target warpsim_fuzz_targets >/dev/null
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:allocator_may_return_null=1}
targets=("$@")
if ((${#targets[@]} == 0)); then
  for d in fuzz/corpus/*/; do targets+=("$(basename "$d")"); done
fi
edges() {  # the coverage edges of a corpus folder, as a merge into nothing counts them
  local empty
  empty=$(mktemp -d)
  "$build/fuzz/fuzz_$1" -merge=1 -use_counters=0 -max_len=4096 -timeout=10 "$empty" "$2" 2>&1 | grep -o '[0-9]* new coverage edges' | grep -o '^[0-9]*'
  rm -rf "$empty"
}
printf '%-22s %8s %8s %8s %8s\n' target files edges files edges
for t in "${targets[@]}"; do
  before_files=$(ls fuzz/corpus/"$t" | wc -l)
  before_edges=$(edges "$t" fuzz/corpus/"$t")
  fresh=$(mktemp -d)
  "$build/fuzz/fuzz_$t" -merge=1 -use_counters=0 -max_len=4096 -timeout=10 "$fresh" fuzz/corpus/"$t" >/dev/null 2>&1
  rm -rf fuzz/corpus/"$t" && mkdir -p fuzz/corpus/"$t" && cp "$fresh"/* fuzz/corpus/"$t"/ && rm -rf "$fresh"
  printf '%-22s %8s %8s %8s %8s\n' "$t" "$before_files" "$before_edges" "$(ls fuzz/corpus/"$t" | wc -l)" "$(edges "$t" fuzz/corpus/"$t")"
done
