// JSON views of the model's results, for `--format json`.
#pragma once

#include <nlohmann/json.hpp>

#include "sim/counters.hpp"
#include "sim/register_grid.hpp"
#include "sim/trace.hpp"

namespace warpsim::cli {

nlohmann::json to_json(const sim::Counters& c);
nlohmann::json to_json(const sim::TraceStep& s, int width);
nlohmann::json to_json(const sim::RegisterGrid& g);

}  // namespace warpsim::cli
