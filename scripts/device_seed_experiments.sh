#!/usr/bin/env bash
# Issue 54: the seeds' experiments re-run with warpsim's kernels on the
# device. One call; logs under $OUT. Expects bench_gpu_lda built here for
# sm_90 in .device-out/seed/ (carried): `bash scripts/device_seed_experiments.sh pack`
# here first.
#   seed 000, Figs. 11 and 12: the LDA z-draw at the seed's corpus size over
#   its K grids (4 to 1024 by 4, every K from 480 to 544), Alg. 1 (baseline),
#   Alg. 4 (transposed, register transpose), Alg. 7 (butterfly add-subtract),
#   fp32 and fp64.
#   seed 001 (PART=001): Figs. 5.7-5.9, the section-size sweeps and Fig. 4.6,
#   with the thesis's own experiment functions (its code at dffa37a in
#   .thesis-src, carried, built there: bench/thesis_baseline/, `driver plots`)
#   and warpsim's samplers on the same grids (`bench_gpu_alias --seed-grid`).
# Tables 5.2 and 5.3 and seed 004's iterations are the reference runs of
# docs/perf/alias-gpu.md and docs/perf/rejection.md (thesis code beside ours,
# same device); scripts/seed_figures.py draws all of them.
set -uo pipefail
if [[ ${1:-} == pack ]]; then
  mkdir -p .device-out/seed
  cp build-gpu/bench/bench_gpu_lda build-gpu/bench/bench_gpu_alias .device-out/seed/
  exit 0
fi
if [[ ${PART:-000} == 001 ]]; then
  out=${OUT:-/tmp/out}
  logs=$out
  mkdir -p "$out"
  source bench/thesis_baseline/device_start.sh  # device.txt; the thesis built in the background
  start=$(date +%s)
  ./.device-out/seed/bench_gpu_alias --seed-grid > "$out/alias_seed_grid.jsonl" 2> "$out/alias_seed_grid.stderr"
  echo "bench_gpu_alias --seed-grid: exit $?, $(wc -l < "$out/alias_seed_grid.jsonl") lines, $(( $(date +%s) - start )) s"
  wait "$build_pid"
  tail -2 "$out/thesis_build.log"
  start=$(date +%s)
  timeout ${THESIS_SECONDS:-400} "$thesis_bin" plots > "$out/thesis_plots.csv" 2> "$out/thesis_plots.stderr"
  echo "thesis plots: exit $?, $(grep -c '^#' "$out/thesis_plots.csv") experiments begun, $(wc -l < "$out/thesis_plots.csv") lines, $(( $(date +%s) - start )) s"
  exit 0
fi
out=${OUT:-/tmp/out}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.memory --format=csv > "$out/device.txt" 2>&1
nvcc --version 2>/dev/null | tail -2 >> "$out/device.txt"
git rev-parse --short HEAD > "$out/commit.txt" 2>/dev/null || true
cat "$out/device.txt"
start=$(date +%s)
./.device-out/seed/bench_gpu_lda --seed-grid > "$out/lda_seed_grid.jsonl" 2> "$out/lda_seed_grid.stderr"
echo "bench_gpu_lda --seed-grid: exit $?, $(wc -l < "$out/lda_seed_grid.jsonl") lines, $(( $(date +%s) - start )) s"
