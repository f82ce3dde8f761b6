// A plugin with alias-table builders (plugin ABI version 2), for the tests
// of `warpsim validate --plugin`: "vose" is Vose's method with fp32 keeps
// (right: its tables imply their weights within 2^-24 a row), and
// "vose-worklist-alias" has a classic indexing bug -- a light item's alias is
// the heavy item's place on the worklist, not the item -- which the table
// check must catch. Both sample from their own tables, checked in law.
#include <warpsim/plugin.h>

#include <cstdint>
#include <vector>

namespace {

struct Table {
  std::vector<float> keep;
  std::vector<std::int32_t> alias;
};

// Vose's method in double, keeps stored as float. Items of weight 0 go on
// top of the small worklist, so they are filled first, while heavy items
// are plenty: rounding cannot leave one over with a whole row.
template <class T>
Table vose(const T* w, std::int64_t k, bool worklist_bug) {
  Table t{std::vector<float>(static_cast<std::size_t>(k), 0.0f), std::vector<std::int32_t>(static_cast<std::size_t>(k), 0)};
  double total = 0;
  for (std::int64_t i = 0; i < k; ++i) total += static_cast<double>(w[i]);
  std::vector<double> scaled(static_cast<std::size_t>(k));
  std::vector<std::int32_t> small, large, zeros;
  for (std::int64_t i = 0; i < k; ++i) {
    scaled[static_cast<std::size_t>(i)] = static_cast<double>(w[i]) * static_cast<double>(k) / total;
    (w[i] == 0 ? zeros : scaled[static_cast<std::size_t>(i)] < 1 ? small : large).push_back(static_cast<std::int32_t>(i));
  }
  small.insert(small.end(), zeros.begin(), zeros.end());
  while (!small.empty() && !large.empty()) {
    const std::int32_t s = small.back(), l = large.back();
    small.pop_back();
    t.keep[static_cast<std::size_t>(s)] = static_cast<float>(scaled[static_cast<std::size_t>(s)]);
    t.alias[static_cast<std::size_t>(s)] = worklist_bug ? static_cast<std::int32_t>(large.size() - 1) : l;
    scaled[static_cast<std::size_t>(l)] = (scaled[static_cast<std::size_t>(l)] + scaled[static_cast<std::size_t>(s)]) - 1;
    if (scaled[static_cast<std::size_t>(l)] < 1) {
      large.pop_back();
      small.push_back(l);
    }
  }
  for (auto i : small) t.keep[static_cast<std::size_t>(i)] = 1, t.alias[static_cast<std::size_t>(i)] = i;
  for (auto i : large) t.keep[static_cast<std::size_t>(i)] = 1, t.alias[static_cast<std::size_t>(i)] = i;
  return t;
}

std::uint64_t mix(std::uint64_t x) {  // splitmix64's finaliser
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

std::int32_t draw(const Table& t, std::uint64_t seed, std::uint64_t d) {
  const std::uint64_t x = mix(seed * 0x100000001b3ull ^ mix(d));
  const auto k = static_cast<std::uint64_t>(t.keep.size());
  const auto row = static_cast<std::size_t>(((x >> 32) * k) >> 32);
  const float coin = static_cast<float>((x & 0xffffffffu) >> 8) * 0x1p-24f;
  return coin < t.keep[row] ? static_cast<std::int32_t>(row) : t.alias[row];
}

template <bool kBug>
int build(void*, const void* w, warpsim_dtype dt, std::int64_t k, void* keep, std::int32_t* alias) {
  const Table t = dt == WARPSIM_F32 ? vose(static_cast<const float*>(w), k, kBug) : vose(static_cast<const double*>(w), k, kBug);
  for (std::int64_t i = 0; i < k; ++i) {
    static_cast<float*>(keep)[i] = t.keep[static_cast<std::size_t>(i)];
    alias[i] = t.alias[static_cast<std::size_t>(i)];
  }
  return WARPSIM_OK;
}

template <bool kBug>
int draw_rows(void*, const void* w, warpsim_dtype dt, std::int64_t rows, std::int64_t cols, std::uint64_t seed, std::int32_t* out) {
  for (std::int64_t r = 0; r < rows; ++r) {
    const Table t = dt == WARPSIM_F32 ? vose(static_cast<const float*>(w) + r * cols, cols, kBug)
                                      : vose(static_cast<const double*>(w) + r * cols, cols, kBug);
    out[r] = draw(t, seed, static_cast<std::uint64_t>(r));
  }
  return WARPSIM_OK;
}

template <bool kBug>
int draw_many(void*, const void* w, warpsim_dtype dt, std::int64_t k, std::int64_t draws, std::uint64_t seed, std::uint64_t first,
              std::int32_t* out) {
  const Table t = dt == WARPSIM_F32 ? vose(static_cast<const float*>(w), k, kBug) : vose(static_cast<const double*>(w), k, kBug);
  for (std::int64_t i = 0; i < draws; ++i) out[i] = draw(t, seed, first + static_cast<std::uint64_t>(i));
  return WARPSIM_OK;
}

const warpsim_alias_builder right = {WARPSIM_KEEP_F32, build<false>};
const warpsim_alias_builder wrong = {WARPSIM_KEEP_F32, build<true>};

const std::uint32_t both = WARPSIM_DTYPE_BIT(WARPSIM_F32) | WARPSIM_DTYPE_BIT(WARPSIM_F64);
const warpsim_sampler samplers[] = {
    {"vose", "Vose's alias method, fp32 keeps", WARPSIM_HOST_MEMORY, 0, both, draw_rows<false>, draw_many<false>, &right, nullptr},
    {"vose-worklist-alias", "Vose's alias method with the worklist place as the alias", WARPSIM_HOST_MEMORY, 0, both, draw_rows<true>,
     draw_many<true>, &wrong, nullptr},
};

const warpsim_plugin plugin = {WARPSIM_PLUGIN_ABI_VERSION, 2, samplers, nullptr, nullptr};

}  // namespace

extern "C" WARPSIM_PLUGIN_EXPORT const warpsim_plugin* warpsim_plugin_entry(void) { return &plugin; }
