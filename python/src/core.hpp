// The Python module's C++ side, apart from Python: what `import warpsim`
// calls, in types of the standard library only. The binding (module.cpp)
// includes this header and pybind11 and nothing else of warpsim's, so that it
// compiles against any Python's headers beside a core built once
// (scripts/device_python.sh builds the device's module that way).
//
//   validate_draws    warpsim validate --weights --draws [--uniforms] [--row-seeds]
//   validate_values   warpsim validate --values --law [--rounded-to] [--clamp-*]
//   Report            what they return: the report, rendered on demand by the
//                     command's own renderers (JSON, HTML, text)
//   samplers          warpsim's own samplers on host or device arrays
//                     (python/src/samplers.hpp)
//
// An array is described, never copied (cli/input/array_view.hpp). Bad input
// throws BadInput (Python: ValueError) or BadType (TypeError).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace warpsim::cli::validate {
struct Report;
}

namespace warpsim::python {

struct BadInput : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};
struct BadType : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// An array in place: its address, NumPy type string ("<i4", "<f8", "|u1"),
// C-contiguous shape, device (-1: host) and the CUDA stream (a cudaStream_t
// as an integer; 0 the legacy default) the caller's work on it is ordered by.
struct Array {
  std::uintptr_t data = 0;
  std::string typestr;
  std::vector<std::uint64_t> shape;
  int device = -1;
  std::uintptr_t stream = 0;
};

class Report {
 public:
  explicit Report(std::shared_ptr<const cli::validate::Report> r);
  bool consistent() const;
  std::string json() const;  // `warpsim validate --format json`
  // The same without the laws' categories and the rows' view (what a
  // Report's checks are made from: a vocabulary's 10^5 categories made the
  // whole JSON the larger part of a call).
  std::string summary_json() const;
  std::string html() const;  // `--format html`
  std::string text() const;  // the terminal's report

 private:
  std::shared_ptr<const cli::validate::Report> r_;
};

struct DrawsArgs {
  Array weights, draws;
  std::optional<Array> uniforms, row_seeds;
  double alpha = 1e-3;
  std::optional<std::string> dtype;  // "f32" | "f64": where the weights' type does not say
  bool adds_in_order = false;
  bool progress = false;             // a progress line on standard error, where it is a terminal
};
Report validate_draws(const DrawsArgs& args);

struct ValuesArgs {
  Array values;
  std::string law;
  double alpha = 1e-3;
  std::optional<std::string> rounded_to, clamp_low, clamp_high;
  bool progress = false;
};
Report validate_values(const ValuesArgs& args);

// The draws a report's chi-square needs to detect, with power 0.9, any law at
// total-variation distance >= tv from K categories' (stats/power.hpp), at the
// level each of a report's four law checks has (alpha / 4).
double draws_for_total_variation(std::uint64_t k, double alpha, double tv);

// Whether this build has CUDA, and "" if a device can be used, else why not.
bool built_with_cuda();
std::string device_unavailable();
// The CUDA device an address lies on, or -1 for host memory (pageable or
// pinned); BadInput where CUDA cannot say.
int pointer_device(std::uintptr_t address);

}  // namespace warpsim::python
