#!/usr/bin/env bash
# One device call: third-party samplers judged from files by `warpsim
# validate` (docs/validate.md, "Third-party samplers"), the reproducers of
# correct samplers once called broken, and the built-ins on the GPU.
# Expects, in .device-out/ (carried): warpsim (any build: it judges files)
# and, for the built-ins on the GPU, warpsim-gpu (a CUDA build).
#   bash scripts/device_thirdparty.sh [DRAWS]   (the power law's draws, default 1e8)
set -uo pipefail
n=${1:-1e8}
final=${OUT:-/tmp/out}
logs=/tmp/thirdparty-logs
data=/tmp/third_party
mkdir -p "$final" "$logs" "$data"
trap 'tar czf "$final/thirdparty-logs.tar.gz" -C /tmp thirdparty-logs; cp "$logs/summary.md" "$final/" 2>/dev/null' EXIT
w=./.device-out/warpsim
wg=./.device-out/warpsim-gpu
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; date -u; git log -1 --format='%h %s' 2>/dev/null; } | tee "$logs/device.txt"

echo "== draws"
PYTHONUNBUFFERED=1 python3 bench/third_party_draws.py "$data" "$n" 2>&1 | tee "$logs/draws.jsonl"
PYTHONUNBUFFERED=1 python3 bench/third_party_draws.py "$data" "$n" --jax 2>&1 | tee -a "$logs/draws.jsonl"

echo "== judged"
for d in "$data"/*/; do
  c=$(basename "$d")
  t0=$(date +%s%N)
  "$w" validate --weights "$d/weights.npy" --draws "$d/draws.npy" --format json --progress never > "$logs/$c.json" 2> "$logs/$c.err"
  rc=$?
  printf '%-44s exit %d  %8d ms\n' "$c" "$rc" "$(( ($(date +%s%N) - t0) / 1000000 ))" | tee -a "$logs/judged.txt"
done
{
  echo "# Third-party samplers judged from files"
  echo
  cat "$logs/device.txt" | sed 's/^/    /'
  echo
  python3 scripts/thirdparty_summary.py "$logs"
} > "$logs/summary.md"

echo "== the reproducers: numpy's Generator.choice, 20 seeds each"
python3 - "$w" <<'PY' 2>&1 | tee -a "$logs/summary.md"
import subprocess, sys, numpy as np, os
w = sys.argv[1]
os.makedirs("/tmp/repro", exist_ok=True)
for label, weights, n in [("100 equal weights, 2,000 draws", np.ones(100), 2000), ("1,000 equal weights, 20,000 draws", np.ones(1000), 20000),
                          ("{0.001, 1}, 10^4 draws", np.array([0.001, 1.0]), 10**4), ("{0.001, 1}, 10^5 draws", np.array([0.001, 1.0]), 10**5),
                          ("{1e-6, 1}, 10^7 draws", np.array([1e-6, 1.0]), 10**7)]:
    np.save("/tmp/repro/w.npy", weights)
    bad = 0
    for seed in range(1, 21):
        d = np.random.default_rng(seed).choice(len(weights), n, p=weights / weights.sum()).astype(np.int32)
        np.save("/tmp/repro/d.npy", d)
        bad += subprocess.run([w, "validate", "--weights", "/tmp/repro/w.npy", "--draws", "/tmp/repro/d.npy", "--progress", "never"], capture_output=True).returncode != 0
    print(f"- {label}: {bad} of 20 seeds INCONSISTENT")
PY

if [[ -x $wg ]]; then
  echo "== built-ins on the GPU, default seed"
  for a in $($wg validate --list | awk '{print $1}'); do
    $wg validate --builtin "$a" --counterexample none --progress never > "$logs/builtin_$a.txt" 2>&1
    echo "- $a: exit $? $(grep -o 'verdict: [A-Z]*' "$logs/builtin_$a.txt") ($(grep -o 'on the [A-Za-z ()]*' "$logs/builtin_$a.txt" | head -1))" | tee -a "$logs/summary.md"
  done
fi
