#!/usr/bin/env bash
# One device call for issue 57's speed half: ours and PyTorch's gamma variates
# at shapes 0.01 to 10^4 in fp32 and fp64, the LDA Gibbs iteration (z, theta
# and phi, end to end) against PyTorch's (bench/torch_lda_gibbs.py) on the
# same corpus, and (NCU=1) Nsight Compute's view of both gamma kernels.
# With TESTS=1 first the GPU tests (.device-out/gpu_tests.xz; TEST_FILTER
# narrows them) and compute-sanitizer's memcheck, racecheck and synccheck
# of the gamma kernels and of the z-draw ring kernels with their sums in
# global scratch, taking whole groups and chunks. With LDA_SWEEP=1 also the
# z-draw table and every tuning (.device-out/bench_gpu_lda.xz --sweep).
# Expects .device-out/bench_gpu_rejection.xz (carried). Logs under
# $OUT/lda-perf/, a summary on stdout.
set -uo pipefail
out=${OUT:-/tmp/out}
logs=$out/lda-perf
mkdir -p "$logs"
bin=/tmp/bench_gpu_rejection
xz -dc .device-out/bench_gpu_rejection.xz > $bin && chmod +x $bin
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader; date -u; } > "$logs/device.txt"
if [[ ${TESTS:-0} == 1 ]]; then
  xz -dc .device-out/gpu_tests.xz > /tmp/gpu_tests && chmod +x /tmp/gpu_tests
  /tmp/gpu_tests --gtest_filter="${TEST_FILTER:-*}" > "$logs/gpu_tests.log" 2>&1
  echo "gpu_tests: $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' "$logs/gpu_tests.log" | tr '\n' ' ')"
  grep -E "FAILED|bit for bit|smallest normal|iterations a warp call" "$logs/gpu_tests.log"
  for tool in memcheck racecheck synccheck; do
    timeout 300 compute-sanitizer --tool $tool /tmp/gpu_tests --gtest_filter='GpuGamma.LdaGibbs*:GpuGamma.LdaTopicDraws*:GpuGamma.Underflow*:*GpuLdaTuning*ring2_tokens2_global_sums*' --gtest_brief=1 > "$logs/$tool.log" 2>&1
    echo "$tool: $(tail -1 "$logs/$tool.log")"
  done
fi
if [[ ${NCU:-0} == 1 ]]; then
  for s in ${NCU_SHAPES:-0.3 2.5}; do
    timeout 240 ncu --set full -k regex:gamma -c 2 $bin --profile-shape "$s" > "$logs/ncu_ours_$s.txt" 2>&1
    timeout 240 ncu --set full -k regex:PointwiseApply2 -c 2 python3 -c "
import torch
for d in (torch.float32, torch.float64):
    s = torch.full((100_000_000,), $s, device='cuda', dtype=d); torch._standard_gamma(s); torch.cuda.synchronize()" > "$logs/ncu_torch_$s.txt" 2>&1
    echo "ncu at shape $s: $(grep -c 'Section: GPU Speed Of Light' "$logs/ncu_ours_$s.txt") ours, $(grep -c 'Section: GPU Speed Of Light' "$logs/ncu_torch_$s.txt") torch"
  done
fi
$bin --gamma-grid ${GRID_FLAGS:-} > "$logs/bench_gamma_grid.jsonl" 2>&1
cat "$logs/bench_gamma_grid.jsonl"
if [[ ${LDA_SWEEP:-0} == 1 ]]; then
  xz -dc .device-out/bench_gpu_lda.xz > /tmp/bench_gpu_lda && chmod +x /tmp/bench_gpu_lda
  /tmp/bench_gpu_lda --sweep > "$logs/bench_gpu_lda.jsonl" 2>&1
  grep -v sweep "$logs/bench_gpu_lda.jsonl"
fi
[[ ${SKIP_TORCH:-0} == 1 ]] && exit 0
(cd bench && PYTHONUNBUFFERED=1 python3 torch_gamma_baseline.py --grid) > "$logs/torch_gamma_grid.jsonl" 2>&1
cat "$logs/torch_gamma_grid.jsonl"
mkdir -p /tmp/corpus && $bin --dump-corpus /tmp/corpus
(cd bench && PYTHONUNBUFFERED=1 timeout 400 python3 torch_lda_gibbs.py /tmp/corpus) > "$logs/torch_lda_gibbs.jsonl" 2>&1
cat "$logs/torch_lda_gibbs.jsonl"
