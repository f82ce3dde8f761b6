#!/usr/bin/env bash
# One device call for docs/lda-sbc.md: the LDA chain's simulation-based
# calibration (properties/lda_sbc.hpp) over many seeds at once, each seed a
# process: on the host's cores (the oracle's definitions) and on the GPUs
# (the kernels, several processes a GPU). Expects .device-out/warpsim_lda_sbc.xz
# and .device-out/gpu_tests.xz (the CUDA build), carried.
#   HOST_SEEDS (default 1000) correct, HOST_FAULT_SEEDS (300) each fault;
#   GPU_SEEDS (48) correct, GPU_FAULT_SEEDS (16) each fault, GPU_REPLICATIONS
#   (200) a run; GPU_JOBS (2) processes at once (16 processes of R 1,000 on
#   one H200 finished no seed in 280 s: they starve each other); a count
#   of 0 skips;
#   BIG: warpsim_lda_sbc's options for a larger corpus, run on the GPU
#   (BIG_SEEDS seeds, 2, of each of BIG_FAULTS, all three) and on the
#   host's cores (BIG_HOST_SEEDS seeds, 0, correct only);
#   FIRST_SEED (1): the seeds are FIRST_SEED onwards (a later call goes on
#   where one cut short by its time limit stopped).
# summary.txt and the per-seed JSON lines under $OUT.
set -uo pipefail
final=${OUT:-/tmp/out}
out=/tmp/lda-sbc-logs
rm -rf "$out"; mkdir -p "$final" "$out"
# The summary goes to $OUT line by line, so a run cut short (a device
# call's time limit) keeps every line it finished; the logs' tarball is made
# on exit.
trap 'tar czf "$final/lda-sbc-logs.tar.gz" -C /tmp lda-sbc-logs' EXIT
d=./.device-out
for f in warpsim_lda_sbc gpu_tests; do
  # No binaries, no run: a summary of zero seeds would read as a pass.
  xz -dkf "$d/$f.xz" && chmod +x "$d/$f" || { echo "device_lda_sbc: $d/$f.xz missing (carry .device-out)" | tee "$final/summary.txt" >&2; exit 2; }
done
s=$d/warpsim_lda_sbc
gpus=$(nvidia-smi -L | wc -l)
{ date -u; nvidia-smi --query-gpu=index,name,driver_version --format=csv; nproc; } > "$out/device.txt" 2>&1
summary() { echo "$*" | tee -a "$out/summary.txt" "$final/summary.txt"; }
summary "$(head -1 "$out/device.txt"); $gpus GPUs, $(nproc) cores"
"$d/gpu_tests" --gtest_filter='GpuLdaSbc.*' > "$out/gpu_tests.log" 2>&1
summary "gpu_tests: $(grep -E '^\[  (PASSED|FAILED|SKIPPED)|FAILED  \]' "$out/gpu_tests.log" | tr '\n' ' ')"
# seeds 1..N of one fault on one side: one JSON line a seed in $out/NAME.jsonl
many() {  # name, on, fault, seeds, jobs, then extra options
  local name=$1 on=$2 fault=$3 n=$4 jobs=$5; shift 5
  local t0=$(date +%s)
  [[ $n == 0 ]] && return
  # a file a seed (processes writing one file at once can join two lines), then one file
  mkdir -p "$out/$name.d"
  seq "$first" $(( first + n - 1 )) | xargs -P "$jobs" -I{} bash -c 'g=$(( {} % '"$gpus"' )); CUDA_VISIBLE_DEVICES=$g '"$s"' --on '"$on"' --fault '"$fault"' --seed {} --format json '"$*"' | python3 -c "import json,sys; j=json.load(sys.stdin); j[\"seed\"]={}; print(json.dumps(j))" > '"$out/$name.d"'/{}.json' 2> "$out/$name.err"
  cat "$out/$name.d"/*.json > "$out/$name.jsonl" 2>/dev/null; rm -rf "$out/$name.d"
  python3 - "$out/$name.jsonl" "$name" "$(( $(date +%s) - t0 ))" <<'PY' | tee -a "$out/summary.txt" "$final/summary.txt"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
bad = sum(not r["ok"] for r in rows)
verdicts = {}
for r in rows:
    verdicts[r.get("verdict", "?")] = verdicts.get(r.get("verdict", "?"), 0) + 1
per = {}
for r in rows:
    for q in r["quantities"]:
        per[q["name"]] = per.get(q["name"], 0) + q["rejected"]
secs = sum(r["seconds"] for r in rows) / max(1, len(rows))
print(f"{sys.argv[2]}: rejected {bad} of {len(rows)} seeds ({bad / max(1, len(rows)):.4f}); verdicts {verdicts}; {secs:.2f} s a run, {sys.argv[3]} s wall; by quantity {per}")
PY
}
cores=$(nproc)
first=${FIRST_SEED:-1}
many host.none host none "${HOST_SEEDS:-1000}" "$cores"
many host.theta-count host theta-count "${HOST_FAULT_SEEDS:-300}" "$cores"
many host.stale-theta host stale-theta "${HOST_FAULT_SEEDS:-300}" "$cores"
gr="--replications ${GPU_REPLICATIONS:-200}"
many gpu.none gpu none "${GPU_SEEDS:-48}" "${GPU_JOBS:-2}" $gr
many gpu.theta-count gpu theta-count "${GPU_FAULT_SEEDS:-16}" "${GPU_JOBS:-2}" $gr
many gpu.stale-theta gpu stale-theta "${GPU_FAULT_SEEDS:-16}" "${GPU_JOBS:-2}" $gr
if [[ -n ${BIG:-} ]]; then
  many host.big.none host none "${BIG_HOST_SEEDS:-0}" "$cores" $BIG
  for f in ${BIG_FAULTS:-none theta-count stale-theta}; do
    many "gpu.big.$f" gpu "$f" "${BIG_SEEDS:-2}" "${GPU_JOBS:-2}" $BIG
  done
fi
