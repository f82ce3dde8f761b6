// stats/continuous_law.hpp: each form's CDF and survival function against
// values computed by hand, their agreement (F + S = 1), the supports, and
// every malformed spec refused with a message.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "stats/continuous_law.hpp"

using namespace warpsim;

TEST(ContinuousLaw, EachFormsCdfBesideAValueByHand) {
  EXPECT_NEAR(stats::continuous_law("uniform:2,6").cdf(3), 0.25, 1e-15);
  EXPECT_EQ(stats::continuous_law("uniform:2,6").cdf(7), 1);
  EXPECT_EQ(stats::continuous_law("uniform:2,6").sf(1), 1);
  EXPECT_NEAR(stats::continuous_law("normal:1,2").cdf(1), 0.5, 1e-15);
  EXPECT_NEAR(stats::continuous_law("normal:0,1").sf(10), 7.619853024160527e-24, 1e-36);  // the tail's digits kept
  EXPECT_NEAR(stats::continuous_law("exponential:2").cdf(0.5), 1 - std::exp(-1.0), 1e-15);
  EXPECT_EQ(stats::continuous_law("exponential:2").cdf(-1), 0);
  EXPECT_NEAR(stats::continuous_law("gamma:1,3").cdf(3), 1 - std::exp(-1.0), 1e-14);  // shape 1: exponential of mean 3
  EXPECT_NEAR(stats::continuous_law("gamma:2,1").cdf(1), 1 - 2 * std::exp(-1.0), 1e-14);
  EXPECT_NEAR(stats::continuous_law("beta:2,1").cdf(0.5), 0.25, 1e-15);  // x^2
  EXPECT_NEAR(stats::continuous_law("beta:1,1").sf(0.3), 0.7, 1e-15);
  // a normal kept on [0, inf): twice the half-normal's
  const auto half = stats::continuous_law("truncated-normal:0,1,0,1e300");
  EXPECT_NEAR(half.cdf(1), 2 * (stats::continuous_law("normal:0,1").cdf(1) - 0.5), 1e-14);
  // the upper side keeps its digits: [5, 6] of a standard normal
  const auto far = stats::continuous_law("truncated-normal:0,1,5,6");
  EXPECT_NEAR(far.cdf(5.5), 0.93697871347, 1e-9);  // (Q(5) - Q(5.5)) / (Q(5) - Q(6)), Q by erfc
  EXPECT_EQ(far.lower, 5);
  EXPECT_EQ(far.upper, 6);
}

TEST(ContinuousLaw, CdfAndSurvivalAddToOne) {
  for (const char* spec : {"uniform:-1,1", "normal:3,0.5", "exponential:0.1", "gamma:0.3,2", "beta:0.5,0.5", "truncated-normal:0,1,-1,2"}) {
    const auto law = stats::continuous_law(spec);
    for (double x : {-3.0, -0.5, 0.0, 0.2, 0.7, 1.0, 1.5, 4.0, 30.0}) {
      EXPECT_NEAR(law.cdf(x) + law.sf(x), 1.0, 1e-12) << spec << " at " << x;
      EXPECT_GE(law.cdf(x), 0);
      EXPECT_LE(law.cdf(x), 1);
    }
  }
  EXPECT_EQ(stats::continuous_law("gamma:0.5,2").describe(), "gamma (0.5, 2)");
}

TEST(ContinuousLaw, MalformedSpecsAreRefusedWithAReason) {
  const auto refused = [](const std::string& spec, const std::string& words) {
    try {
      stats::continuous_law(spec);
      ADD_FAILURE() << spec << " was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << spec << ": " << e.what();
    }
  };
  refused("normal", "NAME:PARAMETERS");
  refused("cauchy:0,1", "not a law warpsim knows");
  refused("normal:0", "takes 2 parameters");
  refused("normal:0,1,2", "takes 2 parameters");
  refused("normal:0,-1", "sigma must be > 0");
  refused("normal:0,x", "not a finite number");
  refused("normal:0,", "not a finite number");
  refused("normal:nan,1", "not a finite number");
  refused("normal:1e999,1", "not a finite number");
  refused("uniform:1,1", "a must be below b");
  refused("gamma:0,1", "shape must be > 0");
  refused("beta:1,0", "b must be > 0");
  refused("exponential:0", "rate must be > 0");
  refused("truncated-normal:0,1,2,1", "lo must be below hi");
  refused("truncated-normal:0,1,40,41", "holds no mass");
}
