#include "cli/report_json.hpp"

#include <cmath>

#include "sim/lane_mask.hpp"

namespace warpsim::cli {

namespace {

nlohmann::json optional_json(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

}  // namespace

nlohmann::json to_json(const stats::TestResult& r) {
  return {{"test", r.test},
          {"statistic", std::isfinite(r.statistic) ? nlohmann::json(r.statistic) : nlohmann::json("inf")},
          {"df", optional_json(r.df)},
          {"p_value", r.p_value},
          {"p_value_standard_error", optional_json(r.p_value_standard_error)},
          {"p_value_method", r.p_value_method},
          {"alpha", r.alpha},
          {"reject", r.reject},
          {"sample_size", r.sample_size},
          {"detectable_bias",
           {{"power", r.detectable.power},
            {"total_variation", optional_json(r.detectable.total_variation)},
            {"max_relative_error", optional_json(r.detectable.max_relative_error)},
            {"kolmogorov_distance", optional_json(r.detectable.kolmogorov_distance)},
            {"mean_shift", optional_json(r.detectable.mean_shift)},
            {"basis", r.detectable.basis}}},
          {"notes", r.notes}};
}


nlohmann::json to_json(const sim::Counters& c) {
  nlohmann::json by_kind = nlohmann::json::object();
  for (std::size_t i = 0; i < sim::kOpCount; ++i) {
    if (c.instructions[i] != 0) by_kind[sim::op_name(static_cast<sim::Op>(i))] = c.instructions[i];
  }
  return {
      {"instructions", c.total_instructions()},
      {"instructions_by_kind", by_kind},
      {"lane_operations", c.lane_operations},
      {"shuffles", c.shuffles()},
      {"votes", c.votes()},
      {"loads", c.loads()},
      {"stores", c.stores()},
      {"global_requests", c.global_requests},
      {"global_sectors", c.global_sectors},
      {"global_load_sectors", c.global_load_sectors},
      {"global_lines", c.global_lines},
      {"global_bytes", c.global_bytes},
      {"shared_requests", c.shared_requests},
      {"shared_wavefronts", c.shared_wavefronts},
      {"shared_bank_conflicts", c.shared_bank_conflicts},
      {"divergent_branches", c.divergent_branches},
      {"loop_iterations", c.loop_iterations},
  };
}

nlohmann::json to_json(const sim::TraceStep& s, int width) {
  nlohmann::json changes = nlohmann::json::array();
  for (const auto& rc : s.changes) {
    nlohmann::json lanes = nlohmann::json::array();
    for (const auto& lc : rc.lanes) lanes.push_back({{"lane", lc.lane}, {"before", lc.before}, {"after", lc.after}});
    changes.push_back({{"register", rc.reg}, {"lanes", lanes}});
  }
  return {{"step", s.step},
          {"op", sim::op_name(s.op)},
          {"label", s.label},
          {"active", sim::format_mask(s.active, width)},
          {"changes", changes},
          {"note", s.note}};
}

nlohmann::json to_json(const sim::RegisterGrid& g) { return g; }

}  // namespace warpsim::cli
