#include "sim/coalescing.hpp"

#include <algorithm>
#include <array>
#include <bit>

#include "sim/global_memory.hpp"
#include "sim/lane_mask.hpp"
#include "sim/shared_memory.hpp"

namespace warpsim::sim {

namespace {

// Distinct values in ids[0..n), sorting first unless already sorted (the
// common case: a coalesced access lists its addresses in lane order).
int count_distinct(std::uint64_t* ids, std::size_t n) {
  if (!std::is_sorted(ids, ids + n)) std::sort(ids, ids + n);
  int distinct = n ? 1 : 0;
  for (std::size_t i = 1; i < n; ++i) distinct += ids[i] != ids[i - 1];
  return distinct;
}

// Number of distinct values of (a / unit) over every byte range [a, a + bytes).
// An access may straddle units when misaligned, so all units a range overlaps
// are counted.
int distinct_units(std::span<const std::uint64_t> addresses, int bytes, std::uint64_t unit) {
  std::array<std::uint64_t, 4 * kMaxLanes> ids;
  std::size_t n = 0;
  const int shift = std::countr_zero(unit);  // units are powers of two: shift, don't divide
  for (std::uint64_t a : addresses) {
    const std::uint64_t first = a >> shift;
    const std::uint64_t last = (a + static_cast<std::uint64_t>(bytes) - 1) >> shift;
    for (std::uint64_t u = first; u <= last && n < ids.size(); ++u) ids[n++] = u;
  }
  return count_distinct(ids.data(), n);
}

}  // namespace

GlobalAccessCost global_access_cost(std::span<const std::uint64_t> addresses, int access_bytes, int line_bytes) {
  GlobalAccessCost c;
  c.lanes = static_cast<int>(addresses.size());
  c.bytes = c.lanes * access_bytes;
  if (addresses.empty()) return c;
  c.sectors = distinct_units(addresses, access_bytes, kSectorBytes);
  c.lines = distinct_units(addresses, access_bytes, static_cast<std::uint64_t>(line_bytes));
  return c;
}

SharedAccessCost shared_access_cost(std::span<const std::uint64_t> addresses, int access_bytes) {
  SharedAccessCost c;
  c.lanes = static_cast<int>(addresses.size());
  if (addresses.empty()) return c;
  std::array<std::uint64_t, 4 * kMaxLanes> words;
  std::size_t n = 0;
  for (std::uint64_t a : addresses) {
    for (std::uint64_t w = a / kBankBytes; w <= (a + access_bytes - 1) / kBankBytes && n < words.size(); ++w) {
      words[n++] = w;
    }
  }
  if (!std::is_sorted(words.begin(), words.begin() + static_cast<std::ptrdiff_t>(n))) {
    std::sort(words.begin(), words.begin() + static_cast<std::ptrdiff_t>(n));
  }
  n = static_cast<std::size_t>(std::unique(words.begin(), words.begin() + static_cast<std::ptrdiff_t>(n)) - words.begin());
  std::array<int, kSharedBanks> per_bank{};
  for (std::size_t i = 0; i < n; ++i) ++per_bank[words[i] % kSharedBanks];
  c.wavefronts = *std::max_element(per_bank.begin(), per_bank.end());
  const int fewest = static_cast<int>((n + kSharedBanks - 1) / kSharedBanks);
  c.conflicts = c.wavefronts - fewest;
  return c;
}

}  // namespace warpsim::sim
