// warpsim: inspect the warp model and validate sampling kernels.
#include <CLI/CLI.hpp>

#include <iostream>

#include "cli/demo.hpp"
#include "cli/show.hpp"
#include "cli/stats_command.hpp"
#include "sim/lane_mask.hpp"

namespace {

// Exit codes: 0 success, 1 the work ran and found a failure, 2 bad usage or input.
constexpr int kUsageError = 2;

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"warpsim: a lane-accurate GPU warp model, with the seeds' sampling algorithms on it.\n"
               "With no subcommand, runs the demonstration (`warpsim demo`)."};
  app.set_version_flag("--version", std::string("warpsim ") + WARPSIM_VERSION);
  app.require_subcommand(0, 1);

  warpsim::cli::DemoOptions demo;
  auto* demo_cmd = app.add_subcommand("demo", "Register transpose (seed 000, Fig. 2) shown pass by pass");
  demo_cmd->add_option("--lanes,-w", demo.lanes, "warp width W, a power of two from 2 to 64")
      ->check(CLI::IsMember({2, 4, 8, 16, 32, 64}))
      ->capture_default_str();
  demo_cmd->add_option("--format", demo.format, "output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  demo_cmd->add_flag("--trace", demo.trace, "also list every simulated instruction");

  warpsim::cli::ShowOptions show;
  auto* show_cmd = app.add_subcommand("show", "Show lane/register layouts step by step");
  show_cmd->add_option("algorithm", show.algorithm, "butterfly | butterfly-search | transpose | prefix")
      ->required()
      ->check(CLI::IsMember({"butterfly", "butterfly-search", "transpose", "prefix"}));
  show_cmd->add_option("--lanes,-w", show.lanes, "warp width W, a power of two from 2 to 64")
      ->check(CLI::IsMember({2, 4, 8, 16, 32, 64}))
      ->capture_default_str();
  show_cmd->add_option("--k", show.k, "weights per distribution, K (default W)")->check(CLI::Range(1, 4096));
  show_cmd->add_option("--variant", show.variant, "butterfly variant")
      ->check(CLI::IsMember({"standard", "addsub"}))
      ->capture_default_str();
  show_cmd->add_option("--step", show.step, "which step: N, all or final")->capture_default_str();
  show_cmd->add_option("--highlight", show.highlight, "mark the cells that belong to this lane (0 = A)");
  show_cmd->add_option("--format", show.format, "output format")
      ->check(CLI::IsMember({"text", "svg", "html", "json"}))
      ->capture_default_str();
  auto* weights_opt = show_cmd->add_option("--weights", show.weights_file,
                                           "numeric weights: W x K numbers, lane after lane (CSV or whitespace; - for stdin)");
  show_cmd->add_option("--seed", show.seed, "numeric weights from a generator with this seed")->excludes(weights_opt);

  warpsim::cli::StatsOptions st;
  auto* stats_cmd = app.add_subcommand("stats", "Test observed category counts against a law, or two samples against each other");
  stats_cmd->add_option("test", st.test, "chi-square | g-test | ks-discrete | binomial | homogeneity | ks-two-sample")
      ->required()
      ->check(CLI::IsMember({"chi-square", "g-test", "ks-discrete", "binomial", "homogeneity", "ks-two-sample"}));
  stats_cmd->add_option("--observed", st.observed, "counts per category (CSV or one a line; - for stdin)")->required();
  stats_cmd->add_option("--probabilities", st.probabilities, "the law's probabilities, one per category");
  stats_cmd->add_option("--observed2", st.observed2, "the second sample's counts (two-sample tests)");
  stats_cmd->add_option("--alpha", st.alpha, "significance level")->check(CLI::Range(1e-12, 1.0 - 1e-12))->capture_default_str();
  stats_cmd->add_option("--format", st.format, "output format")->check(CLI::IsMember({"text", "json"}))->capture_default_str();
  stats_cmd->add_flag("--normalize", st.normalize, "divide the probabilities by their sum instead of refusing them");
  stats_cmd->add_option("--correction", st.correction, "binomial: multiple-testing correction")
      ->check(CLI::IsMember({"holm", "bh"}))
      ->capture_default_str();
  stats_cmd->add_option("--target-tv", st.target_tv, "chi-square, g-test: also say how many draws detect this total-variation bias");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "warpsim: " << e.what() << "\nRun 'warpsim --help' for usage.\n";
    return kUsageError;
  }

  try {
    if (*show_cmd) return warpsim::cli::run_show(show, std::cout);
    if (*stats_cmd) return warpsim::cli::run_stats(st, std::cout);
    return warpsim::cli::run_demo(demo, std::cout);
  } catch (const warpsim::cli::UsageError& e) {
    std::cerr << "warpsim: " << e.what() << '\n';
    return kUsageError;
  } catch (const std::exception& e) {
    std::cerr << "warpsim: error: " << e.what() << '\n';
    return 1;
  }
}
