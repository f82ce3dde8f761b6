#include "cli/app.hpp"

#include <CLI/CLI.hpp>

#include <unistd.h>

#include <iostream>
#include <new>

#include "cli/alias_command.hpp"
#include "cli/demo_command.hpp"
#include "cli/errors.hpp"
#include "cli/rejection_command.hpp"
#include "cli/sample_command.hpp"
#include "cli/show_command.hpp"
#include "cli/stats_command.hpp"
#include "cli/validate/progress.hpp"
#include "cli/validate_command.hpp"

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

// Whether `out` is the process's standard output on a terminal (colour's "auto").
bool is_terminal(const std::ostream& out) { return &out == &std::cout && ::isatty(STDOUT_FILENO) == 1; }

int run_parsed(const std::vector<std::string>& args, std::ostream& out, std::ostream& err, const InputSource& inputs) {
  CLI::App app{"warpsim: a lane-accurate GPU warp model, with the seeds' sampling algorithms on it.\n"
               "With no subcommand, runs the demonstration (`warpsim demo`)."};
  app.set_version_flag("--version", std::string("warpsim ") + WARPSIM_VERSION);
  app.require_subcommand(0, 1);
  app.footer(kExitCodes);

  DemoOptions demo;
  ShowOptions show;
  StatsOptions st;
  add_demo_command(app, demo);
  CLI::App* show_cmd = add_show_command(app, show);
  CLI::App* stats_cmd = add_stats_command(app, st);
  ValidateOptions val;
  CLI::App* validate_cmd = add_validate_command(app, val);
  AliasOptions al;
  CLI::App* alias_cmd = add_alias_command(app, al);
  RejectionOptions rej;
  CLI::App* rejection_cmd = add_rejection_command(app, rej);
  SampleOptions smp;
  CLI::App* sample_cmd = add_sample_command(app, smp);

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

  if (*show_cmd) {
    show.colour = show.colour_when == "always" || (show.colour_when == "auto" && is_terminal(out));
    return run_show(show, out, inputs);
  }
  if (*stats_cmd) return run_stats(st, out, inputs);
  if (*alias_cmd) return run_alias(al, out, inputs);
  if (*rejection_cmd) return run_rejection(rej, out);
  if (*sample_cmd) return run_sample(smp, out, inputs);
  if (*validate_cmd) {
    std::ostream* progress = val.progress == "always" ? &err
                             : val.progress == "auto" && &err == &std::cerr ? validate::Progress::terminal_stderr()
                                                                            : nullptr;
    return run_validate(val, out, inputs, progress);
  }
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
