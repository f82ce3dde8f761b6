#!/usr/bin/env bash
# One device call for `warpsim validate` (issue 12's evidence); a summary and
# one archive of the logs under $OUT (at most 8 files come back).
# Expects, in .device-out/ (carried): warpsim (CUDA build), gpu_tests,
# libwarpsim_test_mutants_plugin.so, libwarpsim_test_cuda_fault_plugin.so,
# libmy_sampler.so (examples/plugin built with CUDA).
# SECTIONS (default: all) picks among
#   tests       GPU tests; compute-sanitizer on validate's device path
#   builtins    every built-in on the GPU; the seeded bugs' CUDA forms (--mutants --on gpu)
#   plugins     every CUDA mutant through the plugin path (exit 1 each, the correct one 0);
#               a plugin's CUDA fault (exit 2, the plugin's); the example's CUDA sampler
#   thirdparty  PyTorch's samplers and a wrong one, from files (bench/third_party_draws.py)
#   throughput  draws counted per second: from .npy and text files, from a plugin on the GPU
set -uo pipefail
final=${OUT:-/tmp/out}
out=/tmp/validate-logs
sections=${SECTIONS:-tests builtins plugins thirdparty throughput}
mkdir -p "$final" "$out"
trap 'tar czf "$final/validate-logs.tar.gz" -C /tmp validate-logs; cp "$out/summary.txt" "$final/"' EXIT
w=./.device-out/warpsim
ex=./.device-out/libmy_sampler.so
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee "$out/device.txt"
has() { [[ " $sections " == *" $1 "* ]]; }
timed() {  # name, then the command: exit code, milliseconds and verdict into summary.txt
  local name=$1; shift
  local t0=$(date +%s%N)
  "$@" > "$out/$name.out" 2> "$out/$name.err"
  local rc=$?
  local t1=$(date +%s%N)
  printf '%-44s exit %d  %8d ms  %s %s\n' "$name" "$rc" "$(( (t1 - t0) / 1000000 ))" "$(grep -o 'verdict: [A-Z]*' "$out/$name.out" | head -1)" \
    "$(grep -o '"verdict": "[a-z]*"' "$out/$name.out" | head -1)" | tee -a "$out/summary.txt"
  [[ $rc == 0 || $rc == 1 ]] || sed 's/^/    /' "$out/$name.err" | head -5 | tee -a "$out/summary.txt"
}
if has tests; then
  ./.device-out/gpu_tests --gtest_brief=1 > "$out/gpu_tests.log" 2>&1
  echo "gpu_tests: exit $? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' "$out/gpu_tests.log" | tr '\n' ' ')" | tee -a "$out/summary.txt"
  for tool in memcheck racecheck synccheck; do
    compute-sanitizer --tool $tool --error-exitcode 9 $w validate --plugin $ex --sampler inverse-cdf-cuda \
      --tests 10 --draws-per-law 100000 --progress never > "$out/sanitizer_$tool.log" 2>&1
    echo "compute-sanitizer $tool on validate (device plugin, histogram): exit $? $(grep -E 'SUMMARY' "$out/sanitizer_$tool.log" | tail -1)" | tee -a "$out/summary.txt"
  done
fi
if has builtins; then
  for a in baseline-linear baseline-binary transposed-memory transposed-registers butterfly-standard butterfly-addsub; do
    timed "builtin_$a" $w validate --builtin $a --counterexample none --progress never
  done
  timed mutants_gpu $w validate --mutants --on gpu --format json --progress never
  grep -o '"killed": [0-9]*,' "$out/mutants_gpu.out" | head -1 | tee -a "$out/summary.txt"
fi
if has plugins; then
  plugin=./.device-out/libwarpsim_test_mutants_plugin.so
  for s in $($w validate --plugin $plugin --list | awk '{print $1}' | grep '^cuda\.'); do
    timed "plugin_$s" $w validate --plugin $plugin --sampler $s --tests 60 --counterexample none --progress never
  done
  timed cuda_fault_plugin bash tests/plugins/cuda_fault_test.sh $w ./.device-out/libwarpsim_test_cuda_fault_plugin.so
  sed 's/^/    /' "$out/cuda_fault_plugin.out" | tee -a "$out/summary.txt"
  timed example_cuda $w validate --plugin $ex --sampler inverse-cdf-cuda --progress never
fi
data=/tmp/third_party
if has thirdparty; then
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
for c in law.get("categories", []):
    if c["rejected"]:
        print(f'      rejected category {c["index"]}: observed {c["observed"]:.0f}, expected {c["expected"]:.4g}, p raw {c["p_raw"]:.3g}, Holm {c["p_adjusted"]:.3g}')
PY
  done
  mkdir -p "$final/example_files"
  cp $data/multinomial_k1000/weights.npy "$final/example_files/weights.npy"
  python3 - $data/multinomial_k1000/draws.npy "$final/example_files/draws.npy" <<'PY'
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
fi
if has throughput; then
  # Files: 10^9 int64 draws (8 GB .npy) and 10^7 as text, K = 1,000, with the
  # peak memory (GNU time); then a plugin on the GPU, 10^10 draws a precision.
  python3 - /tmp/tp <<'PY'
import os, sys, torch
d = sys.argv[1]; os.makedirs(d, exist_ok=True)
w = torch.rand(1000, dtype=torch.float64) + 0.01
p = (w / w.sum()).cuda()
with open(f"{d}/w.txt", "w") as f: f.write("\n".join(repr(float(x)) for x in w) + "\n")
n = 10**9
header = "{'descr': '<i8', 'fortran_order': False, 'shape': (%d,), }" % n
header += " " * (64 - (10 + len(header) + 1) % 64) + "\n"
with open(f"{d}/d.npy", "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode())
    for first in range(0, n, 1 << 26):
        f.write(torch.multinomial(p, min(1 << 26, n - first), replacement=True).cpu().numpy().tobytes())
t = torch.multinomial(p, 10**7, replacement=True).cpu().tolist()
with open(f"{d}/d.txt", "w") as f: f.write("\n".join(map(str, t)) + "\n")
PY
  ls -la /tmp/tp | tee -a "$out/summary.txt"
  cat /tmp/tp/d.npy > /dev/null  # in the page cache, as a file just written is
  timed file_npy_1e9 /usr/bin/time -v $w validate --weights /tmp/tp/w.txt --draws /tmp/tp/d.npy --format json --progress never
  grep -E "Maximum resident|Elapsed" "$out/file_npy_1e9.err" | sed 's/^/    /' | tee -a "$out/summary.txt"
  timed file_text_1e7 /usr/bin/time -v $w validate --weights /tmp/tp/w.txt --draws /tmp/tp/d.txt --format json --progress never
  grep -E "Maximum resident|Elapsed" "$out/file_text_1e7.err" | sed 's/^/    /' | tee -a "$out/summary.txt"
  timed example_cuda_1e10 /usr/bin/time -v $w validate --plugin $ex --sampler inverse-cdf-cuda --tests 20 --draws-per-law 10000000000 --format json --progress never
  grep -E "Maximum resident|Elapsed" "$out/example_cuda_1e10.err" | sed 's/^/    /' | tee -a "$out/summary.txt"
  timed example_host_1e8 $w validate --plugin $ex --sampler inverse-cdf --tests 20 --draws-per-law 100000000 --format json --progress never
fi
