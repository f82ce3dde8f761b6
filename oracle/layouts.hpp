// The register layouts of seed 000, Fig. 1, with symbolic values: register r
// of lane c holds element r of lane c's array in the normal layout (a), and
// element c of lane r's array in the transposed layout (b), which is what W
// coalesced loads leave behind.
#pragma once

#include "sim/reg.hpp"
#include "sim/symbolic.hpp"

namespace warpsim::oracle {

inline sim::RegArray<sim::Sym> normal_layout(int width, const char* name = "a") {
  sim::RegArray<sim::Sym> a(name, width);
  for (int r = 0; r < width; ++r)
    for (int c = 0; c < width; ++c) a[r][c] = sim::Sym::element(c, r);
  return a;
}

inline sim::RegArray<sim::Sym> transposed_layout(int width, const char* name = "a") {
  sim::RegArray<sim::Sym> a(name, width);
  for (int r = 0; r < width; ++r)
    for (int c = 0; c < width; ++c) a[r][c] = sim::Sym::element(r, c);
  return a;
}

}  // namespace warpsim::oracle
