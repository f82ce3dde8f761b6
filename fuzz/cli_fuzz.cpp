// Fuzz target: the whole `warpsim` command line, in-process.
//
// The input is text in sections separated by lines "@@". With the target's
// fixed arguments (warpsim_fuzz_args, a one-line source fuzz/CMakeLists.txt
// writes for each target) empty, the first section is the argument list (one
// argument a line) and the rest are the files @1, @2, ...; otherwise they fix
// the arguments (separated by spaces) and every section is a file, except
// where they hold "%1", "%2", ...: those take the first section's lines
// (fuzzed option values) and the files follow. Files are held in memory
// (cli::MemoryInputs): nothing touches the disk or standard input.
//
// Beyond crashes, sanitizer reports and timeouts, it checks the CLI's
// contract: the exit code is 0, 1 or 2 (3 is an internal error: a bug); exit 2
// comes with a message; messages are printable; a JSON report parses, its
// p-value lies in [0, 1], and exit 1 means exactly that the test rejected.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "cli/app.hpp"
#include "cli/input/sources.hpp"
#include "fuzz/fuzz_contract.hpp"

// The target's fixed arguments (fuzz/CMakeLists.txt, warpsim_fuzz_cli).
extern const char* const warpsim_fuzz_args;

namespace {

using warpsim::fuzz::expect_printable;
using warpsim::fuzz::violated;

std::vector<std::string> split(std::string_view text, std::string_view separator) {
  std::vector<std::string> parts;
  for (;;) {
    const auto at = text.find(separator);
    if (at == std::string_view::npos) break;
    parts.emplace_back(text.substr(0, at));
    text.remove_prefix(at + separator.size());
  }
  parts.emplace_back(text);
  return parts;
}

bool has_pair(const std::vector<std::string>& args, std::string_view option, std::string_view value) {
  for (std::size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == option && args[i + 1] == value) return true;
  return false;
}

void check_contract(const std::vector<std::string>& args, int rc, const std::string& out, const std::string& err) {
  if (rc == 3) violated("internal error (exit 3)", err);
  if (rc != 0 && rc != 1 && rc != 2) violated("exit code " + std::to_string(rc), err);
  expect_printable(err, "stderr");
  if (rc == 2) {
    if (err.rfind("warpsim: ", 0) != 0) violated("exit 2 without a message", err);
    return;
  }
  // The subcommand may follow options or "--" (CLI11 still reads it there).
  const auto has = [&](const char* word) { return std::find(args.begin(), args.end(), word) != args.end(); };
  const bool stats = has("stats"), validate = has("validate");
  if (rc == 1 && !stats && !validate && !has("demo")) violated("exit 1 from a command that judges nothing", err);
  // Help and version (CLI11 also takes -h inside a group of short flags, "-hx").
  if (rc == 0 && (out.rfind("warpsim ", 0) == 0 || out.find("Usage: ") != std::string::npos)) return;
  if (has_pair(args, "--format", "json")) {
    const auto doc = nlohmann::json::parse(out, nullptr, false);
    if (doc.is_discarded()) violated("--format json printed no JSON", out);
    if (stats) {
      const double p = doc.at("p_value").get<double>();
      if (!(p >= 0 && p <= 1)) violated("p-value outside [0, 1]", out);
      if (doc.at("reject").get<bool>() != (rc == 1)) violated("exit code disagrees with the verdict", out);
    }
    if (validate && doc.contains("verdict") && (doc.at("verdict").get<std::string>() == "inconsistent") != (rc == 1)) {
      violated("exit code disagrees with the validate verdict", out);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto sections = split(text, "\n@@\n");
  std::vector<std::string> args;
  std::size_t first_file = 0;
  const std::string_view fixed = warpsim_fuzz_args;
  if (fixed.empty()) {
    args = split(sections[0], "\n");
    if (args.size() == 1 && args[0].empty()) args.clear();
    first_file = 1;
  } else {
    args = split(fixed, " ");
    // "%1", "%2", ... in the fixed arguments: the first section's lines
    // (option values, fuzzed); the files are then the sections after it.
    if (fixed.find('%') != std::string_view::npos) {
      const auto values = split(sections[0], "\n");
      for (auto& a : args) {
        if (a.size() >= 2 && a[0] == '%') {
          const auto at = static_cast<std::size_t>(std::strtoul(a.c_str() + 1, nullptr, 10));
          a = at >= 1 && at <= values.size() ? values[at - 1] : std::string();
        }
      }
      first_file = 1;
    }
  }
  warpsim::cli::MemoryInputs inputs;
  for (std::size_t i = first_file; i < sections.size(); ++i) {
    std::string name(1, '@');
    name += std::to_string(i - first_file + 1);
    inputs.files[name] = sections[i];
  }
  // What reaches outside the process is not fuzzed: loading a library
  // (--plugin), writing a file (--counterexample), drawing on the terminal
  // (--progress always writes control sequences, by design).
  for (const auto& a : args) {
    if (a.rfind("--plugin", 0) == 0 || a.rfind("--counterexample", 0) == 0 || a.rfind("--progress", 0) == 0) {
      if (fixed.empty()) return 0;
    }
  }
  std::ostringstream out, err;
  const int rc = warpsim::cli::run_cli(args, out, err, inputs);
  check_contract(args, rc, out.str(), err.str());
  return 0;
}
