#!/usr/bin/env bash
# Builds the thesis's code (ByteHamster/alias-table-gpu, carried as $1) with
# driver.cu for sm_90 into $2 (default: a temporary folder) and runs it,
# printing its JSON lines; BUILD_ONLY=1 builds only. JOBS: parallel compiles. Its own main.cu
# and CMakeLists (which pin gcc-7) are not used: every other .cu file is
# compiled with nvcc -O3 -rdc=true, the CUB 3 shims first on the include path.
set -uo pipefail
src=${1:?the thesis sources}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
bin=${2:-$work/thesis_bench}
files=$(cd "$src" && find construction sampling utils -name '*.cu' | sort)
flags="-std=c++17 -O3 -DNDEBUG -arch=sm_90 -rdc=true -I$here/compat -I$src -w"
echo "$files" | xargs -P ${JOBS:-16} -I{} sh -c "nvcc $flags -c '$src/{}' -o '$work/\$(echo {} | tr / _).o' || echo 'FAILED {}'"
nvcc $flags -c "$here/driver.cu" -o "$work/driver.o" || { echo "driver: compile failed"; exit 1; }
nvcc -arch=sm_90 -rdc=true "$work"/*.o -o "$bin" -lcurand || { echo "link failed"; exit 1; }
[[ ${BUILD_ONLY:-0} == 1 ]] && { echo "built $bin"; exit 0; }
"$bin"
