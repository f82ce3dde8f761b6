#!/usr/bin/env bash
# b54479b (a block a row fills 16 warps a multiprocessor) against 0d56819:
# all of gpu_tests, the sum tree's sanitizer tests, then three rounds of the
# many-draws points and the fill sweep's points, alternating order; then
# the many-draws table's points with PyTorch's methods in the same call.
D=.device-out
S=""
for p in 1:64:1024 1:64:65536 1:1024:65536 1:4096:65536 1:32768:65536 1:131072:1024 1:131072:65536 1:1048576:65536 16:1024:4096 64:64:1024 \
  64:32768:1024 256:64:4096 512:100:2048 32:4096:8192 4096:64:1024 4096:256:256 4096:256:1024 4096:1024:512 65536:64:64; do S="$S --point $p"; done
X=""
for p in 64:4096:4096 128:1024:2048 8:4096:65536 100:16384:512 32:1024:1024 200:256:1024 512:64:1024 64:8192:2048 \
  4096:4096:256 2048:1024:512 8192:1024:512 1024:32768:16 4096:4096:1; do X="$X --point $p"; done
ROUNDS=3 bash scripts/device_ab.sh b54479b $S $X --forced none
cp $D/bench_new $D/bench_gpu_rows
PYTHONUNBUFFERED=1 timeout 200 python3 bench/torch_rows_baselines.py $S > "$OUT/torch_s.jsonl" 2> "$OUT/torch_s.err"; echo "torch_s rc $?"
$D/bench_gpu_rows $S --forced none > "$OUT/bench_s.jsonl" 2>&1; echo "bench_s rc $?"
cd "$OUT" && tar czf logs.tgz * && ls | grep -v logs.tgz | xargs rm -f
