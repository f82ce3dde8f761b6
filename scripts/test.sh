#!/usr/bin/env bash
# Builds warpsim with AddressSanitizer and UndefinedBehaviorSanitizer on the
# host code and runs every test. GPU tests skip, saying why, without a device.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${WARPSIM_TEST_BUILD:-build-test}
jobs=${WARPSIM_JOBS:-$(nproc)}

# Unity builds (CMAKE_UNITY_BUILD: a target's sources compiled 8 to a unit)
# emit each inline function and template a target uses once a unit, not
# once a source: most of what the sanitizer build compiled was the same
# RapidCheck, standard-library, warp-model and CLI11 code again. Every source
# must therefore compile beside its target's others: no two files of a
# target define the same name in an anonymous namespace.
unity=(-DCMAKE_UNITY_BUILD=${WARPSIM_UNITY:-ON})
# The Python package too (WARPSIM_PYTHON): its pytest runs under ASan, the
# runtime preloaded into Debian's python3 (python/CMakeLists.txt).
# Where nvcc exists the kernels compile once, as sm_90 machine code: the
# tests' GPUs are Hoppers (CI has none, and the GPU tests skip), and the
# release build's PTX for later chips (90-virtual) would double every
# kernel's compile for nothing the tests run.
cuda=(-DCMAKE_CUDA_ARCHITECTURES=${WARPSIM_TEST_CUDA_ARCHITECTURES:-90-real})
# The host code at -O1, as ASan's authors advise: most of the tests' time is
# spent in the libraries' code (the validate command's checks, the stats),
# which runs 2.4 times faster than at -O0 (the tests on 2 cores: 1,362 CPU
# seconds at -O0, 579 so). The tests' own sources stay at -O0: their code
# runs little, and -O1 doubled their compile. -g1: line tables for the
# sanitizers' reports.
opt=(-DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" -DWARPSIM_TEST_CXX_FLAGS=-O0)
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DWARPSIM_SANITIZE=ON -DWARPSIM_BENCHMARKS=OFF -DWARPSIM_PYTHON=ON "${unity[@]}" "${cuda[@]}" "${opt[@]}"
cmake --build "$build" -j "$jobs"
# protect_shadow_gap=0: the CUDA runtime maps memory where ASan keeps its gap.
export ASAN_OPTIONS=${ASAN_OPTIONS:-protect_shadow_gap=0:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# A fresh clone has no cost data, so CTest would start the longest tests
# (gtest's, which carry no COST) wherever they fall and end with one alone:
# tests/ctest_costs.txt holds a run's seconds of this build on 2 cores (the
# 61 longest), copied where CTest keeps its own, so that -j starts them first.
# Later runs in the same build keep CTest's measured data.
costs="$build/Testing/Temporary/CTestCostData.txt"
[[ -f $costs ]] || { mkdir -p "$(dirname "$costs")" && cp tests/ctest_costs.txt "$costs"; }
ctest --test-dir "$build" --output-on-failure -j "$jobs"

# A short, seeded fuzzing session of every fuzz target (fuzz/CMakeLists.txt):
# clang with libFuzzer, ASan and UBSan, a fixed number of executions each.
if command -v clang++ >/dev/null && [[ -n "$(clang++ -print-file-name=libclang_rt.fuzzer-x86_64.a | grep /)" ]]; then
  # -O1 and line tables only: a seeded session of fixed length runs 5% longer
  # than at -O2 -g, and the build is a sixth shorter.
  CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWARPSIM_FUZZ=ON \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
    -DWARPSIM_TESTS=OFF -DWARPSIM_BENCHMARKS=OFF -DWARPSIM_CUDA=OFF "${unity[@]}"
  cmake --build build-fuzz -j "$jobs" --target warpsim_fuzz_targets  # (the fuzz targets alone)
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 ctest --test-dir build-fuzz --output-on-failure -j "$jobs"
else
  echo "test.sh: clang with libFuzzer not found (apt-get install clang libclang-rt-14-dev): fuzzing session skipped"
fi
