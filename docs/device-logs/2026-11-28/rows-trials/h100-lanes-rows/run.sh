#!/usr/bin/env bash
# b8010f3 (S draws of 1,024+ rows on 16-32 lanes lanes a row up to 64
# rounds) against 18691b8: all of gpu_tests, the sum tree's sanitizer
# tests (memcheck also on lanes a row's), three rounds of the points whose
# plan changes and their neighbours, alternating order; then the many-draws
# table's points with PyTorch's methods in the same call.
D=.device-out
S=""
for p in 1:64:1024 1:64:65536 1:1024:65536 1:4096:65536 1:32768:65536 1:131072:1024 1:131072:65536 1:1048576:65536 16:1024:4096 64:64:1024 \
  64:32768:1024 256:64:4096 512:100:2048 32:4096:8192 4096:64:1024 4096:256:256 4096:256:1024 4096:1024:512 65536:64:64; do S="$S --point $p"; done
X=""
for p in 4096:128:1024 2048:64:1024 1024:256:1024 4096:64:256 8192:64:512 1024:64:256 16384:64:256 4096:100:1024 1024:64:1024 \
  1024:128:2048 65536:64:512 65536:128:256 2048:32:512 4096:256:2048; do X="$X --point $p"; done
MEMCHECK_EXTRA='SumTreeSampler.LanesPerRow*' ROUNDS=3 bash scripts/device_ab.sh "$(cat $D/commit.txt)" $S $X --forced none
cp $D/bench_new $D/bench_gpu_rows
PYTHONUNBUFFERED=1 timeout 200 python3 bench/torch_rows_baselines.py $S > "$OUT/torch_s.jsonl" 2> "$OUT/torch_s.err"; echo "torch_s rc $?"
$D/bench_gpu_rows $S --forced none > "$OUT/bench_s.jsonl" 2>&1; echo "bench_s rc $?"
cd "$OUT" && tar czf logs.tgz * && ls | grep -v logs.tgz | xargs rm -f
