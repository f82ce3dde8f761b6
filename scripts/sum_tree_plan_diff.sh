#!/usr/bin/env bash
# Whether two commits' sum-tree plans agree at every point of
# scripts/sum_tree_plan_dump.cpp (docs/perf/sum-tree-plan.md).
#   scripts/sum_tree_plan_diff.sh OLD [NEW]   (NEW: the working tree)
# A commit whose plan is gpu/sum_tree/plan.cpp builds with the host compiler;
# an older one (the plan inside gpu/sum_tree_sampler.cu) needs nvcc.
# Prints "identical: N points" and exits 0, or the first differences and 1.
set -euo pipefail
old=${1:?usage: $0 OLD [NEW]}
new=${2:-}
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'git -C "$here" worktree remove --force "$work/old" >/dev/null 2>&1 || true; git -C "$here" worktree remove --force "$work/new" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}

build() {  # SRC_TREE OUT
  if [ -f "$1/gpu/sum_tree/plan.cpp" ]; then
    g++ -std=c++20 -O1 -I"$1" "$here/scripts/sum_tree_plan_dump.cpp" "$1/gpu/sum_tree/plan.cpp" -o "$2"
  else
    [ -x "$nvcc" ] || { echo "$0: $1 predates gpu/sum_tree/plan.cpp and needs nvcc ($nvcc)" >&2; exit 2; }
    "$nvcc" -std=c++17 -O1 -arch=sm_90 -I"$1" -DOLD -x cu "$here/scripts/sum_tree_plan_dump.cpp" "$1/gpu/sum_tree_sampler.cu" \
      "$1/gpu/launch.cu" "$1/gpu/device.cu" -o "$2"
  fi
}

git -C "$here" worktree add -q --detach "$work/old" "$old"
build "$work/old" "$work/old.bin"
if [ -n "$new" ]; then
  git -C "$here" worktree add -q --detach "$work/new" "$new"
  build "$work/new" "$work/new.bin"
else
  build "$here" "$work/new.bin"
fi
echo "$0: printing both plans (about a minute each)" >&2
"$work/old.bin" >"$work/old.txt"
"$work/new.bin" >"$work/new.txt"
if cmp -s "$work/old.txt" "$work/new.txt"; then
  echo "identical: $(wc -l <"$work/new.txt") points"
else
  diff "$work/old.txt" "$work/new.txt" | head -20
  exit 1
fi
