#!/usr/bin/env bash
# One device call for issue 52 (token sampling): the token sampler's GPU
# tests against the definition, compute-sanitizer (memcheck, racecheck,
# synccheck) on a slice of them, bench_gpu_token and PyTorch's reference on
# the same grid. Logs under $OUT. Expects .device-out/tokens.tar.xz (made by
# `scripts/device_tokens.sh pack` here) holding gpu_tests and bench_gpu_token.
set -uo pipefail
if [[ ${1:-} == pack ]]; then
  (cd build-gputest && ninja gpu_tests) && (cd build-gpu && ninja bench_gpu_token) || exit 1
  mkdir -p .device-out/tokens && cp build-gputest/tests/gpu/gpu_tests build-gpu/bench/bench_gpu_token .device-out/tokens/ || exit 1
  tar -C .device-out -cJf .device-out/tokens.tar.xz tokens && ls -la .device-out/tokens.tar.xz
  exit 0
fi
tar -C .device-out -xJf .device-out/tokens.tar.xz || exit 2
D=.device-out/tokens
out=${OUT:-/tmp/out}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > "$out/device.txt" 2>&1
$D/gpu_tests --gtest_filter='TokenSampler*' > "$out/token_tests.log" 2>&1
echo "token tests: $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' "$out/token_tests.log" | tr '\n' ' ')"
grep -E '^\[  FAILED|Failure|kernel' "$out/token_tests.log" | head -20
if [[ ${SANITIZE:-1} == 1 ]]; then
  for tool in memcheck racecheck synccheck; do
    filter='TokenSampler.Refused*:TokenSampler.TheSameRequest*'
    [[ $tool == memcheck ]] && filter="$filter:TokenSampler.EveryDrawIsTheDefinitionsFp32"
    timeout 240 compute-sanitizer --tool $tool $D/gpu_tests --gtest_filter="$filter" --gtest_brief=1 > "$out/$tool.log" 2>&1
    echo "$tool: $(tail -1 "$out/$tool.log")"
  done
fi
$D/bench_gpu_token ${BENCH_ARGS:-} > "$out/bench_gpu_token.jsonl" 2>&1; echo "bench rc $?"
[[ ${SKIP_TORCH:-0} == 1 ]] || { PYTHONUNBUFFERED=1 timeout 400 python3 bench/torch_token_baselines.py ${TORCH_ARGS:-} > "$out/torch_token.jsonl" 2> "$out/torch_token.err"; echo "torch rc $?"; }
