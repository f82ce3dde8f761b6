// Bringmann and Larsen's space-efficient rejection sampling (seed 001,
// Sec. 2.8 and 5.3.2), in the alias tables' exact units (oracle/alias/units.hpp),
// next to the seed's text:
//
//   "For each item i, they calculate Occ_i := floor(N w_i / W) + 1 and then
//    generate an array A that contains it Occ(i) times."
//        With u_i, U the units: N u_i = q_i U + r_i (0 <= r_i < U), Occ_i =
//        q_i + 1; A has M = sum Occ_i = N + sum q_i slots (N <= M <= 2N).
//   "they choose a uniform random index k in A. If A_k is the first
//    occurrence of the item, they use the remaining weight
//    (frac(N w_{A_k} / W)) to decide if they accept the sample."
//        frac(N u_i / U) = r_i / U; the first slot accepts with probability
//        r_i / U, the other q_i always, so item i is accepted at q_i + r_i / U
//        = N u_i / U slots' worth out of M: with probability u_i / U once
//        accepted, and an attempt is accepted with probability N / M.
//   "it is enough to just store the fact that a new item starts at position
//    i ... in a bit array. The actual item ... using the rank."
//        bits: bit k of word k / 64 is 1 where slot k starts an item; rank:
//        the 1s in the words before, a 32-bit count a word. Slot k's item is
//        rank + popcount(word's bits 0..k mod 64) - 1.
//
// Errata E19 (docs/errata.md): "The probability for accepting a sample is
// > 0.5" holds as >= 1/2 only: it is N / M, exactly 1/2 where every N w_i / W
// is a whole number (uniform weights: every item's first slot rejects always).
//
// Attempts as the kernels make them, from 128 random bits (hi, lo), in the
// alias tables' way (oracle/alias/table.hpp): slot k = floor(hi M / 2^64); a
// first slot accepts if lo < t_i = floor(r_i 2^64 / U) (0 for r_i = 0), any
// other slot always. Each slot comes up with probability within 2^-64 of
// 1 / M and t_i / 2^64 is within 2^-64 of r_i / U.
//
// How retries consume rng/'s mapping: attempt j of draw d takes the Philox
// block (seed, stream d, draw j), j = 0, 1, 2, ...; draw d is the item of its
// first accepted attempt. So every draw is fixed by (weights, seed, d) alone,
// whichever thread makes it, with or without seed 004's pre-caching
// (gpu/warp_rejection.cuh): a pre-cached lane only makes a later draw's
// attempts earlier. (An attempt is rejected with probability at most 1/2:
// 2^32 of them in a row, where the counter would wrap, have probability
// below 2^-(2^32).)
//
// On the warp model (`draw_on_warp`): a warp makes draws call after call,
// lane l of call c making draw first + offset + c stride + l (a kernel's
// grid-stride loop: offset the warp's first thread, stride the grid's
// threads), uncached (the while-any loop) or pre-cached (seed 004's listing:
// a lane whose draw is accepted works on its next call's draw while the
// others retry; the `__all` vote ends the call). The model counts the warp's
// iterations a call, which oracle/rejection/loop_model.hpp predicts for
// p = N / M.
#pragma once

#include <bit>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "oracle/alias/units.hpp"
#include "rng/philox_uniform.hpp"
#include "sim/global_memory.hpp"
#include "sim/warp.hpp"

namespace warpsim::oracle::rejection {

using alias::u128;

/// N must stay below 2^31 so that slot indices (M <= 2N) fit 32 bits.
inline constexpr std::size_t kBringmannLarsenMaxItems = (std::size_t{1} << 31) - 1;

/// A word of the bit array with its rank: what one attempt reads first (16 bytes).
struct alignas(16) RankWord {
  std::uint64_t bits = 0;  // bit b: slot 64 w + b starts an item
  std::uint32_t rank = 0;  // the 1s in the words before this one
  std::uint32_t pad = 0;
  std::string to_string() const { return std::to_string(rank) + "|" + std::to_string(std::popcount(bits)); }
  bool operator==(const RankWord&) const = default;
};

struct BringmannLarsen {
  std::size_t n = 0;                    // N
  std::uint64_t slots = 0;              // M = |A|
  std::uint64_t capacity = 0;           // U
  int exponent = 0;                     // the unit, 2^exponent of the weights
  std::vector<RankWord> words;          // ceil(M / 64)
  std::vector<std::uint64_t> threshold; // t_i = floor(r_i 2^64 / U)

  /// The probability that an attempt is accepted, N / M.
  double acceptance() const { return static_cast<double>(n) / static_cast<double>(slots); }
};

/// Occ_i = floor(N u_i / U) + 1 and r_i = N u_i mod U.
struct Occupancy {
  std::uint32_t occ = 0;
  std::uint64_t remainder = 0;
};
inline Occupancy occupancy(std::uint64_t u, std::uint64_t n, std::uint64_t total) {
  const u128 m = static_cast<u128>(n) * u;
  return {static_cast<std::uint32_t>(m / total) + 1, static_cast<std::uint64_t>(m % total)};
}
inline std::uint64_t remainder_threshold(std::uint64_t r, std::uint64_t total) {
  return static_cast<std::uint64_t>((static_cast<u128>(r) << 64) / total);
}

/// The structure of the units (throws std::invalid_argument for N beyond kBringmannLarsenMaxItems).
inline BringmannLarsen build(const alias::Units& u) {
  const std::size_t n = u.units.size();
  if (n == 0) throw std::invalid_argument("no weights");
  if (n > kBringmannLarsenMaxItems) throw std::invalid_argument("more than 2^31 - 1 weights: Bringmann-Larsen's slots are 32-bit");
  BringmannLarsen s;
  s.n = n;
  s.capacity = u.total;
  s.exponent = u.exponent;
  s.threshold.resize(n);
  std::vector<std::uint64_t> start(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto o = occupancy(u.units[i], n, u.total);
    start[i] = s.slots;
    s.slots += o.occ;
    s.threshold[i] = remainder_threshold(o.remainder, u.total);
  }
  s.words.resize(static_cast<std::size_t>((s.slots + 63) / 64));
  for (const auto k : start) s.words[static_cast<std::size_t>(k / 64)].bits |= std::uint64_t{1} << (k % 64);
  std::uint32_t ones = 0;
  for (auto& w : s.words) {
    w.rank = ones;
    ones += static_cast<std::uint32_t>(std::popcount(w.bits));
  }
  return s;
}

template <class T>
BringmannLarsen build(std::span<const T> w) {
  return build(alias::to_units(w));
}

/// Slot k's item, and whether k is its first slot.
struct Slot {
  std::uint32_t item = 0;
  bool first = false;
};
inline Slot slot(const RankWord& w, std::uint64_t k) {
  const int b = static_cast<int>(k % 64);
  return {w.rank + static_cast<std::uint32_t>(std::popcount(w.bits & (~std::uint64_t{0} >> (63 - b)))) - 1, ((w.bits >> b) & 1) != 0};
}

/// One attempt from the bits (hi, lo): the item, or -1 if rejected.
inline std::int64_t attempt(const BringmannLarsen& s, std::uint64_t hi, std::uint64_t lo) {
  const auto k = static_cast<std::uint64_t>((static_cast<u128>(hi) * s.slots) >> 64);
  const Slot at = slot(s.words[static_cast<std::size_t>(k / 64)], k);
  if (at.first && !(lo < s.threshold[at.item])) return -1;
  return at.item;
}

/// Draw d on the host: the definition the model and the kernels equal. If
/// `attempts` is given, the attempts it took are added to it.
inline std::uint32_t draw(const BringmannLarsen& s, std::uint64_t seed, std::uint64_t d, std::uint64_t* attempts = nullptr) {
  for (std::uint32_t j = 0;; ++j) {
    const auto x = rng::philox_bits128(seed, d, j);
    const auto item = attempt(s, x.hi, x.lo);
    if (item >= 0) {
      if (attempts) *attempts += j + 1;
      return static_cast<std::uint32_t>(item);
    }
  }
}

/// Item i's probability as the attempts give it: (q_i 2^64 + t_i) / sum of
/// the same over the items, in units of 2^-64 of a slot (exact integers).
inline std::vector<u128> accepted_mass(const BringmannLarsen& s) {
  std::vector<u128> mass(s.n, 0);
  std::uint64_t item = 0;
  for (std::uint64_t k = 0; k < s.slots; ++k) {
    const Slot at = slot(s.words[static_cast<std::size_t>(k / 64)], k);
    item = at.item;
    mass[item] += at.first ? static_cast<u128>(s.threshold[item]) : static_cast<u128>(1) << 64;
  }
  return mass;
}

// ---- on the warp model ------------------------------------------------------

struct DeviceStructure {
  sim::DeviceArray<RankWord> words;
  sim::DeviceArray<std::uint64_t> threshold;
  std::uint64_t slots = 0;
};

inline DeviceStructure upload(sim::GlobalMemory& mem, const BringmannLarsen& s) {
  DeviceStructure d{mem.allocate<RankWord>(s.words.size()), mem.allocate<std::uint64_t>(s.n), s.slots};
  mem.upload<RankWord>(d.words, s.words);
  mem.upload<std::uint64_t>(d.threshold, s.threshold);
  return d;
}

/// Where draws come from: lane l of call c makes draw first + offset + c stride + l.
struct WarpTasks {
  std::uint64_t first = 0, count = 0;  // draws first .. first + count - 1 in all
  std::uint64_t offset = 0;            // the warp's first thread in the grid
  std::uint64_t stride = 0;            // the grid's threads (0: the warp's width)
};

struct WarpDraws {
  std::vector<std::uint32_t> draws;  // draw first + offset + c stride + l at c width + l (the warp's own)
  std::vector<int> iterations;       // the warp's loop iterations, a call
  std::uint64_t attempts = 0;        // attempts made (pre-cached: some for draws of later calls)
};

/// Told, for step-by-step views, what each lane did in each iteration of
/// each call: idle, an attempt for this call's draw, or (pre-cached) one for
/// the next call's; the attempt's slot k, its item, whether k is the item's
/// first slot, and whether it was accepted.
enum class LaneRole { Idle, Current, Next };
struct Attempt {
  std::uint64_t call = 0;
  int iteration = 0;
  int lane = 0;
  LaneRole role = LaneRole::Idle;
  std::uint64_t slot = 0;
  std::uint32_t item = 0;
  bool first = false, accepted = false;
};
using AttemptObserver = std::function<void(const Attempt&)>;

/// The warp's calls until its lanes have no draw left (seed 004's uncached
/// or pre-cached loop); the model counting iterations and memory traffic.
inline WarpDraws draw_on_warp(sim::Warp& warp, const sim::GlobalMemory& mem, const DeviceStructure& s, std::uint64_t seed, WarpTasks t,
                              bool cached, const AttemptObserver& observe = {}) {
  using sim::Op;
  using sim::PerLane;
  using sim::Reg;
  const int w = warp.width();
  const std::uint64_t stride = t.stride == 0 ? static_cast<std::uint64_t>(w) : t.stride;
  if (stride < static_cast<std::uint64_t>(w)) throw std::invalid_argument("draw_on_warp: the stride is below the warp's width");
  const sim::LaneMask full = sim::full_mask(w);
  const std::uint64_t calls = t.count <= t.offset ? 0 : (t.count - t.offset + stride - 1) / stride;
  WarpDraws out;
  out.draws.assign(static_cast<std::size_t>(calls * static_cast<std::uint64_t>(w)), 0);

  // One attempt of each lane where `work` holds, at (task, j): item and ok.
  Reg<std::uint64_t> hi("hi"), lo("lo"), k("k"), th("t"), addr("addr");
  Reg<RankWord> word("word");
  Reg<std::uint32_t> item("item");
  Reg<bool> first("first"), ok("ok");
  auto attempt_where = [&](const Reg<bool>& work, const Reg<std::uint64_t>& task, const Reg<std::uint32_t>& j) {
    warp.compute(Op::Compare, ok, [&](int) { return false; }, "ok <- false");
    warp.if_then(work, [&] {
      warp.compute(Op::Other, hi, [&](int l) { return rng::philox_bits128(seed, task[l], j[l]).hi; }, "hi <- philox(d, j).hi");
      warp.compute(Op::Other, lo, [&](int l) { return rng::philox_bits128(seed, task[l], j[l]).lo; }, "lo <- philox(d, j).lo");
      warp.compute(Op::Other, k, [&](int l) { return static_cast<std::uint64_t>((static_cast<u128>(hi[l]) * s.slots) >> 64); }, "k <- hi M >> 64");
      warp.compute(Op::Other, addr, [&](int l) { return s.words.address + k[l] / 64 * sizeof(RankWord); }, "addr <- &words[k / 64]");
      warp.load_global(word, mem, PerLane<std::uint64_t>(addr));
      warp.compute(Op::Other, item, [&](int l) { return slot(word[l], k[l]).item; }, "item <- rank + popc(bits <= k) - 1");
      warp.compute(Op::Compare, first, [&](int l) { return slot(word[l], k[l]).first; }, "first <- bit k");
      warp.compute(Op::Compare, ok, [&](int) { return true; }, "ok <- true");
      warp.if_then(first, [&] {
        warp.compute(Op::Other, addr, [&](int l) { return s.threshold.address + std::uint64_t{item[l]} * 8; }, "addr <- &t[item]");
        warp.load_global(th, mem, PerLane<std::uint64_t>(addr));
        warp.compute(Op::Compare, ok, [&](int l) { return lo[l] < th[l]; }, "ok <- lo < t[item]");
      });
    });
    for (int l = 0; l < w; ++l) out.attempts += work[l] ? 1 : 0;
  };
  // What each lane did this iteration (role from the loop's own registers).
  auto tell = [&](std::uint64_t call, int iteration, const Reg<bool>& work, const Reg<bool>* on_current) {
    if (!observe) return;
    for (int l = 0; l < w; ++l) {
      Attempt a;
      a.call = call, a.iteration = iteration, a.lane = l;
      a.role = !work[l] ? LaneRole::Idle : (on_current == nullptr || (*on_current)[l]) ? LaneRole::Current : LaneRole::Next;
      if (work[l]) a.slot = k[l], a.item = item[l], a.first = first[l], a.accepted = ok[l];
      observe(a);
    }
  };

  Reg<std::uint64_t> task("task"), next("next"), cached_task("cachedTask", ~std::uint64_t{0}), use_task("d");
  Reg<std::uint32_t> current("current"), cache("cached"), j("j"), next_j("nextJ"), cached_j("cachedJ", 0), use_j("jj");
  Reg<bool> has("has"), has_next("hasNext"), current_valid("currentValid"), cached_valid("cachedValid", false), work("work"),
      on_current("onCurrent"), all("all"), go("go");
  for (std::uint64_t c = 0; c < calls; ++c) {
    const std::uint64_t base = t.offset + c * stride;
    warp.compute(Op::Other, task, [&](int l) { return t.first + base + static_cast<std::uint64_t>(l); }, "task <- first + offset + c stride + l");
    warp.compute(Op::Compare, has, [&](int l) { return base + static_cast<std::uint64_t>(l) < t.count; }, "has <- task < end");
    int iteration = 0;  // (for the observer)
    if (!cached) {
      // do { x = g(); } while (!a(x)): lanes retire as they accept.
      warp.compute(Op::Other, j, [&](int) { return 0u; }, "j <- 0");
      warp.mov(current_valid, PerLane<bool>(false));
      out.iterations.push_back(warp.loop_while(
          go, [&] { warp.compute(Op::Compare, go, [&](int l) { return has[l] && !current_valid[l]; }, "go <- has && !accepted"); },
          [&] {
            attempt_where(go, task, j);
            tell(c, iteration++, go, nullptr);
            warp.compute(Op::Add, j, [&](int l) { return j[l] + 1; }, "j <- j + 1");
            warp.mov(current, PerLane<std::uint32_t>(item));
            warp.mov(current_valid, PerLane<bool>(ok));
          }));
    } else {
      // Seed 004's listing: currentValid = cachedValid && cachedParms == parms.
      warp.compute(Op::Other, next, [&](int l) { return task[l] + stride; }, "next <- task + stride");
      warp.compute(Op::Compare, has_next, [&](int l) { return base + stride + static_cast<std::uint64_t>(l) < t.count; }, "hasNext <- next < end");
      warp.compute(Op::Compare, current_valid, [&](int l) { return !has[l] || (cached_valid[l] && cached_task[l] == task[l]); },
                   "currentValid <- !has || cachedValid && cachedTask == task");
      warp.mov(current, PerLane<std::uint32_t>(cache));
      warp.compute(Op::Other, j, [&](int l) { return cached_task[l] == task[l] ? cached_j[l] : 0u; }, "j <- cachedTask == task ? cachedJ : 0");
      warp.compute(Op::Compare, cached_valid, [&](int l) { return !has_next[l]; }, "cachedValid <- !hasNext");
      warp.mov(cached_task, PerLane<std::uint64_t>(next));
      warp.compute(Op::Other, next_j, [&](int) { return 0u; }, "nextJ <- 0");
      bool once = true;  // do { ... } while (!__all(currentValid))
      out.iterations.push_back(warp.loop_while(
          go,
          [&] {
            warp.all_sync(all, PerLane<sim::LaneMask>(full), current_valid);
            warp.compute(Op::Compare, go, [&](int l) { return once || !all[l]; }, "go <- first || !__all(currentValid)");
            once = false;
          },
          [&] {
            // One attempt a lane: for this call's draw, else for the next call's.
            warp.compute(Op::Compare, on_current, [&](int l) { return !current_valid[l]; }, "onCurrent <- !currentValid");
            warp.compute(Op::Compare, work, [&](int l) { return !current_valid[l] || !cached_valid[l]; }, "work <- !currentValid || !cachedValid");
            warp.select(use_task, on_current, PerLane<std::uint64_t>(task), PerLane<std::uint64_t>(next));
            warp.select(use_j, on_current, PerLane<std::uint32_t>(j), PerLane<std::uint32_t>(next_j));
            attempt_where(work, use_task, use_j);
            tell(c, iteration++, work, &on_current);
            warp.compute(Op::Select, cache, [&](int l) { return !on_current[l] && work[l] && ok[l] ? item[l] : cache[l]; });
            warp.compute(Op::Select, cached_valid, [&](int l) { return cached_valid[l] || (!on_current[l] && ok[l]); });
            warp.compute(Op::Select, next_j, [&](int l) { return !on_current[l] && work[l] ? next_j[l] + 1 : next_j[l]; });
            warp.compute(Op::Select, current, [&](int l) { return on_current[l] && ok[l] ? item[l] : current[l]; });
            warp.compute(Op::Select, j, [&](int l) { return on_current[l] ? j[l] + 1 : j[l]; });
            warp.compute(Op::Select, current_valid, [&](int l) { return current_valid[l] || ok[l]; });
          }));
      warp.mov(cached_j, PerLane<std::uint32_t>(next_j));
    }
    for (int l = 0; l < w; ++l) out.draws[static_cast<std::size_t>(c * static_cast<std::uint64_t>(w)) + static_cast<std::size_t>(l)] = current[l];
  }
  return out;
}

/// The build on the warp model: what build() defines, made as a kernel
/// would make it, so the model counts its memory traffic.
///   items    a warp W items at a time: each lane's unit loaded, Occ and the
///            threshold computed (128-bit, as `occupancy`), the threshold
///            stored; the starts by an inclusive shfl_up scan of Occ plus the
///            carry of the chunks before (the last lane's sum, shfl_sync),
///            stored
///   words    a warp W words at a time: lane w's rank is lower_bound(starts,
///            64 w) (its binary search in global memory), and its bits the
///            starts from there below 64 (w + 1), walked
/// Returns the structure downloaded from the model's memory.
inline BringmannLarsen build_on_model(const alias::Units& u, int width = 32) {
  using sim::Op;
  using sim::PerLane;
  using sim::Reg;
  const std::size_t n = u.units.size();
  if (n == 0) throw std::invalid_argument("no weights");
  if (n > kBringmannLarsenMaxItems) throw std::invalid_argument("more than 2^31 - 1 weights: Bringmann-Larsen's slots are 32-bit");
  sim::GlobalMemory mem;
  sim::Warp warp(sim::WarpConfig{.width = width});
  const auto w = static_cast<std::uint64_t>(width);
  const sim::LaneMask full = sim::full_mask(width);
  const auto units = mem.allocate<std::uint64_t>(n);
  mem.upload<std::uint64_t>(units, u.units);
  const auto thresholds = mem.allocate<std::uint64_t>(n);
  const auto starts = mem.allocate<std::uint64_t>(n);
  const std::uint64_t total = u.total;
  auto at = [](const auto& array, const Reg<std::uint64_t>& i, int l) { return array.address + i[l] * 8; };

  // Items: Occ, thresholds, starts.
  Reg<std::uint64_t> index("i"), addr("addr"), unit("u"), thr("t"), occ("occ"), incl("incl"), up("up"), start("start"), carry("carry", 0),
      last("last");
  Reg<bool> in("in");
  for (std::uint64_t base = 0; base < n; base += w) {
    warp.compute(Op::Other, index, [&](int l) { return base + static_cast<std::uint64_t>(l); }, "i <- base + l");
    warp.compute(Op::Compare, in, [&](int l) { return index[l] < n; }, "in <- i < N");
    warp.compute(Op::Other, occ, [&](int) { return std::uint64_t{0}; }, "occ <- 0");
    warp.if_then(in, [&] {
      warp.compute(Op::Other, addr, [&](int l) { return at(units, index, l); }, "addr <- &u[i]");
      warp.load_global(unit, mem, PerLane<std::uint64_t>(addr));
      warp.compute(Op::Other, occ, [&](int l) { return std::uint64_t{occupancy(unit[l], n, total).occ}; }, "occ <- N u / U + 1");
      warp.compute(Op::Other, thr, [&](int l) { return remainder_threshold(occupancy(unit[l], n, total).remainder, total); },
                   "t <- (N u mod U) 2^64 / U");
      warp.compute(Op::Other, addr, [&](int l) { return at(thresholds, index, l); }, "addr <- &t[i]");
      warp.store_global(mem, PerLane<std::uint64_t>(addr), thr);
    });
    warp.mov(incl, PerLane<std::uint64_t>(occ));
    for (int d = 1; d < width; d *= 2) {  // inclusive scan
      warp.shfl_up_sync(up, PerLane<sim::LaneMask>(full), incl, d);
      warp.compute(Op::Add, incl, [&](int l) { return l >= d ? incl[l] + up[l] : incl[l]; }, "incl += lane >= d ? up : 0");
    }
    warp.compute(Op::Add, start, [&](int l) { return carry[l] + incl[l] - occ[l]; }, "start <- carry + incl - occ");
    warp.if_then(in, [&] {
      warp.compute(Op::Other, addr, [&](int l) { return at(starts, index, l); }, "addr <- &start[i]");
      warp.store_global(mem, PerLane<std::uint64_t>(addr), start);
    });
    warp.shfl_sync(last, PerLane<sim::LaneMask>(full), incl, width - 1);
    warp.add(carry, carry, PerLane<std::uint64_t>(last));
  }
  const std::uint64_t slots = carry[0];

  // Words: rank by binary search, bits by walking the starts.
  const std::uint64_t nwords = (slots + 63) / 64;
  const auto words = mem.allocate<RankWord>(static_cast<std::size_t>(nwords));
  Reg<std::uint64_t> word("w"), lo("lo"), hi("hi"), mid("mid"), value("start"), bits("bits"), target("target");
  Reg<bool> go("go");
  Reg<RankWord> out("word");
  auto lower_bound = [&](Reg<std::uint64_t>& result, auto&& target_of) {
    warp.compute(Op::Other, target, [&](int l) { return target_of(l); }, "target");
    warp.compute(Op::Other, lo, [&](int) { return std::uint64_t{0}; }, "lo <- 0");
    warp.compute(Op::Other, hi, [&](int) { return std::uint64_t{n}; }, "hi <- N");
    warp.loop_while(
        go, [&] { warp.compute(Op::Compare, go, [&](int l) { return lo[l] < hi[l]; }, "go <- lo < hi"); },
        [&] {
          warp.compute(Op::Other, mid, [&](int l) { return (lo[l] + hi[l]) / 2; }, "mid <- (lo + hi) / 2");
          warp.compute(Op::Other, addr, [&](int l) { return at(starts, mid, l); }, "addr <- &start[mid]");
          warp.load_global(value, mem, PerLane<std::uint64_t>(addr));
          warp.compute(Op::Select, lo, [&](int l) { return value[l] < target[l] ? mid[l] + 1 : lo[l]; }, "lo <- start < target ? mid + 1 : lo");
          warp.compute(Op::Select, hi, [&](int l) { return value[l] < target[l] ? hi[l] : mid[l]; }, "hi <- start < target ? hi : mid");
        });
    warp.mov(result, PerLane<std::uint64_t>(lo));
  };
  Reg<std::uint64_t> first("first"), end("end");
  for (std::uint64_t base = 0; base < nwords; base += w) {
    warp.compute(Op::Other, word, [&](int l) { return base + static_cast<std::uint64_t>(l); }, "w <- base + l");
    warp.compute(Op::Compare, in, [&](int l) { return word[l] < nwords; }, "in <- w < words");
    warp.if_then(in, [&] {
      lower_bound(first, [&](int l) { return 64 * word[l]; });
      lower_bound(end, [&](int l) { return 64 * word[l] + 64; });
      warp.compute(Op::Other, bits, [&](int) { return std::uint64_t{0}; }, "bits <- 0");
      warp.mov(index, PerLane<std::uint64_t>(first));
      warp.loop_while(
          go, [&] { warp.compute(Op::Compare, go, [&](int l) { return index[l] < end[l]; }, "go <- i < end"); },
          [&] {
            warp.compute(Op::Other, addr, [&](int l) { return at(starts, index, l); }, "addr <- &start[i]");
            warp.load_global(value, mem, PerLane<std::uint64_t>(addr));
            warp.compute(Op::Other, bits, [&](int l) { return bits[l] | std::uint64_t{1} << (value[l] - 64 * word[l]); }, "bits |= 1 << (start - 64 w)");
            warp.compute(Op::Add, index, [&](int l) { return index[l] + 1; }, "i <- i + 1");
          });
      warp.compute(Op::Other, out, [&](int l) { return RankWord{bits[l], static_cast<std::uint32_t>(first[l]), 0}; }, "word <- {bits, rank}");
      warp.compute(Op::Other, addr, [&](int l) { return words.address + word[l] * sizeof(RankWord); }, "addr <- &words[w]");
      warp.store_global(mem, PerLane<std::uint64_t>(addr), out);
    });
  }
  BringmannLarsen s;
  s.n = n;
  s.slots = slots;
  s.capacity = total;
  s.exponent = u.exponent;
  s.words = mem.download(words);
  s.threshold = mem.download(thresholds);
  return s;
}

/// Draws first .. first + count - 1 on one warp of `width` lanes (the
/// registry's oracle entry), in draw order.
inline std::vector<std::uint32_t> draws_on_model(const BringmannLarsen& s, std::uint64_t seed, std::uint64_t first, std::uint64_t count,
                                                 bool cached = false, int width = 32) {
  sim::GlobalMemory mem;
  const auto d = upload(mem, s);
  sim::Warp warp(sim::WarpConfig{.width = width});
  auto r = draw_on_warp(warp, mem, d, seed, {.first = first, .count = count}, cached);
  r.draws.resize(static_cast<std::size_t>(count));
  return r.draws;
}

}  // namespace warpsim::oracle::rejection
