#!/usr/bin/env bash
# One device call for issue 16 (the sum-tree draw across the (M, K) plane):
# its GPU tests against the oracle, compute-sanitizer (memcheck, racecheck,
# synccheck) on them, bench_gpu_rows and PyTorch's methods on the same grid,
# and ncu's kernel durations at small M (latency: what an event-timed call
# adds to the kernel); then (unless GRID_ONLY=1) all of gpu_tests, the many
# draws of few rows and the S draws of short rows (bench and PyTorch), and
# S = 2-32 draws of few rows with every block a row forced: every log
# docs/PERF.md's tables are made from. Logs under $OUT; the first argument,
# if any, goes to commit.txt there (the device's checkout reports the
# session's base commit, not the one built). Expects the binaries built
# here in .device-out/ (carried): gpu_tests, bench_gpu_rows, or
# .device-out/bins.tar.xz holding them (the carried tree stays under 64 MiB).
set -uo pipefail
if [[ -f .device-out/bins.tar.xz ]]; then tar -C .device-out -xJf .device-out/bins.tar.xz || exit 2; fi
out=${OUT:-/tmp/out}
mkdir -p "$out"
[[ $# -ge 1 ]] && echo "$1" > "$out/commit.txt"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > "$out/device.txt" 2>&1
cat "$out/device.txt"
./.device-out/gpu_tests --gtest_filter='SumTree*:Registry/Gpu*Entry.*sum_tree*' > "$out/gpu_tests.log" 2>&1
echo "gpu_tests: $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' "$out/gpu_tests.log" | tr '\n' ' ')"
grep -E '^\[  FAILED|Failure|GPU [0-9]' "$out/gpu_tests.log" | head -20
for tool in memcheck racecheck synccheck; do
  filter='SumTreeSampler.TinyTails*:SumTreeSampler.Refuses*:SumTreeSampler.*UnderSanitizers:SumTreeSampler.BlockPerRowMarksAVector*'
  [[ $tool == memcheck ]] && filter="$filter:SumTreeSampler.EveryDrawIsTheOraclesFp32:SumTreeSampler.LanesPerRowEveryKernel*"
  timeout 300 compute-sanitizer --tool $tool ./.device-out/gpu_tests --gtest_filter="$filter" \
    --gtest_brief=1 > "$out/$tool.log" 2>&1
  echo "$tool: $(tail -1 "$out/$tool.log")"
done
./.device-out/bench_gpu_rows 2>&1 | tee "$out/bench_gpu_rows.jsonl"
[[ ${SKIP_TORCH:-0} == 1 ]] || PYTHONUNBUFFERED=1 python3 bench/torch_rows_baselines.py 2>&1 | tee "$out/torch_rows_baselines.jsonl"
# Kernel durations at small M, the GPU's own clock (L2 warm, as in the
# benchmark): set beside the event-timed medians of bench_gpu_rows.jsonl.
if command -v ncu > /dev/null; then
  timeout 300 ncu --cache-control none --clock-control none --metrics gpu__time_duration.sum --csv \
    -k 'regex:block_pass|segment_pass|row_pass|resident_pass|cluster_pass|empty_kernel' ./.device-out/bench_gpu_rows --fp32 \
    --point 1:4096:1 --point 64:4096:1 --point 1:32768:1 --point 1:131072:1 --point 1:131072:64 --point 1:1048576:1 \
    > "$out/ncu_small_m.csv" 2> "$out/ncu_small_m.err"
  echo "ncu: $(wc -l < "$out/ncu_small_m.csv") lines"
fi
[[ ${GRID_ONLY:-0} == 1 ]] && exit 0
D=./.device-out
timeout 500 $D/gpu_tests > "$out/gpu_tests_all.log" 2>&1
echo "gpu_tests all: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]+ tests?' "$out/gpu_tests_all.log" | tr '\n' ' ')"
grep -E '^\[  FAILED' "$out/gpu_tests_all.log" | head
# Many draws of few rows (torch.multinomial's num_samples = S).
S=""
for p in 1:64:1024 1:64:65536 1:1024:65536 1:4096:65536 1:32768:65536 1:131072:1024 1:131072:65536 1:1048576:65536 16:1024:4096 64:64:1024 \
  64:32768:1024 256:64:4096 512:100:2048 32:4096:8192 4096:64:1024 4096:256:256 4096:256:1024 4096:1024:512 65536:64:64; do S="$S --point $p"; done
$D/bench_gpu_rows $S > "$out/bench_s.jsonl" 2>&1; echo "bench_s rc $?"
PYTHONUNBUFFERED=1 python3 bench/torch_rows_baselines.py $S > "$out/torch_s.jsonl" 2> "$out/torch_s.err"; echo "torch_s rc $?"
# S = 2-32 draws of short rows, at M x K = 2^28 and M = 65,536: lanes a row
# and a thread a row forced beside the plan's; PyTorch at 9 of them.
P=""; T=""
for k in 8 16 32 64 128 200 256; do
  for s in 2 4 8 16 32; do P="$P --point $((268435456 / k)):$k:$s --point 65536:$k:$s"; done
done
for k in 8 64 256; do for s in 2 8 32; do T="$T --point $((268435456 / k)):$k:$s"; done; done
$D/bench_gpu_rows --forced lanes,thread $P > "$out/short_s.jsonl" 2>&1; echo "short_s rc $?"
PYTHONUNBUFFERED=1 timeout 300 python3 bench/torch_rows_baselines.py $T > "$out/torch_short_s.jsonl" 2> "$out/torch_short_s.err"
echo "torch_short_s rc $?"
# S = 2-32 draws of few rows, every block a row forced (kept, walked).
E=""
for p in 1:4096:2 1:4096:4 64:4096:4 1:32768:2 1:32768:4 64:32768:4 100:16384:8 100:4096:32 132:32768:3; do E="$E --point $p"; done
$D/bench_gpu_rows --forced block $E > "$out/extra_block.jsonl" 2>&1; echo "extra_block rc $?"
