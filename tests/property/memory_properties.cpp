// Coalescing counts agree with a brute-force count over bytes.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <set>
#include <vector>

#include "generators.hpp"
#include "sim/coalescing.hpp"

using namespace warpsim::sim;

RC_GTEST_PROP(MemoryProperties, SectorsAndLinesAreTheDistinctUnitsOfEveryByteTouched, ()) {
  const int w = *warpsim::sim_gen::gen_warp_width();
  const int size = *rc::gen::element(1, 2, 4, 8, 16);
  const int line = *rc::gen::element(32, 64, 128, 256);
  std::vector<std::uint64_t> addrs;
  const auto base = *rc::gen::inRange<std::uint64_t>(0, 1 << 20);
  for (int l = 0; l < w; ++l) addrs.push_back(base + static_cast<std::uint64_t>(*rc::gen::inRange(0, 4096)) * static_cast<std::uint64_t>(size));
  std::set<std::uint64_t> sectors, lines;
  for (auto a : addrs)
    for (int b = 0; b < size; ++b) {
      sectors.insert((a + static_cast<std::uint64_t>(b)) / 32);
      lines.insert((a + static_cast<std::uint64_t>(b)) / static_cast<std::uint64_t>(line));
    }
  const auto c = global_access_cost(addrs, size, line);
  RC_ASSERT(c.sectors == static_cast<int>(sectors.size()));
  RC_ASSERT(c.lines == static_cast<int>(lines.size()));
  RC_ASSERT(c.bytes == w * size);
}

RC_GTEST_PROP(MemoryProperties, SharedWavefrontsAreTheMostDistinctWordsInOneBank, ()) {
  const int w = *warpsim::sim_gen::gen_warp_width();
  const int size = *rc::gen::element(4, 8, 16);
  std::vector<std::uint64_t> addrs;
  for (int l = 0; l < w; ++l) addrs.push_back(static_cast<std::uint64_t>(*rc::gen::inRange(0, 512)) * static_cast<std::uint64_t>(size));
  std::vector<std::set<std::uint64_t>> banks(32);
  std::set<std::uint64_t> words;
  for (auto a : addrs)
    for (int b = 0; b < size; b += 4) {
      banks[((a + static_cast<std::uint64_t>(b)) / 4) % 32].insert((a + static_cast<std::uint64_t>(b)) / 4);
      words.insert((a + static_cast<std::uint64_t>(b)) / 4);
    }
  std::size_t most = 0;
  for (const auto& b : banks) most = std::max(most, b.size());
  const auto c = shared_access_cost(addrs, size);
  RC_ASSERT(c.wavefronts == static_cast<int>(most));
  RC_ASSERT(c.conflicts == static_cast<int>(most) - static_cast<int>((words.size() + 31) / 32));
}
