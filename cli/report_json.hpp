// JSON views of the model's results, for `--format json`.
#pragma once

#include <nlohmann/json.hpp>

#include "sim/counters.hpp"
#include "sim/register_grid.hpp"
#include "sim/trace.hpp"
#include "stats/test_result.hpp"

namespace warpsim::cli {

nlohmann::json to_json(const sim::Counters& c);
nlohmann::json to_json(const sim::TraceStep& s, int width);
nlohmann::json to_json(const sim::RegisterGrid& g);
// A statistical test's result: statistic, df, p-value, alpha, verdict, sample
// size, the bias a pass rules out, notes (stats and validate both print it).
nlohmann::json to_json(const stats::TestResult& r);

}  // namespace warpsim::cli
