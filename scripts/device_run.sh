#!/usr/bin/env bash
# One device call: GPU tests, compute-sanitizer (memcheck, racecheck,
# synccheck), the matrix benchmark with its tuning sweep and the PyTorch
# baselines, the LDA sweep; logs under $OUT. Expects the binaries built here
# in .device-out/ (carried): gpu_tests, bench_gpu_matrix, bench_gpu_lda.
set -uo pipefail
out=${OUT:-/tmp/out}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv > "$out/device.txt" 2>&1
cat "$out/device.txt"
./.device-out/gpu_tests 2>&1 | tee "$out/gpu_tests.log" | tail -4
for tool in memcheck racecheck synccheck; do
  compute-sanitizer --tool $tool ./.device-out/gpu_tests --gtest_filter='GpuMatrix.DrawsEqual*:GpuLda.Every*:SimVsHardware.*' --gtest_brief=1 \
    > "$out/$tool.log" 2>&1
  echo "$tool: $(tail -1 "$out/$tool.log")"
done
./.device-out/bench_gpu_matrix --sweep > "$out/bench_gpu_matrix.jsonl" 2>&1
grep -v '"sweep"' "$out/bench_gpu_matrix.jsonl"
PYTHONUNBUFFERED=1 python3 bench/torch_baselines.py 2>&1 | tee "$out/torch_baselines.jsonl"
./.device-out/bench_gpu_lda --sweep 2>&1 | tee "$out/bench_gpu_lda.jsonl"
