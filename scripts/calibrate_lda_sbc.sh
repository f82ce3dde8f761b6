#!/usr/bin/env bash
# The LDA chain's calibration (warpsim_lda_sbc, properties/lda_sbc.hpp) over
# the corpora users meet at small scale, the oracle's correct chain at its
# defaults (burn 100, thin 30, L 9, alpha 0.01): one token a document (one
# draw a row), two topics and two words, sparse priors (0.1: tiny topic and
# word probabilities), more topics than tokens a document, and ten
# documents of 20 tokens. SEEDS seeds a cell at R replications. One line a
# cell, "cell seeds calibrated not_calibrated inconclusive", to stdout.
#   SBC=build-rel/properties/warpsim_lda_sbc SEEDS=200 R=1000 JOBS=2 bash scripts/calibrate_lda_sbc.sh
set -euo pipefail
S=${SBC:-build-rel/properties/warpsim_lda_sbc}
[[ -x $S ]] || { echo "no warpsim_lda_sbc at $S (set SBC)" >&2; exit 2; }
n=${SEEDS:-200}
while read -r name opts; do
  # exit codes: 0 calibrated, 1 not calibrated, 3 inconclusive
  codes=$(seq 1 "$n" | xargs -P "${JOBS:-2}" -I{} sh -c "'$S' $opts --replications ${R:-1000} --seed {} > /dev/null 2>&1; echo \$?")
  echo "$name $n $(grep -cx 0 <<< "$codes") $(grep -cx 1 <<< "$codes") $(grep -cx 3 <<< "$codes")"
done <<'CELLS'
default --documents 4 --tokens 12 --topics 3 --vocabulary 8
one-token-a-document --documents 12 --tokens 1 --topics 3 --vocabulary 8
two-topics-two-words --documents 4 --tokens 12 --topics 2 --vocabulary 2
sparse-priors --documents 4 --tokens 12 --topics 3 --vocabulary 8 --alpha 0.1 --beta 0.1
more-topics-than-tokens --documents 4 --tokens 6 --topics 10 --vocabulary 20
ten-documents-of-20 --documents 10 --tokens 20 --topics 3 --vocabulary 8
CELLS
