// A wrong S-draw sampler the tests feed the properties and validate with:
// a correct sampler's S draws a row changed in one place.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "properties/sampler.hpp"

namespace warpsim::test {

// `one` with its fp32 S draws of row r taken from draws 1 .. S of that row
// (skipping draw 0, the one draw's stream): in law, but not first_draw.
inline properties::Sampler skipping_the_one_draw(const properties::Sampler& one) {
  properties::Sampler s = one;
  s.name = "skips";
  s.rows32 = [one](const properties::Matrix<float>& m, std::uint64_t seed, int draws) {
    auto idx = one.draw_rows(m, seed, draws + 1);
    std::vector<int> out;
    for (int r = 0; r < m.rows; ++r) {
      const auto first = idx.begin() + static_cast<std::ptrdiff_t>(r) * (draws + 1) + 1;
      out.insert(out.end(), first, first + draws);
    }
    return out;
  };
  return s;
}

}  // namespace warpsim::test
