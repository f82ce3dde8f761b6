// warpsim_lda_sbc: simulation-based calibration of seed 000's uncollapsed LDA
// Gibbs sampler (properties/lda_sbc.hpp). One run: exit 0 when every
// quantity's ranks are uniform at --test-alpha (calibrated), 1 when one is
// not (not calibrated), 3 when the chain's log-likelihood was still
// drifting, whatever the ranks (inconclusive: raise --burn), 2 on bad
// usage. --seeds N repeats it over seeds 1..N and reports how often it
// said "not calibrated": the false-positive rate (no fault) or the power
// (--fault); and how often "inconclusive".
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <iostream>
#include <map>

#include "properties/lda_sbc.hpp"

int main(int argc, char** argv) {
  using warpsim::properties::LdaSbcFault;
  CLI::App app{"warpsim_lda_sbc: simulation-based calibration of the LDA Gibbs sweep (the oracle's definitions)"};
  warpsim::properties::LdaSbcConfig c;
  std::string fault = "none", format = "text";
  int seeds = 0;
  app.add_option("--documents", c.documents, "documents of the simulated corpora")->check(CLI::Range(1, 10000))->capture_default_str();
  app.add_option("--tokens", c.tokens, "tokens a document")->check(CLI::Range(1, 10000))->capture_default_str();
  app.add_option("--topics", c.topics, "K")->check(CLI::Range(1, 1024))->capture_default_str();
  app.add_option("--vocabulary", c.vocabulary, "V")->check(CLI::Range(1, 100000))->capture_default_str();
  app.add_option("--alpha", c.alpha, "theta's Dirichlet parameter")->check(CLI::Range(1e-3, 1e3))->capture_default_str();
  app.add_option("--beta", c.beta, "phi's Dirichlet parameter")->check(CLI::Range(1e-3, 1e3))->capture_default_str();
  app.add_option("--replications", c.replications, "R: truths drawn from the prior")->check(CLI::Range(1, 1000000))->capture_default_str();
  app.add_option("--draws", c.draws, "L: the chain's draws a replication (ranks 0..L)")->check(CLI::Range(1, 1000))->capture_default_str();
  app.add_option("--thin", c.thin, "sweeps between kept draws")->check(CLI::Range(1, 10000))->capture_default_str();
  app.add_option("--burn", c.burn, "sweeps before the first kept draw")->check(CLI::Range(0, 100000))->capture_default_str();
  app.add_option("--test-alpha", c.test_alpha, "the test's false-positive rate (Bonferroni over the quantities)")->check(CLI::Range(1e-9, 0.5))->capture_default_str();
  app.add_option("--seed", c.seed, "the run's seed")->capture_default_str();
  app.add_option("--fault", fault, "none, theta-count (theta's Dirichlet parameter one count high) or stale-theta (z drawn from the previous sweep's theta)")
      ->check(CLI::IsMember({"none", "theta-count", "stale-theta"}))
      ->capture_default_str();
  std::string on = "host";
  app.add_option("--on", on, "host (the oracle's definitions) or gpu (the kernels)")->check(CLI::IsMember({"host", "gpu"}))->capture_default_str();
  app.add_option("--seeds", seeds, "repeat over seeds 1..N and report the rejection rate")->check(CLI::Range(1, 100000));
  app.add_option("--format", format, "text or json")->check(CLI::IsMember({"text", "json"}))->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  c.fault = fault == "theta-count" ? LdaSbcFault::ThetaCountOffByOne : fault == "stale-theta" ? LdaSbcFault::StaleTheta : LdaSbcFault::None;
  std::unique_ptr<warpsim::properties::LdaSweep> sweep = warpsim::properties::host_lda_sweep();
  if (on == "gpu") {
    std::string why;
    sweep = warpsim::properties::gpu_lda_sweep(&why);
    if (!sweep) {
      std::cerr << "warpsim_lda_sbc: --on gpu: " << why << "\n";
      return 2;
    }
  }
  try {
    if (seeds > 0) {
      int rejected = 0, inconclusive = 0;
      double seconds = 0;
      std::map<std::string, int> by_quantity;
      for (int s = 1; s <= seeds; ++s) {
        c.seed = static_cast<std::uint64_t>(s);
        const auto r = warpsim::properties::run_lda_sbc(c, *sweep);
        rejected += r.verdict == warpsim::properties::LdaSbcVerdict::NotCalibrated ? 1 : 0;
        inconclusive += r.verdict == warpsim::properties::LdaSbcVerdict::Inconclusive ? 1 : 0;
        seconds += r.seconds;
        for (const auto& q : r.quantities) by_quantity[q.name] += q.rejected ? 1 : 0;
        std::cerr << "\rseed " << s << " of " << seeds << ": " << rejected << " not calibrated, " << inconclusive << " inconclusive" << std::flush;
      }
      std::cerr << "\n";
      const double rate = static_cast<double>(rejected) / seeds;
      if (format == "json") {
        nlohmann::json j{{"fault", fault},         {"on", sweep->name()}, {"seeds", seeds},     {"rejected", rejected},
                         {"inconclusive", inconclusive}, {"rate", rate},         {"alpha", c.test_alpha}, {"seconds", seconds},
                         {"by_quantity", by_quantity}};
        std::cout << j.dump(2) << "\n";
      } else {
        std::cout << "fault " << fault << ": not calibrated in " << rejected << " of " << seeds << " seeds (" << rate << ") at alpha " << c.test_alpha
                  << ", inconclusive in " << inconclusive << "; " << seconds << " s\n";
        for (const auto& [name, n] : by_quantity) std::cout << "  " << name << ": " << n << "\n";
      }
      return 0;
    }
    const auto r = warpsim::properties::run_lda_sbc(c, *sweep);
    if (format == "json") {
      nlohmann::json j{{"fault", fault},
                       {"on", sweep->name()},
                       {"ok", r.ok},
                       {"verdict", to_string(r.verdict)},
                       {"drift", r.drift},
                       {"drift_p_value", r.drift_p_value},
                       {"settled", r.settled},
                       {"alpha_each", r.alpha_each},
                       {"seconds", r.seconds},
                       {"quantities", nlohmann::json::array()}};
      for (const auto& q : r.quantities)
        j["quantities"].push_back({{"name", q.name}, {"rank_counts", q.rank_counts}, {"statistic", q.statistic}, {"p_value", q.p_value}, {"rejected", q.rejected}});
      std::cout << j.dump(2) << "\n";
    } else {
      for (const auto& q : r.quantities) {
        std::cout << q.name << ": ranks";
        for (const int n : q.rank_counts) std::cout << " " << n;
        std::cout << "; chi-square " << q.statistic << ", p " << q.p_value << (q.rejected ? " REJECTED" : "") << "\n";
      }
      std::cout << "log-likelihood's drift from the burn-in's end to the kept draws: " << r.drift << " (p " << r.drift_p_value << ")"
                << (r.settled ? "" : " DRIFTING") << "\n";
      std::cout << to_string(r.verdict) << " at alpha " << r.alpha_each << " each (" << r.seconds << " s)"
                << (r.verdict == warpsim::properties::LdaSbcVerdict::Inconclusive ? ": the chain had not reached its stationary law; raise --burn" : "")
                << "\n";
    }
    using warpsim::properties::LdaSbcVerdict;
    return r.verdict == LdaSbcVerdict::Calibrated ? 0 : r.verdict == LdaSbcVerdict::NotCalibrated ? 1 : 3;
  } catch (const std::invalid_argument& e) {
    std::cerr << "warpsim_lda_sbc: " << e.what() << "\n";
    return 2;
  }
}
