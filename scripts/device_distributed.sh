#!/usr/bin/env bash
# One device call for docs/distributed.md: mpirun on one H200.
# Expects, in .device-out/ (carried): warpsim.xz (the CUDA build with MPI) and
# ompi.tar.xz (Debian 12's OpenMPI 4.1 runtime and the libraries it loads:
# the device has no MPI; unpacked into / only where no file exists).
# SECTIONS (default: all) picks among
#   ranks    validate --builtin alias-psa and sum-tree on the GPU, one process
#            without mpirun and 1, 2, 4 ranks sharing the GPU: the reports
#            compared but for their time fields, and the seconds each took
#   sharded  alias sharded: ITEMS generated items (default 2^24), DRAWS draws
#            (default 2^28), over RANKS CPU ranks (default "1 4 16": the host
#            build of each shard), generation, build and sampling seconds
# summary.txt and one archive of the logs under $OUT.
set -uo pipefail
final=${OUT:-/tmp/out}
out=/tmp/distributed-logs
sections=${SECTIONS:-ranks sharded}
mkdir -p "$final" "$out"
trap 'tar czf "$final/distributed-logs.tar.gz" -C /tmp distributed-logs; cp "$out/summary.txt" "$final/"' EXIT
has() { [[ " $sections " == *" $1 "* ]]; }
d=./.device-out
xz -dkf "$d/warpsim.xz" && chmod +x "$d/warpsim"
w=$d/warpsim
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; nproc; git rev-parse --short HEAD 2>/dev/null; } > "$out/device.txt" 2>&1
if ! command -v orterun > /dev/null; then
  tar --skip-old-files -xJf "$d/ompi.tar.xz" -C / 2> "$out/ompi_unpack.err"
  ldconfig 2>/dev/null
fi
mpi=(orterun --allow-run-as-root --oversubscribe --bind-to none --mca btl self,vader --mca pml ob1)
"${mpi[@]}" --version > "$out/mpi_version.txt" 2>&1
"${mpi[@]}" -np 2 "$w" --version >> "$out/mpi_version.txt" 2>&1
summary() { echo "$*" | tee -a "$out/summary.txt"; }
timed() {  # name, then the command
  local name=$1; shift
  local t0=$(date +%s%N)
  "$@" > "$out/$name.json" 2> "$out/$name.err"
  local rc=$?
  summary "$(printf '%-28s exit %d  %9d ms' "$name" "$rc" "$(( ($(date +%s%N) - t0) / 1000000 ))")"
}

if has ranks; then
  for b in alias-psa sum-tree; do
    n=4000000000
    [[ $b == sum-tree ]] && n=100000000  # (a draw a row: rows copied on the host, 2.7 x 10^7 draws/s)
    args=(validate --builtin "$b" --on gpu --draws-per-law "$n" --tests 10 --format json --counterexample none --progress never)
    timed "$b.one" "$w" "${args[@]}"
    for r in 1 2 4; do timed "$b.np$r" "${mpi[@]}" -np "$r" "$w" "${args[@]}"; done
    for r in 1 2 4; do
      python3 - "$out/$b.one.json" "$out/$b.np$r.json" "$b" "$r" <<'PY' | tee -a "$out/summary.txt"
import json, sys
def load(f):
    j = json.load(open(f)); t = (j.pop("seconds"), j.pop("processes")); return j, t
a, ta = load(sys.argv[1]); b, tb = load(sys.argv[2])
draws = sum(l["draws"] for l in a["laws"])
print(f"{sys.argv[3]} -np {sys.argv[4]}: report {'IDENTICAL' if a == b else 'DIFFERS'} to one process's; "
      f"{draws} draws; {tb[0]:.2f} s ({ta[0]:.2f} s alone), verdict {b['verdict']}")
PY
    done
  done
fi

if has sharded; then
  for r in ${RANKS:-1 4 16}; do
    timed "sharded.np$r" "${mpi[@]}" -np "$r" "$w" alias sharded --generate "${ITEMS:-16777216}" --draws "${DRAWS:-268435456}" --seed 1 --format json
    python3 -c "
import json, sys
j = json.load(open(sys.argv[1]))
b = max(x['build_seconds'] for x in j['ranks']); s = max(x['sample_seconds'] for x in j['ranks']); g = max(x['read_seconds'] for x in j['ranks'])
print(f'sharded -np {sys.argv[2]}: {j[\"items\"]} items, U {j[\"total_units\"]}, unit 2^{j[\"unit_exponent\"]}; generate {g:.2f} s, build {b:.2f} s, sample {s:.2f} s, whole {j[\"seconds\"]:.2f} s; law {j[\"law\"][\"verdict\"]} (pearson p {j[\"law\"][\"pearson_p\"]:.3g}, G p {j[\"law\"][\"g_p\"]:.3g})')
" "$out/sharded.np$r.json" "$r" 2>&1 | tee -a "$out/summary.txt"
  done
fi
