#!/usr/bin/env bash
# Lanes a row's one-draw kernel reading with __ldcs and storing with __stcs
# (new, working tree on 73209e2) against eb11e15 (base), at M x K = 2^28.
P="--point 67108864:4:1 --point 134217728:2:1 --point 1048576:256:1 --point 524288:512:1 --point 262144:1024:1 --point 262144:1000:1"
SANITIZE='SumTreeSampler.LanesPerRow*:SumTreeSampler.TinyTails*' TOOLS=memcheck ROUNDS=4 bash scripts/device_ab.sh "new: 73209e2 + lanes_pass streaming loads and stores; base: eb11e15" $P --forced none
cd "$OUT" && tar czf logs.tgz * && ls | grep -v logs.tgz | xargs rm -f
