#!/usr/bin/env bash
# The false-positive rate and the power of the LDA chain's simulation-based
# calibration (properties/lda_sbc.hpp, docs/lda-sbc.md): warpsim_lda_sbc over
# seeds 1..N, correct and with each seeded fault; JSON lines on stdout.
#   bash scripts/lda_sbc.sh BUILD_DIR [SEEDS_CORRECT] [SEEDS_FAULT] [extra warpsim_lda_sbc options]
set -euo pipefail
b=${1:?build directory}
correct=${2:-300}
faulty=${3:-100}
shift $(( $# < 3 ? $# : 3 ))
for f in none theta-count stale-theta; do
  n=$faulty
  [[ $f == none ]] && n=$correct
  "$b/properties/warpsim_lda_sbc" --fault "$f" --seeds "$n" --format json "$@" | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)))'
done
