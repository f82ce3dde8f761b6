#!/usr/bin/env bash
# One device call: GPU tests (the registry's GPU entries against their
# oracles and every property included), compute-sanitizer (memcheck,
# racecheck, synccheck), the seeded-bug catalogue's CUDA forms, the matrix
# benchmark and the PyTorch baselines, the LDA benchmark; logs under $OUT.
# Expects the binaries built here in .device-out/ (carried): gpu_tests,
# warpsim_mutants, bench_gpu_matrix, bench_gpu_lda. SWEEP=1 adds the tuning
# sweeps of both benchmarks.
set -uo pipefail
out=${OUT:-/tmp/out}
sweep=${SWEEP:-0}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv > "$out/device.txt" 2>&1
cat "$out/device.txt"
./.device-out/gpu_tests 2>&1 | tee "$out/gpu_tests.log" | grep -E "^\[  (PASSED|FAILED|SKIPPED)|FAILED  \]" | head -20
for tool in memcheck racecheck synccheck; do
  compute-sanitizer --tool $tool ./.device-out/gpu_tests \
    --gtest_filter='GpuMatrix.DrawsEqual*:GpuLda.Every*:SimVsHardware.*:Registry/GpuEntry.EqualsItsOracleBitForBit/*' --gtest_brief=1 \
    > "$out/$tool.log" 2>&1
  echo "$tool: $(tail -1 "$out/$tool.log")"
done
./.device-out/warpsim_mutants --cuda --tests 100 --format json > "$out/mutants.json" 2> "$out/mutants.stderr"
echo "mutants: exit $? $(grep -o '"killed": [0-9]*' "$out/mutants.json" | head -1) $(grep -o '"total": [0-9]*' "$out/mutants.json")"
compute-sanitizer --tool racecheck ./.device-out/warpsim_mutants --cuda --tests 3 --only missing-syncwarp > "$out/racecheck_missing_syncwarp.log" 2>&1
echo "racecheck on missing-syncwarp: $(grep -c 'Race reported\|hazard' "$out/racecheck_missing_syncwarp.log") hazard lines; $(tail -1 "$out/racecheck_missing_syncwarp.log")"
flag=""; [[ $sweep == 1 ]] && flag="--sweep"
./.device-out/bench_gpu_matrix $flag > "$out/bench_gpu_matrix.jsonl" 2>&1
grep -v '"sweep"' "$out/bench_gpu_matrix.jsonl"
PYTHONUNBUFFERED=1 python3 bench/torch_baselines.py 2>&1 | tee "$out/torch_baselines.jsonl"
./.device-out/bench_gpu_lda $flag 2>&1 | tee "$out/bench_gpu_lda.jsonl"
