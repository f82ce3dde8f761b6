#!/usr/bin/env bash
# The fuzzing campaign: builds every libFuzzer target (clang, ASan + UBSan,
# BUILD/fuzz/), runs each for SECONDS seconds, PARALLEL targets at a time,
# starting from its checked-in corpus, then merges what it found back into
# fuzz/corpus/NAME (minimised: only inputs that add coverage) and prints one
# line per target: executions, coverage (edges), features, corpus, crashes.
#
#   bash scripts/fuzz.sh [SECONDS] [PARALLEL] [TARGET...]     (default 300 1, all targets)
#
# A crash leaves its input in BUILD/campaign/crash-NAME-*; make it a
# regression (fuzz/regressions/NAME/) once fixed. Logs: BUILD/campaign/. BUILD is
# $WARPSIM_FUZZ_BUILD, default build-fuzz. FUZZ_TIMEOUT: seconds an input may take (default 10;
# rejection's pre-cached chains need 30 in this instrumented build).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-300}
parallel=${2:-1}
shift $(( $# > 2 ? 2 : $# ))

build=${WARPSIM_FUZZ_BUILD:-build-fuzz}
CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWARPSIM_FUZZ=ON \
  -DWARPSIM_TESTS=OFF -DWARPSIM_BENCHMARKS=OFF -DWARPSIM_CUDA=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" >/dev/null

targets=("$@")
if ((${#targets[@]} == 0)); then
  for exe in "$build"/fuzz/fuzz_*; do targets+=("${exe#"$build"/fuzz/fuzz_}"); done
fi
camp=$build/campaign
mkdir -p "$camp"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

run_one() {
  local t=$1 exe=$build/fuzz/fuzz_$1
  mkdir -p "$camp/corpus/$t"
  rm -f "$camp"/crash-"$t"-*  # this run's findings only
  local dirs=(fuzz/corpus/"$t")
  [[ -d fuzz/regressions/$t ]] && dirs+=(fuzz/regressions/"$t")
  "$exe" -max_total_time="$seconds" -timeout="${FUZZ_TIMEOUT:-10}" -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 \
    -artifact_prefix="$camp/crash-$t-" "$camp/corpus/$t" "${dirs[@]}" >"$camp/$t.log" 2>&1 || true
}
export -f run_one
export camp seconds build
printf '%s\n' "${targets[@]}" | xargs -P "$parallel" -I{} bash -c 'run_one {}'

printf '%-22s %12s %8s %8s %8s %8s\n' target executions edges features corpus crashes
for t in "${targets[@]}"; do
  exe=$build/fuzz/fuzz_$t
  # Minimise: the checked-in corpus becomes the smallest set with all coverage seen.
  fresh=$(mktemp -d)
  "$exe" -merge=1 -max_len=4096 -timeout="${FUZZ_TIMEOUT:-10}" "$fresh" fuzz/corpus/"$t" "$camp/corpus/$t" >"$camp/$t.merge.log" 2>&1
  rm -rf fuzz/corpus/"$t" && mkdir -p fuzz/corpus/"$t" && cp "$fresh"/* fuzz/corpus/"$t"/ && rm -rf "$fresh"
  log=$camp/$t.log
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  last=$(grep -E '^#[0-9]+' "$log" | tail -1)
  edges=$(grep -o 'cov: [0-9]*' <<<"$last" | grep -o '[0-9]*' || echo 0)
  ft=$(grep -o 'ft: [0-9]*' <<<"$last" | grep -o '[0-9]*' || echo 0)
  crashes=$(find "$camp" -maxdepth 1 -name "crash-$t-*" | wc -l)
  printf '%-22s %12s %8s %8s %8s %8s\n' "$t" "$execs" "$edges" "$ft" "$(ls fuzz/corpus/"$t" | wc -l)" "$crashes"
done
