// cli/validate/relay.hpp: a worker's Communicator relays every operation to
// its parent, which performs it on its own (here this process alone, as
// without mpirun) and answers; the worker reports what it got.
#include "cli/validate/relay.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <sstream>
#include <vector>

#include "cli/errors.hpp"

namespace warpsim::cli::validate {
namespace {

TEST(Relay, EveryOperationIsThePartsAndItsAnswerComesBack) {
  std::optional<dist::Communicator> comm;
  const Channel channel = relay_channel(comm);
  const auto r = run_in_worker(
      [&](std::ostream& out) {
        std::vector<std::uint64_t> v{1, 2, std::uint64_t{1} << 63};
        comm->sum(v);
        const auto all = comm->gather("text of rank " + std::to_string(comm->rank()));
        out << comm->rank() << " " << comm->size() << " " << comm->describe() << " | " << v[0] << " " << v[1] << " " << v[2] << " | "
            << comm->max(2.5) << " " << comm->broadcast(7) << " | " << all.size() << " " << all[0];
        return 0;
      },
      "the relay test", 60, &channel);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.output, "0 1 one process | 1 2 9223372036854775808 | 2.5 7 | 1 text of rank 0");
}

TEST(Relay, AWorkersUsageErrorComesBackAsOne) {
  std::optional<dist::Communicator> comm;
  const Channel channel = relay_channel(comm);
  EXPECT_THROW(run_in_worker(
                   [&](std::ostream&) -> int {
                     (void)comm->max(1.0);
                     throw UsageError("bad share");
                   },
                   "the relay test", 60, &channel),
               UsageError);
}

}  // namespace
}  // namespace warpsim::cli::validate
