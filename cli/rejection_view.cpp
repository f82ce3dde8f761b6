#include "cli/rejection_view.hpp"

#include <cstdio>
#include <stdexcept>
#include <string>

#include "cli/errors.hpp"
#include "oracle/alias/units.hpp"
#include "oracle/rejection/bringmann_larsen.hpp"

namespace warpsim::cli {

Layout rejection_layout(const std::vector<double>& weights, int lanes, bool cached, std::uint64_t seed, int calls) {
  namespace bl = oracle::rejection;
  if (weights.size() > kRejectionViewMaxItems) {
    throw UsageError("show rejection draws at most " + std::to_string(kRejectionViewMaxItems) + " items; the weights hold " +
                     std::to_string(weights.size()));
  }
  if (calls < 1 || calls > 16) throw UsageError("--calls must lie in [1, 16]");
  oracle::alias::Units u;
  try {
    u = oracle::alias::to_units<double>(weights);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("the weights: ") + e.what());
  }
  const bl::BringmannLarsen s = bl::build(u);
  sim::GlobalMemory mem;
  const auto dev = bl::upload(mem, s);
  sim::Warp warp({.width = lanes});
  std::vector<bl::Attempt> seen;
  const bl::WarpTasks tasks{0, static_cast<std::uint64_t>(calls) * static_cast<std::uint64_t>(lanes), 0, 0};
  const auto run = bl::draw_on_warp(warp, mem, dev, seed, tasks, cached, [&](const bl::Attempt& a) {
    if (seen.size() >= static_cast<std::size_t>(kRejectionViewMaxIterations) * static_cast<std::size_t>(lanes))
      throw UsageError("this run takes more than " + std::to_string(kRejectionViewMaxIterations) + " iterations; show fewer --calls");
    seen.push_back(a);
  });
  const int columns = static_cast<int>(seen.size()) / lanes;

  Layout layout;
  char acc[32];
  std::snprintf(acc, sizeof acc, "%.3g", s.acceptance());
  layout.algorithm = std::string("Bringmann-Larsen rejection sampling on a warp of ") + std::to_string(lanes) + " lanes, " +
                     (cached ? "pre-cached" : "uncached") + " (seed 001 Sec. 2.8, seed 004; bringmann_larsen.hpp on the warp model)";
  layout.lanes = columns;
  layout.owners = static_cast<int>(s.n);
  for (int l = 0; l < lanes; ++l) layout.row_labels.push_back(std::string("lane ") + std::to_string(l));
  for (int c = 0; c < columns; ++c) {
    const auto& a = seen[static_cast<std::size_t>(c) * static_cast<std::size_t>(lanes)];
    layout.column_labels.push_back(std::to_string(a.call) + "." + std::to_string(a.iteration));
  }
  Frame f;
  f.grid.assign(static_cast<std::size_t>(lanes), std::vector<std::string>(static_cast<std::size_t>(columns), ""));
  f.owner.assign(static_cast<std::size_t>(lanes), std::vector<int>(static_cast<std::size_t>(columns), -1));
  f.title = "A holds item i Occ_i = floor(N w_i / W) + 1 times: " + std::to_string(s.n) + " items, M = " + std::to_string(s.slots) +
            " slots, kept as a bit array of " + std::to_string(s.words.size()) + " words with their ranks; an attempt is accepted with "
            "probability N / M = " + acc + "; columns: call.iteration";
  std::vector<Frame> frames{f};
  for (int c = 0; c < columns; ++c) {
    f.changed.clear();
    int working = 0, ahead = 0, accepted = 0;
    std::uint64_t call = 0;
    for (int l = 0; l < lanes; ++l) {
      const auto& a = seen[static_cast<std::size_t>(c) * static_cast<std::size_t>(lanes) + static_cast<std::size_t>(l)];
      call = a.call;
      std::string text = ".";
      int owner = -1;
      if (a.role != bl::LaneRole::Idle) {
        ++working;
        ahead += a.role == bl::LaneRole::Next;
        accepted += a.accepted;
        text = std::string(a.role == bl::LaneRole::Next ? "+" : "") + "k" + std::to_string(a.slot) + " i" + std::to_string(a.item) +
               (a.first ? " 1st" : "") + (a.accepted ? " ok" : " rej");
        owner = static_cast<int>(a.item);
      }
      f.grid[static_cast<std::size_t>(l)][static_cast<std::size_t>(c)] = text;
      f.owner[static_cast<std::size_t>(l)][static_cast<std::size_t>(c)] = owner;
      f.changed.insert({l, c});
    }
    f.title = "call " + std::to_string(call) + ", iteration " + std::to_string(seen[static_cast<std::size_t>(c) * lanes].iteration) + ": " +
              std::to_string(working) + " of " + std::to_string(lanes) + " lanes attempt" + (cached ? " (" + std::to_string(ahead) + " for the next call's draw)" : "") +
              ", " + std::to_string(lanes - working) + " idle, " + std::to_string(accepted) + " accepted" +
              " (k: the slot; i: its item, rank + popcount of the word's bits up to k - 1; 1st: the item's first slot, kept only below "
              "its threshold)";
    const bool last_of_call = c + 1 == columns || seen[static_cast<std::size_t>(c + 1) * lanes].call != call;
    if (last_of_call) {
      f.title += "; call " + std::to_string(call) + " draws";
      for (int l = 0; l < lanes; ++l)
        f.title += " " + std::to_string(run.draws[static_cast<std::size_t>(call) * static_cast<std::size_t>(lanes) + static_cast<std::size_t>(l)]);
    }
    frames.push_back(f);
  }
  for (std::size_t s2 = 0; s2 < frames.size(); ++s2) frames[s2].step = static_cast<int>(s2);
  layout.steps = static_cast<int>(frames.size());
  layout.frames = std::move(frames);
  return layout;
}

}  // namespace warpsim::cli
