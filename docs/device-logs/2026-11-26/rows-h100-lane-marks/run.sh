#!/usr/bin/env bash
# The (M, K) table run, all GPU tests, the S table and short rows' S draws
set -uo pipefail
out=${OUT:-/tmp/out}
echo "$1" > "$out/commit.txt"
bash scripts/device_rows.sh 2>&1 | tee "$out/console.log" | grep -v '^{' | head -20
D=.device-out
timeout 500 $D/gpu_tests > "$out/gpu_tests_all.log" 2>&1
echo "gpu_tests all: $(grep -E '^\[  (PASSED|FAILED)' "$out/gpu_tests_all.log" | tr '\n' ' ') skipped $(grep -c '^\[  SKIPPED \]' "$out/gpu_tests_all.log")"
grep -E '^\[  FAILED' "$out/gpu_tests_all.log" | head
S=""
for p in 1:64:1024 1:64:65536 1:1024:65536 1:4096:65536 1:32768:65536 1:131072:1024 1:131072:65536 1:1048576:65536 16:1024:4096 64:64:1024 64:32768:1024 256:64:4096 512:100:2048 32:4096:8192 4096:64:1024 4096:256:256 4096:256:1024 4096:1024:512 65536:64:64; do S="$S --point $p"; done
$D/bench_gpu_rows $S > "$out/bench_s.jsonl" 2>&1; echo "bench_s rc $?"
PYTHONUNBUFFERED=1 python3 bench/torch_rows_baselines.py $S > "$out/torch_s.jsonl" 2> "$out/torch_s.err"; echo "torch_s rc $?"
P=""; T=""
for k in 8 16 32 64 128 200 256; do
  for s in 2 4 8 16 32; do
    P="$P --point $((268435456 / k)):$k:$s --point 65536:$k:$s"
  done
done
for k in 8 64 256; do for s in 2 8 32; do T="$T --point $((268435456 / k)):$k:$s"; done; done
$D/bench_gpu_rows --forced lanes,thread $P > "$out/short_s.jsonl" 2>&1; echo "short_s rc $?"
PYTHONUNBUFFERED=1 timeout 300 python3 bench/torch_rows_baselines.py $T > "$out/torch_short_s.jsonl" 2> "$out/torch_short_s.err"; echo "torch_short_s rc $?"
E=""
for p in 1:4096:2 1:4096:4 64:4096:4 1:32768:2 1:32768:4 64:32768:4 100:16384:8 100:4096:32 132:32768:3; do E="$E --point $p"; done
$D/bench_gpu_rows --forced block $E > "$out/extra_block.jsonl" 2>&1; echo "extra_block rc $?"
cd "$out" && tar czf logs.tgz * && ls | grep -v logs.tgz | xargs rm -f
