#!/usr/bin/env bash
# dff73c0 (base) against its working tree (new): load_vector's 16-byte
# loads as ld.global.nc.L2::256B (L2 fetches 256 bytes around each). All
# of gpu_tests, sanitizers, then three rounds of the A/B at the grid's
# M x K = 2^28 points and a few others.
P=""
for k in 4 16 32 64 128 256 512 1024 4096; do P="$P --point $((268435456 / k)):$k:1"; done
for p in 262144:1000:1 1048576:256:8 1024:131072:1 32:1048576:1 1:16777216:1 256:131072:64 1024:32768:16 4096:1024:512 1:131072:1 64:4096:1; do P="$P --point $p"; done
ROUNDS=3 bash scripts/device_ab.sh "dff73c0 + working tree (L2::256B loads)" $P --forced none
cd "$OUT" && tar czf logs.tgz * && ls | grep -v logs.tgz | xargs rm -f
