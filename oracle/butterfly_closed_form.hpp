// Seed 000, Sec. 3: "The entry in row i and column j contains the value X_y^w
// where m = i XOR (i + 1), k = floor(m / 2), l = (i & ~m) + (j & m),
// X = "ABCDEFGHIJKLMN"[l], y = j & ~k, and w = y + k."
//
// Run against the simulated tables (tests/unit/butterfly_table_test.cpp), the
// formula as printed describes the add-subtract table (Fig. 8), not the
// standard one (Fig. 4) that it follows in the text; with y = j & ~m it
// describes the standard table. Its 14-letter alphabet names only 14 of the
// 16 lanes of the figures. docs/errata.md, E4.
#pragma once

#include <string_view>

#include "sim/symbolic.hpp"

namespace warpsim::oracle {

// The alphabet as printed: too short for W = 16.
inline constexpr std::string_view kPrintedLaneLetters = "ABCDEFGHIJKLMN";

struct ClosedFormEntry {
  int owner;  // l: the lane whose array the entry sums
  int first;  // y
  int last;   // w
  sim::Sym value() const { return sim::Sym::range(owner, first, last); }
};

// The formula as printed (owner not limited to the printed alphabet).
constexpr ClosedFormEntry closed_form_as_printed(int i, int j) {
  const int m = i ^ (i + 1);
  const int k = m / 2;
  const int l = (i & ~m) + (j & m);
  const int y = j & ~k;
  return {l, y, y + k};
}

// With y = j & ~m: the standard variant's table.
constexpr ClosedFormEntry closed_form_standard(int i, int j) {
  const int m = i ^ (i + 1);
  const int k = m / 2;
  const int l = (i & ~m) + (j & m);
  const int y = j & ~m;
  return {l, y, y + k};
}

}  // namespace warpsim::oracle
