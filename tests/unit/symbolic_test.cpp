#include <gtest/gtest.h>

#include "sim/symbolic.hpp"
#include "sim/value_format.hpp"

using warpsim::sim::Sym;
using warpsim::sim::SymStyle;

TEST(Symbolic, PrintsRangesInSeed002Notation) {
  Sym s = Sym::element(2, 4) + Sym::element(2, 5) + Sym::element(2, 6) + Sym::element(2, 7);
  EXPECT_EQ(s.to_string(), "C4:7");
  EXPECT_EQ(s, Sym::range(2, 4, 7));
  EXPECT_EQ(Sym::element(0, 3).to_string(), "A3");
  EXPECT_EQ(Sym::element(0, 3).to_string(SymStyle::Range), "A3:3");
  EXPECT_EQ(Sym::range(15, 0, 15).to_string(), "P0:15");
}

TEST(Symbolic, SumsOfSeveralOwnersAndGaps) {
  Sym s = Sym::range(1, 0, 1) + Sym::element(0, 5) + Sym::element(1, 3);
  EXPECT_EQ(s.to_string(), "A5 + B0:1 + B3");
}

TEST(Symbolic, SubtractionCancelsAndCoefficientsShow) {
  Sym s = Sym::range(3, 0, 3) - Sym::range(3, 0, 1);
  EXPECT_EQ(s, Sym::range(3, 2, 3));
  EXPECT_TRUE((s - s).is_zero());
  EXPECT_EQ((s - s).to_string(), "0");
  EXPECT_EQ((Sym::element(0, 0) + Sym::element(0, 0)).to_string(), "2*A0");
  EXPECT_EQ((-Sym::range(1, 2, 3)).to_string(), "-B2:3");
  EXPECT_EQ((Sym::element(0, 1) - Sym::element(1, 1)).to_string(), "A1 - B1");
}

TEST(Symbolic, AdditionIsCommutativeAndAssociative) {
  Sym a = Sym::range(0, 0, 2), b = Sym::element(4, 1), c = Sym::range(0, 3, 5);
  EXPECT_EQ(a + b, b + a);
  EXPECT_EQ((a + b) + c, a + (b + c));
  EXPECT_EQ((a + c).to_string(), "A0:5");
}

TEST(Symbolic, RejectsBadRanges) {
  EXPECT_THROW(Sym::range(0, 3, 2), std::invalid_argument);
  EXPECT_THROW(Sym::range(64, 0, 0), std::invalid_argument);
}

TEST(ValueFormat, ShortestRoundTrip) {
  using warpsim::sim::format_value;
  EXPECT_EQ(format_value(0.1f), "0.1");
  EXPECT_EQ(format_value(0.1), "0.1");
  EXPECT_EQ(format_value(1e-45f), "1e-45");
  EXPECT_EQ(format_value(true), "1");
  EXPECT_EQ(format_value(-3), "-3");
}
