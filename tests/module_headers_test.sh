#!/usr/bin/env bash
# Every module header lists exactly what its folder offers (Eigen/Cholesky's
# rule): each header of sim/, oracle/, gpu/, properties/ and stats/ is
# #included by the folder's module header (sim/sim.hpp, ...), or named there
# on a line "//   not included: <path> (<why>)". A folder's detail/ headers
# are its internals and are not listed. Run from the repository root:
#   bash tests/module_headers_test.sh
set -uo pipefail
cd "${1:-.}"
status=0
for m in sim oracle gpu properties stats; do
  module="$m/$m.hpp"
  [[ -f $module ]] || { echo "$module: missing"; status=1; continue; }
  while IFS= read -r h; do
    [[ $h == "$module" ]] && continue
    if grep -q "^#include \"$h\"" "$module"; then continue; fi
    if grep -qE "^//[[:space:]]+not included: $h \(.+\)" "$module"; then continue; fi
    echo "$module: neither includes $h nor says why not (a line '//   not included: $h (why)')"
    status=1
  done < <(find "$m" \( -name '*.hpp' -o -name '*.cuh' \) -not -path "$m/detail/*" | sort)
  # and names nothing that is not there
  while IFS= read -r h; do
    [[ -f $h ]] || { echo "$module: includes or names $h, which does not exist"; status=1; }
  done < <({ grep -oE '^#include "[^"]+"' "$module" | sed 's/^#include "//; s/"$//'
             grep -oE '^//[[:space:]]+not included: [^ ]+' "$module" | sed 's/.*not included: //'; } | grep "^$m/")
done
[[ $status == 0 ]] && echo "module headers: every header of every module is included or its exclusion explained"
exit $status
