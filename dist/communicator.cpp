#include "dist/communicator.hpp"

#include <algorithm>
#include <cstdlib>
#include <iostream>

#include "dist/communicator_impl.hpp"

namespace warpsim::dist {

namespace {

struct Alone final : Communicator::Impl {
  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::string describe() const override { return "one process"; }
  void sum(std::span<std::uint64_t>) const override {}
  double max(double value) const override { return value; }
  int broadcast(int value) const override { return value; }
  std::vector<std::string> gather(const std::string& text) const override { return {text}; }
  [[noreturn]] void abort(int exit_code, const std::string& message) const override {
    std::cerr << "warpsim: " << message << "\n";
    std::cerr.flush();
    std::exit(exit_code);
  }
};

}  // namespace

Communicator::Communicator(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

Communicator Communicator::self() { return Communicator(std::make_shared<Alone>()); }

Communicator& Communicator::world() {
  static Communicator w = [] {
#ifdef WARPSIM_HAVE_MPI
    if (launched_by_mpirun()) return Communicator(mpi_world());
#endif
    return self();
  }();
  return w;
}

int Communicator::rank() const { return impl_->rank(); }
int Communicator::size() const { return impl_->size(); }
std::string Communicator::describe() const { return impl_->describe(); }
void Communicator::sum(std::span<std::uint64_t> values) const { impl_->sum(values); }
double Communicator::max(double value) const { return impl_->max(value); }
int Communicator::broadcast(int value) const { return impl_->broadcast(value); }
std::vector<std::string> Communicator::gather(const std::string& text) const { return impl_->gather(text); }
void Communicator::abort(int exit_code, const std::string& message) const {
  impl_->abort(exit_code, message);
  std::_Exit(exit_code);  // (Impl::abort does not return)
}

bool built_with_mpi() {
#ifdef WARPSIM_HAVE_MPI
  return true;
#else
  return false;
#endif
}

bool launched_by_mpirun() {
  // Open MPI's launcher sets OMPI_COMM_WORLD_SIZE; PMIx and PMI launchers
  // (srun, Hydra) set PMIX_RANK or PMI_RANK.
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK"})
    if (std::getenv(v)) return true;
  return false;
}

int local_rank() {
  for (const char* v : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"}) {
    const char* x = std::getenv(v);
    if (!x || !*x) continue;
    char* end = nullptr;
    const long r = std::strtol(x, &end, 10);
    if (*end == '\0' && r >= 0 && r < (1L << 20)) return static_cast<int>(r);
  }
  return -1;
}

Share share_of(std::uint64_t n, std::uint64_t chunk, int rank, int ranks) {
  if (chunk == 0 || ranks <= 0 || rank < 0 || rank >= ranks) return {};
  const std::uint64_t chunks = n / chunk + (n % chunk != 0 ? 1 : 0);
  const auto r = static_cast<std::uint64_t>(rank), big = static_cast<std::uint64_t>(ranks);
  const std::uint64_t each = chunks / big, extra = chunks % big;  // the first `extra` ranks take one more
  const std::uint64_t first_chunk = r * each + std::min(r, extra);
  const std::uint64_t own = each + (r < extra ? 1 : 0);
  Share s;
  s.first = std::min(n, first_chunk * chunk);
  s.count = std::min(n, (first_chunk + own) * chunk) - s.first;
  return s;
}

}  // namespace warpsim::dist
