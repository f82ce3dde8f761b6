#!/usr/bin/env bash
# One device call for docs/multigpu.md (issue "The multi-GPU run"): mpirun
# with one rank a GPU on one host of G GPUs.
# Expects, in .device-out/ (carried): warpsim.xz (the CUDA build with MPI),
# gpu_tests.xz, and ompi.tar.xz (Debian 12's OpenMPI 4.1 runtime, unpacked
# only where the device has no orterun).
# SECTIONS (default: all) picks among
#   tests     the GPU tests of the sharded table's parts and validate's device tally
#   validate  validate --builtin alias-psa and sum-tree --on gpu, DRAWS a law
#             (default 10^9), on G = 1 .. GPUS ranks: reports compared but for
#             their time fields, draws a second per GPU and in all
#   sharded   alias sharded --on gpu: ITEMS_SMALL items (default 2^31) on
#             G = 1 .. GPUS ranks (the same unit, masses and law for every
#             G), then ITEMS_BIG (default 0: skipped) on one GPU (refused)
#             and on all; SHARDED_DRAWS draws (BIG_DRAWS for the big one)
# DRAWS (SUM_TREE_DRAWS for sum-tree), TEST_FILTER and the *LIMIT seconds
# size the call.
# summary.txt and one archive of the logs under $OUT.
set -uo pipefail
final=${OUT:-/tmp/out}
out=/tmp/multigpu-logs
sections=${SECTIONS:-tests validate sharded}
gpus=$(nvidia-smi -L | wc -l)
mkdir -p "$final" "$out"
trap 'tar czf "$final/multigpu-logs.tar.gz" -C /tmp multigpu-logs; cp "$out/summary.txt" "$final/"' EXIT
has() { [[ " $sections " == *" $1 "* ]]; }
d=./.device-out
for f in warpsim gpu_tests; do xz -dkf "$d/$f.xz" && chmod +x "$d/$f"; done
w=$d/warpsim
{ date -u; nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv; nproc; git rev-parse --short HEAD 2>/dev/null; } > "$out/device.txt" 2>&1
if ! command -v orterun > /dev/null; then
  tar --skip-old-files -xJf "$d/ompi.tar.xz" -C / 2> "$out/ompi_unpack.err"
  ldconfig 2>/dev/null
fi
export NCCL_NVLS_ENABLE=0  # (no NCCL here; kept set as the device's rules ask)
mpi=(orterun --allow-run-as-root --oversubscribe --bind-to none --mca btl self,vader --mca pml ob1 -x NCCL_NVLS_ENABLE)
"${mpi[@]}" --version > "$out/mpi_version.txt" 2>&1
summary() { echo "$*" | tee -a "$out/summary.txt"; }
timed() {  # name, limit in seconds, then the command
  local name=$1 limit=$2; shift 2
  local t0=$(date +%s%N)
  timeout "$limit" "$@" > "$out/$name.json" 2> "$out/$name.err"
  local rc=$?
  summary "$(printf '%-28s exit %d  %9d ms' "$name" "$rc" "$(( ($(date +%s%N) - t0) / 1000000 ))")"
}
summary "$(head -1 "$out/device.txt"); $gpus GPUs"

if has tests; then
  "$d/gpu_tests" --gtest_filter="${TEST_FILTER:-GpuShardedAlias.*:GpuValidateTally.*:GpuAlias.*:Registry/GpuTableEntry.*:Registry/GpuEntry.*}" > "$out/gpu_tests.log" 2>&1
  summary "gpu_tests: $(grep -E '^\[  (PASSED|FAILED|SKIPPED)|FAILED  \]' "$out/gpu_tests.log" | tr '\n' ' ')"
  # The law counted on the device: the same report as the oracle's, whose
  # draws are the same (alias-psa's GPU table and draws equal the oracle's).
  for on in oracle gpu; do
    timed "alias-psa.$on" 120 "$w" validate --builtin alias-psa --on "$on" --draws-per-law 10000000 --tests 10 --format json --counterexample none --progress never
  done
  python3 - "$out/alias-psa.oracle.json" "$out/alias-psa.gpu.json" <<'PY' | tee -a "$out/summary.txt"
import json, sys
def load(f):
    j = json.load(open(f))
    for k in ("seconds", "subject"): j.pop(k, None)
    return j
a, b = load(sys.argv[1]), load(sys.argv[2])
print("alias-psa law counted on the GPU vs the oracle's on the host: report " + ("IDENTICAL" if a["laws"] == b["laws"] and a["checks"][-8:] == b["checks"][-8:] else "DIFFERS"))
PY
fi

if has validate; then
  for b in alias-psa sum-tree; do
    n=${DRAWS:-1000000000}
    [[ $b == sum-tree ]] && n=${SUM_TREE_DRAWS:-$n}
    args=(validate --builtin "$b" --on gpu --draws-per-law "$n" --tests 10 --format json --counterexample none --progress never)
    for g in $(seq 1 "$gpus"); do timed "$b.g$g" "${VLIMIT:-250}" "${mpi[@]}" -np "$g" "$w" "${args[@]}"; done
    for g in $(seq 1 "$gpus"); do
      python3 - "$out/$b.g1.json" "$out/$b.g$g.json" "$b" "$g" <<'PY' | tee -a "$out/summary.txt"
import json, sys
def load(f):
    j = json.load(open(f)); t = (j.pop("seconds"), j.pop("processes")); return j, t
try:
    a, ta = load(sys.argv[1]); b, tb = load(sys.argv[2])
except Exception as e:
    print(f"{sys.argv[3]} G {sys.argv[4]}: no report ({e})"); sys.exit()
draws = sum(l["draws"] for l in b["laws"])
g = int(sys.argv[4])
print(f"{sys.argv[3]} G {g}: report {'IDENTICAL' if a == b else 'DIFFERS'} to G 1's; {draws} draws in {tb[0]:.2f} s: "
      f"{draws / tb[0]:.3e} draws/s, {draws / tb[0] / g:.3e} a GPU; efficiency {ta[0] / tb[0] / g:.2f}; verdict {b['verdict']}")
PY
    done
  done
fi

if has sharded; then
  sd=${SHARDED_DRAWS:-4294967296}
  sharded_line() {
    python3 - "$@" <<'PY' | tee -a "$out/summary.txt"
import json, sys
try:
    j = json.load(open(sys.argv[1]))
except Exception as e:
    print(f"{sys.argv[2]}: no report ({e})"); sys.exit()
r = j["ranks"]; law = j.get("law", {})
print(f"{sys.argv[2]}: {j['items']} items, {j['shards']} shards of {j['shard_items']}, U {j['total_units']}, unit 2^{j['unit_exponent']}; "
      f"build {max(x['build_seconds'] for x in r):.2f} s (generation {max(x['generate_seconds'] for x in r):.2f}), "
      f"sample {max(x['sample_seconds'] for x in r):.2f} s ({j['draws'] / max(1e-9, max(x['sample_seconds'] for x in r)):.3e} draws/s), whole {j['seconds']:.2f} s; "
      f"rows a GPU {[x['rows_bytes'] for x in r]}, peak {[x['peak_device_bytes'] for x in r]}; "
      f"law {law.get('verdict')} (bins {law.get('bins')}, pearson p {law.get('pearson_p', float('nan')):.3g}, G p {law.get('g_p', float('nan')):.3g}, rejected {law.get('binomial_rejected')})")
PY
  }
  small=${ITEMS_SMALL:-2147483648}
  for g in $(seq 1 "$gpus"); do
    timed "sharded.small.g$g" "${SLIMIT:-200}" "${mpi[@]}" -np "$g" "$w" alias sharded --on gpu --generate "$small" --draws "$sd" --seed 1 --format json
    sharded_line "$out/sharded.small.g$g.json" "sharded G $g"
  done
  python3 - "$out" "$gpus" <<'PY' | tee -a "$out/summary.txt"
import json, sys
def law(f):
    j = json.load(open(f)); return (j["unit_exponent"], j["total_units"], j["draws"], j["law"])
try:
    a = law(f"{sys.argv[1]}/sharded.small.g1.json")
    for g in range(2, int(sys.argv[2]) + 1):
        print(f"sharded G {g}: unit, U, draws and law {'IDENTICAL' if law(f'{sys.argv[1]}/sharded.small.g{g}.json') == a else 'DIFFER'} to G 1's")
except Exception as e:
    print(f"sharded comparison: {e}")
PY
  big=${ITEMS_BIG:-0}
  if [[ $big != 0 ]]; then
    # Too large for one GPU: refused there (exit 2, naming what does not fit), built over all of them.
    timed "sharded.big.g1" "${BLIMIT:-300}" "$w" alias sharded --on gpu --generate "$big" --draws "${BIG_DRAWS:-$sd}" --seed 2 --format json
    summary "sharded big G 1: $(tail -c 300 "$out/sharded.big.g1.err")"
    timed "sharded.big.g$gpus" "${BLIMIT:-300}" "${mpi[@]}" -np "$gpus" "$w" alias sharded --on gpu --generate "$big" --draws "${BIG_DRAWS:-$sd}" --seed 2 --format json
    sharded_line "$out/sharded.big.g$gpus.json" "sharded big G $gpus"
  fi
fi
