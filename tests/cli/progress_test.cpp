// The progress line: drawn (with a carriage return, counts, rate) when given
// a stream, nothing at all when quiet, and cleared at the end.
#include <gtest/gtest.h>

#include <sstream>
#include <thread>

#include "cli/validate/progress.hpp"

using warpsim::cli::validate::grouped;
using warpsim::cli::validate::Progress;

TEST(Progress, DrawsCountsRateAndTimeLeftThenClears) {
  std::ostringstream out;
  {
    Progress p(&out);
    p.start("draws", 1000);
    std::this_thread::sleep_for(std::chrono::milliseconds(120));
    p.update(250);
    const auto line = out.str();
    EXPECT_NE(line.find("\r  validate: 250 / 1,000 draws"), std::string::npos) << line;
    EXPECT_NE(line.find("/s"), std::string::npos);
    EXPECT_NE(line.find("s left"), std::string::npos);
    p.finish();
  }
  EXPECT_EQ(out.str().substr(out.str().size() - 4), "\r\x1b[K");
}

TEST(Progress, QuietWritesNothing) {
  Progress p(nullptr);
  p.start("draws", 10);
  p.update(5);
  p.finish();
  EXPECT_FALSE(p.enabled());
}

TEST(Progress, GroupsThousands) {
  EXPECT_EQ(grouped(0), "0");
  EXPECT_EQ(grouped(1234567), "1,234,567");
  EXPECT_EQ(grouped(1000), "1,000");
}
