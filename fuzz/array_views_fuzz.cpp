// Fuzz target: arrays in memory (cli/input/array_view.hpp), the way the
// Python package's validate hands NumPy arrays to the validate core: any
// element type, shape and contents for the weights and the draws (and
// optionally uniforms), or for a continuous law's values.
//
// Input: a header of 8 bytes -- [0] the path (0-2: draws, 3: draws with
// uniforms, 4-7: values), [1] the weights' (or values') type, [2] the
// draws' type, [3..6] dimensions (0 to 7; a type byte's high bits choose 0,
// 1 or 2 of them), [7] the law for values -- then the bytes the arrays
// hold, in order, zero-padded.
//
// Checks: a report or a UsageError, nothing else; messages printable.
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "cli/errors.hpp"
#include "cli/input/array_view.hpp"
#include "cli/validate/files.hpp"
#include "cli/validate/render.hpp"
#include "cli/validate/values.hpp"
#include "fuzz/fuzz_contract.hpp"

namespace {

using warpsim::cli::ElementKind;

struct Type {
  ElementKind kind;
  int bytes;
};
constexpr Type kTypes[] = {{ElementKind::Float, 8}, {ElementKind::Float, 4}, {ElementKind::Signed, 4}, {ElementKind::Signed, 8},
                           {ElementKind::Unsigned, 1}, {ElementKind::Signed, 2}, {ElementKind::Unsigned, 8}, {ElementKind::Float, 2}};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace warpsim;
  if (size < 8) return 0;
  const int path = data[0] & 7;
  auto shape = [&](std::uint8_t t, std::uint8_t a, std::uint8_t b) {
    std::vector<std::uint64_t> s;
    const int dims = (t >> 3) % 3;
    if (dims >= 1) s.push_back(a % 8);
    if (dims >= 2) s.push_back(b % 8);
    return s;
  };
  // Arrays live in one zero-padded buffer, aligned for 8-byte elements.
  std::vector<std::uint64_t> storage(64 + size / 8 + 1, 0);
  std::memcpy(storage.data(), data + 8, size - 8);
  auto* bytes = reinterpret_cast<unsigned char*>(storage.data());
  std::size_t used = 0;
  auto view = [&](std::uint8_t t, std::vector<std::uint64_t> s) {
    cli::ArrayView v;
    v.kind = kTypes[t & 7].kind;
    v.bytes = kTypes[t & 7].bytes;
    v.shape = std::move(s);
    v.data = bytes + used;
    used += (v.elements() * static_cast<std::uint64_t>(v.bytes) + 7) / 8 * 8;
    if (used > storage.size() * 8) return std::optional<cli::ArrayView>();
    return std::optional<cli::ArrayView>(v);
  };
  cli::ViewInputs inputs;
  cli::validate::Progress quiet;
  try {
    cli::validate::Report report;
    if (path < 4) {
      auto w = view(data[1], shape(data[1], data[3], data[4]));
      auto d = view(data[2], shape(data[2], data[5], data[6]));
      if (!w || !d) return 0;
      inputs.arrays["weights"] = *w;
      inputs.arrays["draws"] = *d;
      cli::validate::FileOptions o;
      o.weights = "weights";
      o.draws = {"draws"};
      if (path == 3) {
        auto u = view(data[1] & ~7, d->shape);  // float64, shaped as the draws
        if (!u) return 0;
        inputs.arrays["uniforms"] = *u;
        o.uniforms = {"uniforms"};
      }
      report = cli::validate::check_files(inputs, o, quiet);
    } else {
      auto x = view(data[1], shape(data[1], data[3], data[4]));
      if (!x) return 0;
      inputs.arrays["values"] = *x;
      constexpr const char* laws[] = {"normal:0,1", "gamma:0.5,1", "beta:2,3", "uniform:0,1"};
      cli::validate::ValuesOptions o;
      o.values = "values";
      o.law = laws[data[7] & 3];
      report = cli::validate::check_values(inputs, o, quiet);
    }
    fuzz::expect_printable(cli::validate::render_json(report).dump(), "report");
  } catch (const cli::UsageError& e) {
    fuzz::expect_printable(e.what(), "message");
  }
  return 0;
}
