#include "cli/app.hpp"

#include <CLI/CLI.hpp>

#include <new>

#include "cli/demo.hpp"
#include "cli/errors.hpp"
#include "cli/number_file.hpp"
#include "cli/show.hpp"
#include "cli/stats_command.hpp"

namespace warpsim::cli {

namespace {

const char* const kExitCodes =
    "Exit codes: 0 success; 1 the work ran and found a failure (stats: the test rejected); 2 bad usage or input, "
    "including input past a stated limit; 3 an internal error in warpsim (please report it).";

// Refuses what the parser would otherwise let through or echo at length: an
// empty value ("--seed ''" would read as 0 or be skipped), a NUL byte, and an
// argument longer than any path.
void check_arguments(const std::vector<std::string>& args) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.size() > kMaxArgumentChars) {
      throw UsageError("argument " + std::to_string(i + 1) + " ('" + printable(a, 20) + "') is longer than " +
                       std::to_string(kMaxArgumentChars) + " characters");
    }
    if (a.find('\0') != std::string::npos) {
      // A command line cannot hold one; a caller of run_cli can, and the
      // parser would see the argument cut short (empty, even).
      throw UsageError("argument " + std::to_string(i + 1) + " ('" + printable(a, 20) + "') contains a NUL byte");
    }
    if (a.empty()) {
      const bool after_option = i > 0 && args[i - 1].size() > 1 && args[i - 1][0] == '-';
      throw UsageError(after_option ? "an empty value was given to " + printable(args[i - 1]) : "argument " + std::to_string(i + 1) + " is empty");
    }
    if (a.size() > 2 && a.compare(0, 2, "--") == 0 && a.back() == '=') {
      throw UsageError("an empty value was given to " + printable(a.substr(0, a.size() - 1)));
    }
  }
}

std::string show_limits() {
  return "Limits: --k from 1 to " + std::to_string(kShowMaxK) + "; at most " + std::to_string(kShowMaxCells) +
         " cells drawn at once (steps x register rows x lanes: --step all and --format html draw every step); "
         "--weights holds exactly W x K numbers, each finite, non-negative and within fp32's range (the views "
         "compute in fp32).";
}

std::string stats_limits() {
  const NumberLimits files;
  return "Limits: counts are whole numbers from 0 to 2^53 and so is each sample's total (two samples: both "
         "together); at most " +
         std::to_string(stats_max_categories("chi-square")) + " categories (binomial: " +
         std::to_string(stats_max_categories("binomial")) + "); an input file holds at most " +
         std::to_string(files.max_bytes) + " bytes and tokens of at most " + std::to_string(files.max_token_chars) +
         " characters. ks-discrete computes the exact p-value where that takes at most 2e8 steps, else a Monte-Carlo "
         "one (1,000 to 10,000 replicates, 2e7 binomial draws at most), else the conservative DKW-Massart bound; "
         "ks-two-sample is exact up to 2e8 steps, else asymptotic.";
}

int run_parsed(const std::vector<std::string>& args, std::ostream& out, std::ostream& err, const InputSource& inputs) {
  CLI::App app{"warpsim: a lane-accurate GPU warp model, with the seeds' sampling algorithms on it.\n"
               "With no subcommand, runs the demonstration (`warpsim demo`)."};
  app.set_version_flag("--version", std::string("warpsim ") + WARPSIM_VERSION);
  app.require_subcommand(0, 1);
  app.footer(kExitCodes);

  DemoOptions demo;
  auto* demo_cmd = app.add_subcommand("demo", "Register transpose (seed 000, Fig. 2) shown pass by pass");
  demo_cmd->add_option("--lanes,-w", demo.lanes, "warp width W, a power of two from 2 to 64")
      ->check(CLI::IsMember({2, 4, 8, 16, 32, 64}))
      ->capture_default_str();
  demo_cmd->add_option("--format", demo.format, "output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  demo_cmd->add_flag("--trace", demo.trace, "also list every simulated instruction");

  ShowOptions show;
  auto* show_cmd = app.add_subcommand("show", "Show lane/register layouts step by step");
  show_cmd->footer(show_limits());
  show_cmd->add_option("algorithm", show.algorithm, "butterfly | butterfly-search | transpose | prefix")
      ->required()
      ->check(CLI::IsMember({"butterfly", "butterfly-search", "transpose", "prefix"}));
  show_cmd->add_option("--lanes,-w", show.lanes, "warp width W, a power of two from 2 to 64")
      ->check(CLI::IsMember({2, 4, 8, 16, 32, 64}))
      ->capture_default_str();
  show_cmd->add_option("--k", show.k, "weights per distribution, K (default W)")->check(CLI::Range(1, kShowMaxK));
  show_cmd->add_option("--variant", show.variant, "butterfly views: standard (default) or addsub")
      ->check(CLI::IsMember({"standard", "addsub"}));
  show_cmd->add_option("--step", show.step, "which step: N, all or final")->capture_default_str();
  show_cmd->add_option("--highlight", show.highlight, "mark the cells that belong to this lane (0 = A)");
  show_cmd->add_option("--format", show.format, "output format")
      ->check(CLI::IsMember({"text", "svg", "html", "json"}))
      ->capture_default_str();
  auto* weights_opt = show_cmd->add_option("--weights", show.weights_file,
                                           "numeric weights: W x K numbers, lane after lane (CSV or whitespace; - for stdin)");
  show_cmd->add_option("--seed", show.seed, "numeric weights from a generator with this seed")->excludes(weights_opt);

  StatsOptions st;
  auto* stats_cmd = app.add_subcommand("stats", "Test observed category counts against a law, or two samples against each other");
  stats_cmd->footer(stats_limits());
  stats_cmd->add_option("test", st.test, "chi-square | g-test | ks-discrete | binomial | homogeneity | ks-two-sample")
      ->required()
      ->check(CLI::IsMember({"chi-square", "g-test", "ks-discrete", "binomial", "homogeneity", "ks-two-sample"}));
  stats_cmd->add_option("--observed", st.observed, "counts per category (CSV or one a line; - for stdin)")->required();
  stats_cmd->add_option("--probabilities", st.probabilities, "one-sample tests: the law's probabilities, one per category");
  stats_cmd->add_option("--observed2", st.observed2, "two-sample tests: the second sample's counts");
  stats_cmd->add_option("--alpha", st.alpha, "significance level")->check(CLI::Range(1e-12, 1.0 - 1e-12))->capture_default_str();
  stats_cmd->add_option("--format", st.format, "output format")->check(CLI::IsMember({"text", "json"}))->capture_default_str();
  stats_cmd->add_flag("--normalize", st.normalize, "one-sample tests: divide the probabilities by their sum instead of refusing them");
  stats_cmd->add_option("--correction", st.correction, "binomial: multiple-testing correction, holm (default) or bh")
      ->check(CLI::IsMember({"holm", "bh"}));
  stats_cmd->add_option("--target-tv", st.target_tv,
                        "chi-square, g-test: also say how many draws detect this total-variation bias, in (0, 1]");

  std::vector<std::string> argv_strings{"warpsim"};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<const char*> argv;
  for (const auto& a : argv_strings) argv.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e, out, err);
  } catch (const CLI::ParseError& e) {
    err << "warpsim: " << printable(e.what(), 400) << "\nRun 'warpsim --help' for usage.\n";
    return kExitUsage;
  }

  if (*show_cmd) return run_show(show, out, inputs);
  if (*stats_cmd) return run_stats(st, out, inputs);
  return run_demo(demo, out);
}

}  // namespace

int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err, const InputSource& inputs) {
  try {
    check_arguments(args);
    return run_parsed(args, out, err, inputs);
  } catch (const UsageError& e) {
    err << "warpsim: " << e.what() << '\n';
    return kExitUsage;
  } catch (const std::bad_alloc&) {
    err << "warpsim: internal error: out of memory (a limit should have refused this input first; please report it)\n";
    return kExitInternal;
  } catch (const std::exception& e) {
    err << "warpsim: internal error: " << printable(e.what(), 400) << " (please report it)\n";
    return kExitInternal;
  } catch (...) {
    err << "warpsim: internal error: unknown exception (please report it)\n";
    return kExitInternal;
  }
}

}  // namespace warpsim::cli
