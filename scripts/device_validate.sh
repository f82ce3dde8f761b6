#!/usr/bin/env bash
# One device call for `warpsim validate` (issue 12's evidence); logs under $OUT.
# Expects, in .device-out/ (carried): warpsim (CUDA build),
# libwarpsim_test_mutants_plugin.so, libmy_sampler.so (examples/plugin with CUDA).
#   1. every built-in on the GPU, and the seeded bugs' CUDA forms (--mutants --on gpu)
#   2. every CUDA mutant through the plugin path (exit 1 each; the correct one exit 0)
#   3. the example plugin's CUDA sampler, and 10^9 draws counted on the GPU (throughput)
#   4. third-party samplers from files (bench/third_party_draws.py): PyTorch's, and a wrong one
set -uo pipefail
out=${OUT:-/tmp/out}
mkdir -p "$out"
w=./.device-out/warpsim
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee "$out/device.txt"
export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}
timed() {  # name, then the command: exit code and seconds into summary.txt
  local name=$1; shift
  local t0=$(date +%s.%N)
  "$@" > "$out/$name.out" 2> "$out/$name.err"
  local rc=$?
  local t1=$(date +%s.%N)
  printf '%-44s exit %d  %8.2f s  %s\n' "$name" "$rc" "$(echo "$t1 - $t0" | bc)" "$(grep -o 'verdict: [A-Z]*' "$out/$name.out" | head -1)" | tee -a "$out/summary.txt"
}
for a in baseline-linear baseline-binary transposed-memory transposed-registers butterfly-standard butterfly-addsub; do
  timed "builtin_$a" $w validate --builtin $a --counterexample none --progress never
done
timed mutants_gpu $w validate --mutants --on gpu --format json --progress never
grep -o '"killed": [0-9]*, "total": [0-9]*' "$out/mutants_gpu.out" | head -1 | tee -a "$out/summary.txt"
plugin=./.device-out/libwarpsim_test_mutants_plugin.so
for s in $($w validate --plugin $plugin --list | awk '{print $1}' | grep '^cuda\.'); do
  timed "plugin_$s" $w validate --plugin $plugin --sampler $s --tests 60 --counterexample none --progress never
done
ex=./.device-out/libmy_sampler.so
timed example_cuda $w validate --plugin $ex --sampler inverse-cdf-cuda --progress never
timed example_cuda_1e9 $w validate --plugin $ex --sampler inverse-cdf-cuda --tests 20 --draws-per-law 1000000000 --format json --progress never
timed example_host_1e8 $w validate --plugin $ex --sampler inverse-cdf --tests 20 --draws-per-law 100000000 --format json --progress never
data=/tmp/third_party
python3 bench/third_party_draws.py $data 1e8 2>&1 | tee "$out/third_party_draws.jsonl"
for d in $data/*/; do
  c=$(basename $d)
  timed "file_$c" $w validate --weights $d/weights.npy --draws $d/draws.npy --format json --progress never
  python3 - "$out/file_$c.out" <<'PY' | tee -a "$out/summary.txt"
import json, sys
r = json.load(open(sys.argv[1]))
law = r["laws"][0] if r["laws"] else {}
tv = [c["test"]["detectable_bias"]["total_variation"] for c in r["checks"] if c["name"] == "chi_square"]
p = [c["test"]["p_value"] for c in r["checks"] if "test" in c]
print(f'    {r["verdict"]}: {law.get("draws")} draws, p-values {", ".join(f"{x:.3g}" for x in p)}, TV ruled out {tv[0] if tv else None}')
PY
done
mkdir -p "$out/example_files"
cp $data/multinomial_k1000/weights.npy "$out/example_files/weights.npy" 2>/dev/null
python3 - $data/multinomial_k1000/draws.npy "$out/example_files/draws.npy" <<'PY'
import struct, sys
src, dst = sys.argv[1], sys.argv[2]
raw = open(src, "rb").read()
hl = struct.unpack("<H", raw[8:10])[0]
body = raw[10 + hl:]
n = 50000
vals = struct.unpack("<%dq" % n, body[:8 * n])
header = "{'descr': '<i4', 'fortran_order': False, 'shape': (%d,), }" % n
header += " " * (64 - (10 + len(header) + 1) % 64) + "\n"
open(dst, "wb").write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + struct.pack("<%di" % n, *vals))
PY
ls -la "$out/example_files"
