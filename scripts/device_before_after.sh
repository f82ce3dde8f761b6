#!/usr/bin/env bash
# One device call: the same benchmarks built at two commits, run in turn
# (before, after, before, after) on one GPU, so that a change meant to move
# no kernel shows whether it moved any: the sum tree at 14 points of its
# grid (the plan's layout; fp32 and fp64), the alias construction and
# sampling (--quick) and seed 000's matrix kernels (their default table).
#   bash scripts/device_before_after.sh BEFORE_DIR AFTER_DIR [LABEL]
# Each DIR holds bench_gpu_rows, bench_gpu_alias and bench_gpu_matrix (or a
# bins.tar.xz of them). Logs under $OUT/before-after/; then
#   python3 scripts/before_after.py $OUT/before-after
# prints each point's medians and their ratio.
set -uo pipefail
before=${1:?usage: $0 BEFORE_DIR AFTER_DIR [LABEL]}
after=${2:?usage: $0 BEFORE_DIR AFTER_DIR [LABEL]}
out=${OUT:-/tmp/out}/before-after
mkdir -p "$out"
for d in "$before" "$after"; do
  if [[ -f $d/bins.tar.xz ]]; then tar -C "$d" -xJf "$d/bins.tar.xz" || exit 2; fi
done
echo "${3:-}" > "$out/label.txt"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > "$out/device.txt" 2>&1
points=(1:131072:1 64:131072:1 256:131072:1 1024:131072:1 4096:32768:1 32:1048576:1 1:16777216:1
        65536:4096:1 1048576:256:1 8388608:32:1 256:131072:64 1:131072:65536 1048576:256:8 4096:64:1024)
args=(--forced none)
for p in "${points[@]}"; do args+=(--point "$p"); done
for round in 1 2; do
  for side in before after; do
    dir=$before; [[ $side == after ]] && dir=$after
    echo "round $round, $side: rows"
    "$dir/bench_gpu_rows" "${args[@]}" > "$out/rows_${side}_${round}.jsonl" 2>&1
    echo "round $round, $side: alias"
    "$dir/bench_gpu_alias" --quick > "$out/alias_${side}_${round}.jsonl" 2>&1
    echo "round $round, $side: matrix"
    "$dir/bench_gpu_matrix" > "$out/matrix_${side}_${round}.jsonl" 2>&1
  done
done
echo "done: $(ls "$out" | wc -l) files"
