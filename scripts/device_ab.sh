#!/usr/bin/env bash
# One device call's usual first half, then an A/B of two builds (or one
# build's points): unpacks .device-out/bins.tar.xz (carried), writes the
# device and the commit note (the first argument: the device's checkout
# reports the session's base commit, not the one built) to $OUT, runs all
# of gpu_tests and compute-sanitizer on the sum tree's sanitizer tests,
# then times bench_base against bench_new for ROUNDS rounds in alternating
# order (base first, then new first, ...), or, with AB=0, bench_gpu_rows
# once; every argument after the first goes to the benchmark. Logs under
# $OUT; the caller packs them (cd "$OUT" && tar czf logs.tgz *).
#   SANITIZE       gtest filter for every tool (default: the sum tree's
#                  sanitizer tests and tiny tails)
#   MEMCHECK_EXTRA more tests for memcheck alone (a filter, ':'-joined)
#   TOOLS          the tools (default: memcheck racecheck synccheck)
#   ROUNDS, AB     rounds of the A/B (3), 0 for one build (1)
set -uo pipefail
if [[ -f .device-out/bins.tar.xz ]]; then tar -C .device-out -xJf .device-out/bins.tar.xz || exit 2; fi
D=.device-out
out=${OUT:-/tmp/out}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > "$out/device.txt" 2>&1
echo "${1:-}" > "$out/commit.txt"
shift || true
timeout 500 $D/gpu_tests > "$out/gpu_tests.log" 2>&1
echo "gpu_tests: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]+ tests?' "$out/gpu_tests.log" | tr '\n' ' ')"
grep -E '^\[  FAILED|Failure' "$out/gpu_tests.log" | head -10
for tool in ${TOOLS:-memcheck racecheck synccheck}; do
  filter=${SANITIZE:-'SumTreeSampler.TinyTails*:SumTreeSampler.*UnderSanitizers:SumTreeSampler.BlockPerRowMarksAVector*'}
  [[ $tool == memcheck && -n ${MEMCHECK_EXTRA:-} ]] && filter="$filter:$MEMCHECK_EXTRA"
  timeout 300 compute-sanitizer --tool "$tool" $D/gpu_tests --gtest_filter="$filter" --gtest_brief=1 > "$out/$tool.log" 2>&1
  echo "$tool: $(tail -1 "$out/$tool.log")"
done
if [[ ${AB:-1} == 0 ]]; then
  $D/bench_gpu_rows "$@" > "$out/bench_points.jsonl" 2>&1
  exit 0
fi
for ((r = 1; r <= ${ROUNDS:-3}; ++r)); do
  if ((r % 2 == 0)); then order="new base"; else order="base new"; fi
  for b in $order; do $D/bench_$b "$@" > "$out/${b}_$r.jsonl" 2>&1; done
done
