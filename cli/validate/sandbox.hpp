// A plugin's code runs where it cannot decide the outcome: `warpsim validate
// --plugin` forks a worker that loads the plugin, runs every check and
// renders the report, and sends back only the report and its exit code
// through a pipe. The parent waits, with a time limit. However the worker
// ends other than by sending its report (the plugin calls exit(0) or
// _exit(n), raises SIGKILL, spins or sleeps past the limit), the parent
// reports it, naming the plugin, the call in flight and what happened, and
// exits 2: nothing the plugin does can make warpsim exit 0 without a report.
//
// The threat is control of the process, not forged counts: a plugin shares
// the worker's memory and could write a false report into the pipe; that is
// a sampler lying about itself, which no checker of its own draws prevents.
//
// The worker forks before anything touches CUDA (a CUDA context does not
// survive fork), so device plugins run in it as before, and before MPI
// starts: under mpirun it reaches the other ranks through its parent
// (Channel, below; cli/validate/relay.hpp).
#pragma once

#include <functional>
#include <ostream>
#include <string>

namespace warpsim::cli::validate {

struct SandboxOutcome {
  int exit_code = 0;   // the worker's: 0 consistent, 1 inconsistent
  std::string output;  // the report as rendered
};

// A second pair of pipes between the worker and its parent, for what only
// the parent may do: under mpirun, the collective operations (the worker is
// forked before MPI starts, and is no MPI process; cli/validate/relay.hpp).
// In the worker, `worker_end` gets its two ends before `work` runs; in the
// parent, `serve` runs whenever the worker has written to it, reads one
// whole request and writes the answer; false where the request could not be
// read (the worker is gone: it is then reported as any worker that ends
// without its report).
struct Channel {
  std::function<void(int to_parent, int from_parent)> worker_end;
  std::function<bool(int from_worker, int to_worker)> serve;
};

// Runs `work` (which writes the report to its stream and returns the exit
// code; a UsageError it throws is sent back and thrown again here) in a
// worker process. Throws UsageError, naming `who` ("plugin 'x'"), where the
// worker ends without sending its report or runs past `seconds`.
SandboxOutcome run_in_worker(const std::function<int(std::ostream&)>& work, const std::string& who, double seconds,
                             const Channel* channel = nullptr);

// In the worker: the plugin call now in flight ("" between calls), which the
// parent names if the worker ends there. A no-op outside a worker.
void note_call(const std::string& what);

}  // namespace warpsim::cli::validate
