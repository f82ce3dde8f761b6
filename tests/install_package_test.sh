#!/usr/bin/env bash
# warpsim as a user gets it: `cmake --install`, then the example plugin
# (examples/plugin) built against find_package(warpsim) and validated, and a
# consumer linking warpsim::sim, warpsim::stats and warpsim::properties.
# Usage: install_package_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
# The example is built without the tree's sanitizers, as a user builds it.
cmake -S "$src/examples/plugin" -B "$work/plugin" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release > "$work/configure.log" \
  || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/plugin" -j 2 > "$work/build.log" || { cat "$work/build.log"; exit 1; }
plugin=$(ls "$work"/plugin/libmy_sampler.so)
"$work/prefix/bin/warpsim" validate --plugin "$plugin" --list
"$work/prefix/bin/warpsim" validate --plugin "$plugin" --sampler inverse-cdf --tests 50 --counterexample none | tail -1
# A consumer of the libraries.
mkdir -p "$work/consumer"
cat > "$work/consumer/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(consumer LANGUAGES CXX)
set(CMAKE_CXX_STANDARD 20)
find_package(warpsim REQUIRED)
add_executable(consumer main.cpp)
target_link_libraries(consumer PRIVATE warpsim::sim warpsim::stats warpsim::properties)
CMAKE
cat > "$work/consumer/main.cpp" <<'CPP'
#include <iostream>
#include "properties/properties.hpp"
#include "sim/warp.hpp"
#include "stats/stats.hpp"
int main() {
  using namespace warpsim;
  sim::Warp warp({.width = 8});
  const auto& a = properties::find_algorithm("baseline-linear");
  const auto report = properties::check_sampler(a.oracle, {.tests = 10});
  const double counts[] = {10, 20, 30, 40}, p[] = {0.1, 0.2, 0.3, 0.4};
  const auto r = stats::chi_square_test(counts, p);
  std::cout << "consumer: " << warp.width() << " lanes, " << a.name << (report.ok ? " passes" : " FAILS") << ", chi-square p = " << r.p_value << "\n";
  return report.ok ? 0 : 1;
}
CPP
# A sanitizer build installs sanitized libraries: their users link the runtime.
flags=()
if grep -q "^WARPSIM_SANITIZE:BOOL=ON" "$build/CMakeCache.txt"; then
  flags=(-DCMAKE_CXX_FLAGS=-fsanitize=address,undefined -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined)
fi
cmake -S "$work/consumer" -B "$work/consumer/build" -DCMAKE_PREFIX_PATH="$work/prefix" "${flags[@]}" > "$work/consumer.log" || { cat "$work/consumer.log"; exit 1; }
cmake --build "$work/consumer/build" -j 2 > "$work/consumer-build.log" || { cat "$work/consumer-build.log"; exit 1; }
"$work/consumer/build/consumer"
