// Coalescing counts for the cases seed 000 states in Sec. 3 and for the two
// access patterns of its Fig. 1; docs/errata.md (E1) explains where the model
// and the seed's stated numbers part.
#include <gtest/gtest.h>

#include <vector>

#include "sim/warp.hpp"

using namespace warpsim::sim;

namespace {

// One warp-wide load in which lane k reads the element at byte address x + size*k.
template <class T>
GlobalAccessCost consecutive_load(int width, int line_bytes, std::uint64_t offset) {
  Warp warp({.width = width, .line_bytes = line_bytes});
  GlobalMemory mem;
  auto arr = mem.allocate<T>(256);
  Reg<std::uint64_t> addr("addr");
  for (int k = 0; k < width; ++k) addr[k] = arr.address + offset + sizeof(T) * static_cast<std::uint64_t>(k);
  Reg<T> v("v");
  return warp.load_global(v, mem, PerLane<std::uint64_t>(addr));
}

}  // namespace

// --- Seed 000, Sec. 3: "If lane k fetches a 32-bit word at address x + 4k, then the
// accessed words occupy exactly 2 cache lines if x is a multiple of 128, and otherwise
// straddle 3 cache lines; if lane k fetches a 64-bit word at address x + 8k, then the
// accessed words occupy exactly 4 cache lines if x is a multiple of 128, and otherwise
// straddle 5 cache lines." (W = 32, 128-byte lines.)

TEST(Seed000Sec3, ThirtyTwoBitWordsAligned) {
  const auto c = consecutive_load<float>(32, 128, 0);
  EXPECT_EQ(c.bytes, 128);
  EXPECT_EQ(c.lines, 1) << "128 bytes at a 128-byte boundary fill one line, not the seed's 2";
  EXPECT_EQ(c.sectors, 4);
}

TEST(Seed000Sec3, ThirtyTwoBitWordsUnaligned) {
  for (std::uint64_t x = 4; x < 128; x += 4) {
    const auto c = consecutive_load<float>(32, 128, x);
    EXPECT_EQ(c.lines, 2) << "offset " << x << ": two lines, not the seed's 3";
    EXPECT_EQ(c.sectors, x % 32 == 0 ? 4 : 5) << "offset " << x;
  }
}

TEST(Seed000Sec3, SixtyFourBitWordsAligned) {
  const auto c = consecutive_load<double>(32, 128, 0);
  EXPECT_EQ(c.lines, 2) << "256 bytes: two lines, not the seed's 4";
  EXPECT_EQ(c.sectors, 8);
}

TEST(Seed000Sec3, SixtyFourBitWordsUnaligned) {
  for (std::uint64_t x = 8; x < 128; x += 8) {
    const auto c = consecutive_load<double>(32, 128, x);
    EXPECT_EQ(c.lines, 3) << "offset " << x << ": three lines, not the seed's 5";
    EXPECT_EQ(c.sectors, x % 32 == 0 ? 8 : 9) << "offset " << x;
  }
}

TEST(Seed000Sec3, TheStatedNumbersAreThoseOfHalfAsLongLines) {
  // The seed's 2/3/4/5 come out of the model with 64-byte lines at W = 32,
  // or, equally, with 128-byte lines at W = 64: twice the bytes per line.
  EXPECT_EQ(consecutive_load<float>(32, 64, 0).lines, 2);
  EXPECT_EQ(consecutive_load<float>(32, 64, 4).lines, 3);
  EXPECT_EQ(consecutive_load<double>(32, 64, 0).lines, 4);
  EXPECT_EQ(consecutive_load<double>(32, 64, 8).lines, 5);
  EXPECT_EQ(consecutive_load<float>(64, 128, 0).lines, 2);
  EXPECT_EQ(consecutive_load<float>(64, 128, 4).lines, 3);
  EXPECT_EQ(consecutive_load<double>(64, 128, 0).lines, 4);
  EXPECT_EQ(consecutive_load<double>(64, 128, 8).lines, 5);
}

TEST(Seed000Sec3, ConclusionAtMostThreeLinesHoldsForBothWordSizes) {
  // Sec. 9: transposed access "touch[es] at most three cache lines on each fetch".
  for (std::uint64_t x = 0; x < 256; x += 8) {
    EXPECT_LE(consecutive_load<float>(32, 128, x).lines, 3);
    EXPECT_LE(consecutive_load<double>(32, 128, x).lines, 3);
  }
}

// --- Seed 000, Fig. 1: W arrays of K = W floats, one per lane. Per-lane access
// (Fig. 1a: on step j lane i reads its own a[j]) against transposed access
// (Fig. 1b: on step j lane i reads element i of lane j's array).

namespace {

struct Fig1Cost {
  std::uint64_t sectors, lines, bytes, requests;
};

Fig1Cost fig1(bool transposed, bool scattered) {
  constexpr int kW = 32;
  Warp warp({.width = kW});
  GlobalMemory mem;
  // Row i is lane i's array: either one 32x32 matrix, or 32 separate arrays
  // at unrelated addresses (as the phi rows gathered in the LDA sweep).
  std::vector<std::uint64_t> row(kW);
  if (scattered) {
    for (int i = 0; i < kW; ++i) {
      mem.allocate<char>(static_cast<std::size_t>(1000 + 37 * ((i * 7) % kW)));  // unrelated gaps
      row[static_cast<std::size_t>(i)] = mem.allocate<float>(kW).address;
    }
  } else {
    const auto m = mem.allocate<float>(kW * kW);
    for (int i = 0; i < kW; ++i) row[static_cast<std::size_t>(i)] = m.at(static_cast<std::size_t>(i * kW));
  }
  Reg<float> v("v");
  Reg<std::uint64_t> addr("addr");
  for (int j = 0; j < kW; ++j) {
    for (int i = 0; i < kW; ++i) {
      addr[i] = transposed ? row[static_cast<std::size_t>(j)] + 4u * static_cast<std::uint64_t>(i)
                           : row[static_cast<std::size_t>(i)] + 4u * static_cast<std::uint64_t>(j);
    }
    warp.load_global(v, mem, PerLane<std::uint64_t>(addr));
  }
  const auto c = warp.counters();  // a copy: the store below adds to the model's counters
  EXPECT_EQ(c.global_load_sectors, c.global_sectors) << "every access here is a load";
  Reg<float> one("one", 1.0f);
  warp.store_global(mem, PerLane<std::uint64_t>(addr), one);
  const auto& after = warp.counters();
  EXPECT_GT(after.global_sectors, c.global_sectors);
  EXPECT_EQ(after.global_load_sectors, c.global_load_sectors) << "a store's sectors are not the loads'";
  return {c.global_sectors, c.global_lines, c.global_bytes, c.global_requests};
}

}  // namespace

TEST(Seed000Fig1, TransposedAccessReadsEachSectorOnce) {
  for (bool scattered : {false, true}) {
    const auto c = fig1(true, scattered);
    EXPECT_EQ(c.requests, 32u);
    EXPECT_EQ(c.bytes, 4096u);
    EXPECT_EQ(c.sectors, 128u) << "4096 bytes / 32: no sector fetched twice";
    EXPECT_EQ(c.lines, 32u) << "one line per warp-wide load";
  }
}

TEST(Seed000Fig1, PerLaneAccessTouchesALineForEveryLane) {
  for (bool scattered : {false, true}) {
    const auto c = fig1(false, scattered);
    EXPECT_EQ(c.sectors, 1024u) << "32 loads x 32 lanes, each in its own sector: 8x the bytes";
    EXPECT_EQ(c.lines, 1024u);
  }
}

// --- Shared memory banks.

namespace {

SharedAccessCost shared_stride(int stride_words, int access_bytes = 4, int lanes = 32) {
  std::vector<std::uint64_t> a;
  for (int k = 0; k < lanes; ++k) a.push_back(static_cast<std::uint64_t>(k * stride_words * 4));
  return shared_access_cost(a, access_bytes);
}

}  // namespace

TEST(SharedBanks, ConflictDegreeOfStridedAccess) {
  EXPECT_EQ(shared_stride(1).wavefronts, 1);
  EXPECT_EQ(shared_stride(2).wavefronts, 2);
  EXPECT_EQ(shared_stride(2).conflicts, 1);
  EXPECT_EQ(shared_stride(32).wavefronts, 32);
  EXPECT_EQ(shared_stride(33).wavefronts, 1) << "padding a 32-word row by one word";
  EXPECT_EQ(shared_stride(0).wavefronts, 1) << "one word read by every lane is a broadcast";
}

TEST(SharedBanks, EightByteAccessesNeedTwoWavefrontsWithoutConflict) {
  const auto c = shared_stride(2, 8);
  EXPECT_EQ(c.wavefronts, 2);
  EXPECT_EQ(c.conflicts, 0);
}
