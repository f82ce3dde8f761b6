// `warpsim alias sharded`: an alias table over weights no process holds
// whole (dist/alias.hpp): each of mpirun's ranks reads its slice of --weights
// (or makes its slice of --generate N from --seed), builds its shard's table
// at the whole's unit, makes its share of --draws, and the whole's law is
// checked in parts. One process without mpirun: one shard.
#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unistd.h>

#include "cli/alias_command.hpp"
#include "cli/alias_sharded_device.hpp"
#include "cli/errors.hpp"
#include "cli/generated_weights.hpp"
#include "cli/input/arrays.hpp"
#include "dist/alias.hpp"

namespace warpsim::cli {

namespace {

// A host shard of n items holds about 44 bytes an item at its peak (the
// weights, their units, the table's keep and alias, the counts, and the
// read buffer's share): refused, saying so, where that passes this host's
// physical memory, before anything is allocated.
void refuse_beyond_memory(std::uint64_t n, const dist::Communicator& comm) {
  constexpr std::uint64_t kBytesAnItem = 44;
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return;
  const auto physical = static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page);
  if (n <= physical / kBytesAnItem) return;
  throw UsageError("this rank's shard of " + std::to_string(n) + " items needs about " + std::to_string(n * kBytesAnItem) +
                   " bytes of host memory; this host has " + std::to_string(physical) + ": run more ranks (mpirun -np R" +
                   (comm.size() > 1 ? ", now " + std::to_string(comm.size()) : std::string()) + ") or --on gpu");
}

// This rank's slice [first, first + count) of the weights in `path`, read in
// a stream (the rest passed over, not held).
std::vector<double> read_slice(const InputSource& inputs, const std::string& path, const dist::Communicator& comm, std::uint64_t& total) {
  auto a = open_array(inputs, path);
  if (!a->info().npy) {  // text: the length first
    std::vector<double> v(1 << 16);
    std::vector<std::uint64_t> rows(v.size());
    total = 0;
    while (const std::size_t n = a->read(v, rows)) total += n;
    a = open_array(inputs, path);
  } else {
    const auto& shape = a->info().shape;
    if (shape.size() != 1) throw UsageError(a->info().quoted + ": sharded weights are one distribution, a 1-D array");
    total = shape[0];
  }
  const dist::Share s = dist::share_of(total, 1, comm.rank(), comm.size());
  refuse_beyond_memory(s.count, comm);
  std::vector<double> mine;
  mine.reserve(s.count);
  std::vector<double> v(1 << 16);
  std::vector<std::uint64_t> rows(v.size());
  std::uint64_t at = 0;
  while (const std::size_t n = a->read(v, rows)) {
    for (std::size_t i = 0; i < n; ++i, ++at)
      if (at >= s.first && at < s.first + s.count) mine.push_back(v[i]);
  }
  return mine;
}

// --on gpu: shards of --piece-items on each rank's GPU (cli/alias_sharded_device.hpp).
int sharded_on_gpu(const AliasOptions& o, std::ostream& out, const dist::Communicator& comm) {
  if (!o.generate) throw UsageError("alias sharded --on gpu makes its weights on the GPUs: it takes --generate N (not --weights)");
  if (o.method != "sweep" || o.splits || o.group || o.lanes || o.counters || o.device || o.dtype) {
    throw UsageError("alias sharded builds each shard by PSA: --method, --splits, --group, --lanes, --counters, --device and --dtype do not apply");
  }
  const auto t0 = std::chrono::steady_clock::now();
  const std::uint64_t n = o.draws.value_or(0);
  const GpuShardedRun r = run_sharded_on_gpu(comm, *o.generate, o.piece_items.value_or(std::uint64_t{1} << 30), o.bin_items.value_or(1024), n, o.seed);
  dist::PartsVerdict v;
  if (n) v = dist::law_in_parts(comm, r.bin_masses, r.total, r.bins, r.bin_counts, o.alpha, r.shard_bins);
  std::ostringstream line;
  line.precision(6);
  line << r.device << " " << r.first_piece << " " << r.own_pieces << " " << r.own_items << " " << r.generate_seconds << " " << r.build_seconds << " "
       << r.sample_seconds << " " << r.draws << " " << r.rows_bytes << " " << r.peak_bytes;
  const auto lines = comm.gather(line.str());
  const double wall = comm.max(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  const int code = !n || v.consistent ? kExitOk : kExitFailureFound;
  if (comm.rank() != 0) return code;
  nlohmann::ordered_json ranks = nlohmann::ordered_json::array();
  for (std::size_t k = 0; k < lines.size(); ++k) {
    std::istringstream in(lines[k]);
    int device = 0;
    std::uint64_t first = 0, pieces = 0, items = 0, draws = 0, rows = 0, peak = 0;
    double gs = 0, bs = 0, ss = 0;
    in >> device >> first >> pieces >> items >> gs >> bs >> ss >> draws >> rows >> peak;
    ranks.push_back({{"rank", k}, {"gpu", device}, {"first_shard", first}, {"shards", pieces}, {"items", items}, {"generate_seconds", gs},
                     {"build_seconds", bs}, {"sample_seconds", ss}, {"draws", draws}, {"rows_bytes", rows}, {"peak_device_bytes", peak}});
  }
  if (o.format == "json") {
    nlohmann::ordered_json j = {{"warpsim_alias_sharded", 1}, {"on", "gpu"}, {"items", r.items}, {"shards", r.pieces}, {"shard_items", r.piece_items},
                                {"processes", comm.size()}, {"unit_exponent", r.exponent}, {"total_units", r.total}, {"draws", n}, {"seconds", wall},
                                {"ranks", ranks}};
    if (n) {
      j["law"] = {{"bins", r.bins}, {"bin_items", r.bin_items}, {"cells", v.cells}, {"pearson", v.pearson}, {"pearson_p", v.pearson_p}, {"g", v.g},
                  {"g_p", v.g_p}, {"binomial_rejected", v.binomial_rejected}, {"zero_weight_draws", v.zero_weight_draws}, {"alpha", o.alpha},
                  {"verdict", v.consistent ? "consistent" : "inconsistent"}};
    }
    out << j.dump(2) << "\n";
    return code;
  }
  out << "sharded alias table on GPUs: " << r.items << " items in " << r.pieces << " shards of " << r.piece_items << " over " << comm.size()
      << (comm.size() == 1 ? " process" : " processes") << " (" << comm.describe() << "), unit 2^" << r.exponent << ", U = " << r.total << "\n";
  for (const auto& k : ranks) {
    out << "  rank " << k["rank"].get<std::size_t>() << " on GPU " << k["gpu"].get<int>() << ": shards " << k["first_shard"].get<std::uint64_t>() << " + "
        << k["shards"].get<std::uint64_t>() << ", " << k["items"].get<std::uint64_t>() << " items, rows " << k["rows_bytes"].get<std::uint64_t>()
        << " bytes (device peak " << k["peak_device_bytes"].get<std::uint64_t>() << "), built " << k["build_seconds"].get<double>() << " s"
        << (n ? ", " + std::to_string(k["draws"].get<std::uint64_t>()) + " draws in " + std::to_string(k["sample_seconds"].get<double>()) + " s" : "")
        << "\n";
  }
  if (n) out << "law of the whole (in bins of " << r.bin_items << " items, alpha " << o.alpha << "): " << v.text() << "\n";
  out << "seconds: " << wall << "\n";
  return code;
}

int sharded(const AliasOptions& o, std::ostream& out, const InputSource& inputs, const dist::Communicator& comm) {
  if (o.on == "gpu") return sharded_on_gpu(o, out, comm);
  if (o.piece_items || o.bin_items) throw UsageError("--piece-items and --bin-items go with alias sharded --on gpu");
  if (o.weights.empty() == !o.generate) throw UsageError("alias sharded takes --weights FILE or --generate N");
  if (o.method != "sweep" || o.splits || o.group || o.lanes || o.counters || o.device || o.dtype) {
    throw UsageError("alias sharded builds each shard by PSA on the host: --method, --splits, --group, --lanes, --counters, --device and --dtype do not apply");
  }
  const auto t0 = std::chrono::steady_clock::now();
  std::uint64_t total = 0;
  std::vector<double> w;
  if (o.generate) {
    total = *o.generate;
    const dist::Share s = dist::share_of(total, 1, comm.rank(), comm.size());
    if (s.count > (std::uint64_t{1} << 32)) throw UsageError("--generate: a shard holds at most 2^32 items; use more ranks");
    refuse_beyond_memory(s.count, comm);
    w.resize(s.count);
    for (std::uint64_t i = 0; i < s.count; ++i) w[i] = generated_weight(o.seed, s.first + i);
  } else {
    w = read_slice(inputs, o.weights, comm, total);
  }
  const double read_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  dist::ShardedAlias t;
  try {
    t = dist::build_sharded_alias<double>(comm, w);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  const std::uint64_t n = o.draws.value_or(0);
  std::uint64_t mine = 0;
  const auto t1 = std::chrono::steady_clock::now();
  const auto counts = n ? dist::sample_counts(comm, t, n, o.seed, &mine) : std::vector<std::uint64_t>{};
  const double sample_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
  dist::PartsVerdict v;
  if (n) v = dist::law_in_parts(comm, t, counts, o.alpha);
  // Per rank: items, mass, build and sampling seconds, draws.
  std::ostringstream line;
  line.precision(6);
  line << w.size() << " " << t.masses[static_cast<std::size_t>(comm.rank())] << " " << read_seconds << " " << t.build_seconds << " " << sample_seconds << " " << mine;
  const auto lines = comm.gather(line.str());
  const double wall = comm.max(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  const int code = !n || v.consistent ? kExitOk : kExitFailureFound;
  if (comm.rank() != 0) return code;
  if (o.format == "json") {
    nlohmann::ordered_json ranks = nlohmann::ordered_json::array();
    for (std::size_t r = 0; r < lines.size(); ++r) {
      std::istringstream in(lines[r]);
      std::uint64_t items = 0, mass = 0, draws = 0;
      double rs = 0, bs = 0, ss = 0;
      in >> items >> mass >> rs >> bs >> ss >> draws;
      ranks.push_back({{"rank", r}, {"items", items}, {"mass", mass}, {"read_seconds", rs}, {"build_seconds", bs}, {"sample_seconds", ss}, {"draws", draws}});
    }
    nlohmann::ordered_json j = {{"warpsim_alias_sharded", 1}, {"items", t.items}, {"shards", comm.size()}, {"unit_exponent", t.exponent},
                                {"total_units", t.total}, {"draws", n}, {"seconds", wall}, {"ranks", ranks}};
    if (n) {
      j["law"] = {{"cells", v.cells}, {"pearson", v.pearson}, {"pearson_p", v.pearson_p}, {"g", v.g}, {"g_p", v.g_p},
                  {"binomial_rejected", v.binomial_rejected}, {"zero_weight_draws", v.zero_weight_draws}, {"alpha", o.alpha},
                  {"verdict", v.consistent ? "consistent" : "inconsistent"}};
    }
    out << j.dump(2) << "\n";
    return code;
  }
  out << "sharded alias table: " << t.items << " items over " << comm.size() << (comm.size() == 1 ? " shard" : " shards") << " (" << comm.describe()
      << "), unit 2^" << t.exponent << ", U = " << t.total << "\n";
  for (std::size_t r = 0; r < lines.size(); ++r) {
    std::istringstream in(lines[r]);
    std::uint64_t items = 0, mass = 0, draws = 0;
    double rs = 0, bs = 0, ss = 0;
    in >> items >> mass >> rs >> bs >> ss >> draws;
    out << "  shard " << r << ": " << items << " items, mass " << mass << ", read " << rs << " s, built " << bs << " s" << (n ? ", " + std::to_string(draws) + " draws in " : "")
        << (n ? std::to_string(ss) + " s" : "") << "\n";
  }
  if (n) out << "law of the whole (in parts, alpha " << o.alpha << "): " << v.text() << "\n";
  out << "seconds: " << wall << "\n";
  return code;
}

}  // namespace

int run_alias_sharded(const AliasOptions& o, std::ostream& out, const InputSource& inputs) {
  const dist::Communicator& comm = dist::Communicator::world();
  if (!comm.distributed()) return sharded(o, out, inputs, comm);
  try {
    return sharded(o, out, inputs, comm);
  } catch (const UsageError& e) {
    comm.abort(kExitUsage, e.what());
  } catch (const std::exception& e) {
    comm.abort(kExitInternal, std::string("internal error: ") + printable(e.what(), 400) + " (please report it)");
  }
}

}  // namespace warpsim::cli
