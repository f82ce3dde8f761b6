#!/usr/bin/env bash
# One device call: GPU tests, compute-sanitizer, the matrix benchmark and the
# PyTorch baselines, the LDA sweep, logs under $OUT. Expects the binaries
# built here in .device-out/ (carried): gpu_tests, bench_gpu_matrix, bench_gpu_lda.
set -uo pipefail
out=${OUT:-/tmp/out}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv > "$out/device.txt" 2>&1
cat "$out/device.txt"
./.device-out/gpu_tests 2>&1 | tee "$out/gpu_tests.log" | tail -25
compute-sanitizer --tool memcheck ./.device-out/gpu_tests --gtest_filter='GpuMatrix.DrawsEqual*:SimVsHardware.*' --gtest_brief=1 > "$out/memcheck.log" 2>&1
tail -3 "$out/memcheck.log"
./.device-out/bench_gpu_matrix 2>&1 | tee "$out/bench_gpu_matrix.jsonl"
PYTHONUNBUFFERED=1 python3 bench/torch_baselines.py 2>&1 | tee "$out/torch_baselines.jsonl"
./.device-out/bench_gpu_lda 2>&1 | tee "$out/bench_gpu_lda.jsonl"
