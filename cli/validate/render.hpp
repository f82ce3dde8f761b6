// The three views of a validation report: text (for a terminal or a log),
// JSON (for programs: every check, every category's raw and adjusted
// p-values, the mutation score's `killed` and `total`), and one
// self-contained HTML page (observed against expected per category with the
// failing ones marked, the two-level test's p-value histogram, a shrunk
// counterexample drawn as `warpsim show` draws the layout).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "cli/validate/report.hpp"

namespace warpsim::cli::validate {

std::string render_text(const Report& report);
nlohmann::ordered_json render_json(const Report& report);
// `layout_svg`: the counterexample's layout (warpsim show ... --format svg), or "".
std::string render_html(const Report& report, const std::string& layout_svg);

// The categories a view lists when there are many: those rejected, then the
// smallest raw p-values, at most `n`, in index order.
std::vector<std::size_t> categories_to_show(const Law& law, std::size_t n);

}  // namespace warpsim::cli::validate
