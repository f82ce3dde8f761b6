#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "sim/warp.hpp"

using namespace warpsim::sim;

TEST(Memory, GlobalLoadAndStoreRoundTrip) {
  Warp warp({.width = 8});
  GlobalMemory mem;
  auto arr = mem.allocate<double>(8);
  std::vector<double> host(8);
  std::iota(host.begin(), host.end(), 0.25);
  mem.upload<double>(arr, host);
  Reg<std::uint64_t> addr("addr");
  for (int l = 0; l < 8; ++l) addr[l] = arr.at(static_cast<std::size_t>(7 - l));
  Reg<double> v("v");
  warp.load_global(v, mem, PerLane<std::uint64_t>(addr));
  for (int l = 0; l < 8; ++l) EXPECT_EQ(v[l], host[static_cast<std::size_t>(7 - l)]);
  warp.add(v, v, PerLane<double>(1.0));
  warp.store_global(mem, PerLane<std::uint64_t>(addr), v);
  auto back = mem.download(arr);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(back[static_cast<std::size_t>(i)], host[static_cast<std::size_t>(i)] + 1.0);
  EXPECT_EQ(warp.counters().global_requests, 2u);
  EXPECT_EQ(warp.counters().count(Op::LoadGlobal), 1u);
  EXPECT_EQ(warp.counters().count(Op::StoreGlobal), 1u);
}

TEST(Memory, AllocationsAre256ByteAlignedAndHostCopiesAreChecked) {
  GlobalMemory mem;
  auto a = mem.allocate<char>(3);
  auto b = mem.allocate<float>(5);
  EXPECT_EQ(a.address % 256, 0u);
  EXPECT_EQ(b.address % 256, 0u);
  EXPECT_GT(b.address, a.address);
  std::vector<float> six(6);
  EXPECT_THROW(mem.upload<float>(b, six), std::out_of_range);
  EXPECT_FALSE(mem.contains(a.address + 3, 1));
}

TEST(Memory, LocalMemoryIsPrivateToEachLaneAndIndexedPerLane) {
  Warp warp({.width = 4});
  LocalArray<int> theta("theta", 4);
  Reg<int> idx("idx"), v("v");
  for (int l = 0; l < 4; ++l) {
    idx[l] = 3 - l;
    v[l] = 100 + l;
  }
  warp.store_local(theta, PerLane<int>(idx), v);
  for (int l = 0; l < 4; ++l) EXPECT_EQ(theta.at(l, static_cast<std::size_t>(3 - l)), 100 + l);
  Reg<int> w("w");
  warp.load_local(w, theta, PerLane<int>(idx));
  for (int l = 0; l < 4; ++l) EXPECT_EQ(w[l], 100 + l);
  EXPECT_EQ(warp.counters().count(Op::LoadLocal), 1u);
  EXPECT_EQ(warp.counters().count(Op::IndexedRegister), 0u) << "local memory may be indexed per lane";
}

TEST(Memory, SharedStoreThenTransposedLoad) {
  // The shared-memory transpose of seed 002, slide 21, on a 4x4 tile.
  Warp warp({.width = 4});
  SharedMemory smem(1024);
  auto tile = smem.allocate<float>(16);
  for (int r = 0; r < 4; ++r) {
    Reg<float> v("v");
    for (int l = 0; l < 4; ++l) v[l] = static_cast<float>(10 * r + l);
    Reg<std::uint64_t> addr("addr");
    for (int l = 0; l < 4; ++l) addr[l] = tile.at(static_cast<std::size_t>(4 * r + l));
    warp.store_shared(smem, PerLane<std::uint64_t>(addr), v);
  }
  Reg<float> col("col");
  Reg<std::uint64_t> addr("addr");
  for (int l = 0; l < 4; ++l) addr[l] = tile.at(static_cast<std::size_t>(4 * l + 1));
  // Each lane reads words other lanes wrote: without this __syncwarp the
  // model reports UnsyncedSharedRead (tests/unit/undefined_test.cpp).
  warp.syncwarp(full_mask(4));
  const auto cost = warp.load_shared(col, smem, PerLane<std::uint64_t>(addr));
  for (int l = 0; l < 4; ++l) EXPECT_EQ(col[l], static_cast<float>(10 * l + 1));
  EXPECT_EQ(cost.wavefronts, 1) << "stride 4 words over 4 lanes hits banks 1, 5, 9, 13";
  EXPECT_EQ(warp.counters().shared_requests, 5u);
}
