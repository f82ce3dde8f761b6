#include "python/src/core.hpp"

#include <cctype>
#include <chrono>
#include <utility>

#include "cli/errors.hpp"
#include "cli/input/array_view.hpp"
#include "cli/validate/device.hpp"
#include "cli/validate/files.hpp"
#include "cli/validate/render.hpp"
#include "cli/validate/values.hpp"
#include "stats/power.hpp"

namespace warpsim::python {

namespace {

// The command's messages name its options; from Python they are arguments.
std::string as_python(std::string m) {
  constexpr std::pair<const char*, const char*> names[] = {
      {"--rounded-to", "rounded_to="}, {"--clamp-low", "clamp_low="}, {"--clamp-high", "clamp_high="}, {"--values ", "values "},
      {"--law", "law="},               {"--dtype f64", "dtype='f64'"}, {"--dtype", "dtype="},           {"--uniforms", "uniforms="},
      {"--draws", "draws="},           {"--row-seeds", "row_seeds="}, {"--adds-in-order", "adds_in_order=True"}};
  for (const auto& [cli, py] : names) {
    for (std::size_t at = m.find(cli); at != std::string::npos; at = m.find(cli, at + std::char_traits<char>::length(py))) {
      m.replace(at, std::char_traits<char>::length(cli), py);
    }
  }
  return m;
}

template <class F>
auto translated(F&& f) {
  try {
    return f();
  } catch (const cli::UsageError& e) {
    throw BadInput(as_python(e.what()));
  }
}

cli::ArrayView view_of(const Array& a, const std::string& name) {
  cli::ArrayView v;
  v.data = reinterpret_cast<const void*>(a.data);
  v.shape = a.shape;
  v.device = a.device;
  v.stream = a.stream;
  const std::string& t = a.typestr;
  if (t.size() < 3 || (t[0] != '<' && t[0] != '|' && t[0] != '=') || !std::isdigit(static_cast<unsigned char>(t[2]))) {
    throw BadType("'" + name + "' has type '" + cli::printable(t) + "'; warpsim reads little-endian float32, float64 and integers");
  }
  v.bytes = std::stoi(t.substr(2));
  switch (t[1]) {
    case 'f': v.kind = cli::ElementKind::Float; break;
    case 'i': v.kind = cli::ElementKind::Signed; break;
    case 'u': v.kind = cli::ElementKind::Unsigned; break;
    case 'b': v.kind = cli::ElementKind::Unsigned; break;  // bool: 0 and 1
    default: throw BadType("'" + name + "' has type '" + cli::printable(t) + "'; warpsim reads float32, float64 and integers");
  }
  if (v.kind == cli::ElementKind::Float && v.bytes != 4 && v.bytes != 8) {
    throw BadType("'" + name + "' holds float" + std::to_string(8 * v.bytes) +
                  "; warpsim reads float32 and float64 (bfloat16 and float16 convert to float32 exactly: pass x.float() or "
                  "x.astype(float32), and rounded_to='bf16' or 'f16' for values)");
  }
  return v;
}

}  // namespace

Report::Report(std::shared_ptr<const cli::validate::Report> r) : r_(std::move(r)) {}
bool Report::consistent() const { return r_->consistent(); }
std::string Report::json() const { return cli::validate::render_json(*r_).dump(2); }
std::string Report::summary_json() const {
  cli::validate::Report brief;
  brief.kind = r_->kind;
  brief.subject = r_->subject;
  brief.alpha = r_->alpha;
  brief.checks = r_->checks;
  brief.notes = r_->notes;
  brief.seconds = r_->seconds;
  return cli::validate::render_json(brief).dump();
}
std::string Report::html() const { return cli::validate::render_html(*r_, ""); }
std::string Report::text() const { return cli::validate::render_text(*r_); }

Report validate_draws(const DrawsArgs& a) {
  return translated([&] {
    cli::ViewInputs inputs;
    inputs.arrays["weights"] = view_of(a.weights, "weights");
    inputs.arrays["draws"] = view_of(a.draws, "draws");
    cli::validate::FileOptions o;
    o.weights = "weights";
    o.draws = {"draws"};
    if (a.uniforms) {
      inputs.arrays["uniforms"] = view_of(*a.uniforms, "uniforms");
      o.uniforms = {"uniforms"};
    }
    if (a.row_seeds) {
      inputs.arrays["row_seeds"] = view_of(*a.row_seeds, "row_seeds");
      o.row_seeds = "row_seeds";
    }
    o.dtype = a.dtype;
    o.alpha = a.alpha;
    o.adds_in_order = a.adds_in_order;
    cli::validate::Progress progress(a.progress ? cli::validate::Progress::terminal_stderr() : nullptr);
    const auto t0 = std::chrono::steady_clock::now();
    auto r = std::make_shared<cli::validate::Report>(cli::validate::check_files(inputs, o, progress));
    r->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return Report(std::move(r));
  });
}

Report validate_values(const ValuesArgs& a) {
  return translated([&] {
    cli::ViewInputs inputs;
    inputs.arrays["values"] = view_of(a.values, "values");
    cli::validate::ValuesOptions o;
    o.values = "values";
    o.law = a.law;
    o.alpha = a.alpha;
    o.rounded_to = a.rounded_to;
    o.clamp = {a.clamp_low, a.clamp_high};
    cli::validate::Progress progress(a.progress ? cli::validate::Progress::terminal_stderr() : nullptr);
    const auto t0 = std::chrono::steady_clock::now();
    auto r = std::make_shared<cli::validate::Report>(cli::validate::check_values(inputs, o, progress));
    r->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return Report(std::move(r));
  });
}

double draws_for_total_variation(std::uint64_t k, double alpha, double tv) {
  if (k < 2) throw BadInput("a law of fewer than 2 categories has no total-variation distance to detect");
  if (!(tv > 0 && tv <= 1)) throw BadInput("target_tv must be in (0, 1]");
  if (!(alpha > 0 && alpha < 0.9)) throw BadInput("alpha must be in (0, 0.9)");
  return stats::sample_size_for_total_variation(static_cast<double>(k - 1), alpha / 4, 0.9, tv);
}

bool built_with_cuda() {
#ifdef WARPSIM_PYTHON_CUDA
  return true;
#else
  return false;
#endif
}

std::string device_unavailable() { return cli::validate::device::unavailable(); }

int pointer_device(std::uintptr_t address) {
  return translated([&] { return cli::validate::device::pointer_device(reinterpret_cast<const void*>(address)); });
}

}  // namespace warpsim::python
