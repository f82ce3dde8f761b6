#include "cli/alias_command.hpp"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/alias_device.hpp"
#include "cli/errors.hpp"
#include "cli/input/weights.hpp"
#include "cli/report_json.hpp"
#include "oracle/alias/psa_plus.hpp"
#include "oracle/alias/psa_warp.hpp"
#include "oracle/alias/sweep.hpp"
#include "oracle/alias/vose.hpp"
#include "oracle/alias/walker.hpp"

namespace warpsim::cli {

CLI::App* add_alias_command(CLI::App& app, AliasOptions& o) {
  auto* a = app.add_subcommand("alias", "Alias tables (seed 001) in exact units: build one and check it");
  a->footer("The table: row k keeps `keep` of its capacity U for item k and gives the rest to `alias`; U and every keep are "
            "whole numbers of the unit 2^e (docs/alias.md), so the table is exact and the same for any schedule. Limits: at "
            "most 2^27 weights (walker: 8192, it is O(N^2)).");
  a->add_option("action", o.action, "build, or sharded: the weights split over mpirun's ranks, a table a shard, the whole's law checked")
      ->required()
      ->check(CLI::IsMember({"build", "sharded"}));
  a->add_option("--weights", o.weights, "the weights: one distribution (.npy or text, one a line; - for stdin; sharded: each rank reads its slice)");
  a->add_option("--generate", o.generate, "sharded: instead of --weights, N weights made from --seed, each rank its slice (no process holds them all)")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 40));
  a->add_option("--draws", o.draws, "sharded: draws of the whole (an exact multinomial split over the shards), their law checked in parts")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 50));
  a->add_option("--seed", o.seed, "sharded: the seed of the generated weights and of the draws")->capture_default_str();
  a->add_option("--alpha", o.alpha, "sharded: the false-positive rate of the law check")->check(CLI::Range(1e-12, 0.5))->capture_default_str();
  a->add_option("--on", o.on,
                "sharded: host (a shard a rank, built by the oracle's PSA) or gpu (shards of --piece-items, each rank's on its GPU, "
                "local rank mod GPUs; the law checked in bins of --bin-items)")
      ->check(CLI::IsMember({"host", "gpu"}))
      ->capture_default_str();
  a->add_option("--piece-items", o.piece_items, "sharded --on gpu: items a shard (default 2^30; a multiple of --bin-items, below 2^32)")
      ->check(CLI::Range(std::uint64_t{32}, (std::uint64_t{1} << 32) - 1));
  a->add_option("--bin-items", o.bin_items, "sharded --on gpu: items a bin of the law check (a power of two, 32 to 2^30; default 1024)")
      ->check(CLI::Range(std::uint64_t{32}, std::uint64_t{1} << 30));
  a->add_option("--dtype", o.dtype, "the weights' precision where the file does not say it (text): f32 or f64 (default)")
      ->check(CLI::IsMember({"f32", "f64"}));
  a->add_option("--method", o.method, "walker | vose | sweep | psa | psa+")
      ->check(CLI::IsMember({"walker", "vose", "sweep", "psa", "psa+"}))
      ->capture_default_str();
  a->add_option("--splits", o.splits, "psa, psa+: the number of sections (default: one per 1,024 items)");
  a->add_option("--group", o.group, "psa+: the items packed greedily together (default 1,024)");
  a->add_option("--lanes", o.lanes, "psa+: the lanes sharing a group's greedy packing, each an equal share (default 32, a warp)");
  a->add_flag("--counters", o.counters,
              "psa, psa+: build the table on the warp model too (it must be the same table) and print what each phase "
              "(partition, split, pack) cost: instructions, global requests, 32-byte sectors loaded and stored, shared "
              "requests and bank conflicts. At most 2^22 weights");
  a->add_flag("--device", o.device,
              "psa and psa+: build the table with the GPU kernels too (the first CUDA device), require it to be the host's, and say "
              "how long the build took. Exit 2 where no device can be used");
  a->add_option("--split", o.split, "--counters: the split, binary | pary (partial p-ary, Alg. 3.1)")
      ->check(CLI::IsMember({"binary", "pary"}))
      ->capture_default_str();
  a->add_option("--pack", o.pack, "--counters: the pack, global | shared | chunked (Sec. 3.2)")
      ->check(CLI::IsMember({"global", "shared", "chunked"}))
      ->capture_default_str();
  a->add_option("--format", o.format, "text | json")->check(CLI::IsMember({"text", "json"}))->capture_default_str();
  return a;
}

namespace {

// run_alias in stages, each visited once, in the order a distribution's
// weights travel: the options (cli), the weights (cli/input), the table
// (oracle/alias), the same table on the warp model and on the GPU (each
// required equal to it), the report.

bool psa_like(const AliasOptions& o) { return o.method == "psa" || o.method == "psa+"; }

// What the options ask, before anything is read.
void check_options(const AliasOptions& o) {
  if (o.splits && !psa_like(o)) throw UsageError("--splits applies to psa and psa+");
  if (o.group && o.method != "psa+") throw UsageError("--group applies to psa+");
  if (o.lanes && o.method != "psa+") throw UsageError("--lanes applies to psa+");
  if (o.counters && !psa_like(o)) throw UsageError("--counters applies to psa and psa+ (the constructions the model runs)");
  if (o.device && !psa_like(o)) throw UsageError("--device builds with the GPU kernels, which run psa and psa+");
  if (o.device && o.method == "psa+" && o.lanes.value_or(32) != 32) throw UsageError("--device runs psa+ a warp a group: --lanes 32");
  if (o.device && o.method == "psa+" && o.group.value_or(0) > 1024) throw UsageError("--device runs psa+ with groups of at most 1,024 items");
  const bool model_options = o.split != "pary" || o.pack != "chunked";
  if (model_options && !o.counters) throw UsageError("--split and --pack choose how the model builds the table: add --counters");
}

// The distribution and the sizes the options take from it.
struct Input {
  Weights w;
  std::size_t n = 0, splits = 0, group = 0, lanes = 0;
};

Input read_input(const AliasOptions& o, const InputSource& inputs) {
  Input in;
  in.w = read_weights(inputs, o.weights, o.dtype);
  const auto& w = in.w;
  if (!w.vector) {
    throw UsageError(w.quoted + " holds a " + std::to_string(w.rows) + " x " + std::to_string(w.cols) +
                     " matrix; an alias table is built from one distribution (one weight a line)");
  }
  const std::size_t n = in.n = w.values.size();
  if (n > (std::size_t{1} << 32)) throw UsageError(w.quoted + " holds more than 2^32 weights");
  if (o.method == "walker" && n > kWalkerMaxItems) {
    throw UsageError("walker is O(N^2): it takes at most " + std::to_string(kWalkerMaxItems) + " weights; " + w.quoted + " holds " +
                     std::to_string(n) + " (use vose, sweep, psa or psa+)");
  }
  in.splits = o.splits.value_or(std::max<std::size_t>(1, n / 1024));
  if (in.splits < 1 || in.splits > n) throw UsageError("--splits must lie in [1, N] = [1, " + std::to_string(n) + "]");
  in.group = o.group.value_or(std::min<std::size_t>(1024, n));
  if (o.group && (in.group < 1 || in.group > n)) throw UsageError("--group must lie in [1, N] = [1, " + std::to_string(n) + "]");
  in.lanes = o.lanes.value_or(32);
  if (in.lanes < 1 || in.lanes > 1024) throw UsageError("--lanes must lie in [1, 1024]");
  if (o.counters && o.method == "psa+" && (in.lanes < 2 || in.lanes > 64 || (in.lanes & (in.lanes - 1)) != 0)) {
    throw UsageError("--counters runs a group on one warp: --lanes must be a power of two from 2 to 64");
  }
  if (o.counters && n > kModelMaxItems) {
    throw UsageError("--counters runs the warp model: it takes at most " + std::to_string(kModelMaxItems) + " weights; " + w.quoted +
                     " holds " + std::to_string(n));
  }
  return in;
}

// The table, and what the model and the GPU made of the same weights.
struct Built {
  oracle::alias::Units u;
  oracle::alias::Table t;
  oracle::alias::PsaPlusStats st;
  oracle::alias::ModelBuild model;
  oracle::alias::ModelConfig config;
  alias_device::DeviceBuild device;
};

Built build(const AliasOptions& o, const Input& in) {
  using namespace oracle::alias;
  Built b;
  try {
    b.u = to_units<double>(in.w.values);  // exactly the fp32 or fp64 values (read_weights rounds to the precision)
  } catch (const std::invalid_argument& e) {
    throw UsageError(in.w.quoted + ": " + e.what());
  }
  const auto& u = b.u;
  b.t = o.method == "walker" ? walker(u)
        : o.method == "vose" ? vose(u)
        : o.method == "sweep" ? sweep(u)
        : o.method == "psa"   ? psa(u, in.splits)
                              : psa_plus(u, in.group, in.splits, {}, &b.st, nullptr, in.lanes);
  const Table& t = b.t;
  const std::string why = check_table(t, u);
  if (!why.empty()) throw std::logic_error("the " + o.method + " table fails its check: " + why);
  if (o.counters) {
    b.config.sections = in.splits;
    b.config.split = o.split == "binary" ? SplitMethod::Binary : SplitMethod::Pary;
    b.config.pack = o.pack == "global" ? PackMethod::Global : o.pack == "shared" ? PackMethod::Shared : PackMethod::Chunked;
    b.config.psa_plus_group = o.method == "psa+" ? in.group : 0;
    if (o.method == "psa+") b.config.width = static_cast<int>(in.lanes);
    b.model = psa_on_model(u, b.config);
    if (b.model.table.keep != t.keep || b.model.table.alias != t.alias) {
      throw std::logic_error("the warp model's " + o.method + " table differs from the host's");
    }
  }
  if (o.device) {
    b.device = alias_device::build(in.w.values, in.w.fp32, o.method == "psa+" ? in.group : 0);
    bool same = b.device.exponent == t.exponent && b.device.capacity == t.capacity;
    for (std::size_t k = 0; k < in.n && same; ++k) {
      same = keep_of_threshold(b.device.threshold[k], t.capacity) == t.keep[k] && b.device.alias[k] == sampled_alias(t, k);
    }
    if (!same) throw std::logic_error("the device's " + o.method + " table differs from the host's");
  }
  return b;
}

constexpr const char* kPhases[] = {"partition", "split", "pack"};

const sim::Counters& phase(const Built& b, int k) {
  return k == 0 ? b.model.counters.partition : k == 1 ? b.model.counters.split : b.model.counters.pack;
}

// The rows are written one by one, in the layout nlohmann's dump(2) gives
// them, not built as one JSON value: a value a row took about 450 bytes (0.5
// GB at 10^6 items, 60 GB at the 2^27 the command takes); written as they go
// the command holds the table alone, 16 bytes an item.
void write_json(const AliasOptions& o, const Input& in, const Built& b, std::ostream& out) {
  const auto& t = b.t;
  nlohmann::ordered_json j = {{"method", o.method},
                              {"items", in.n},
                              {"unit_exponent", t.exponent},
                              {"capacity", t.capacity},
                              {"rows_with_alias", oracle::alias::rows_with_alias(t)},
                              {"check", "exact: every item's implied mass is N u_i"}};
  if (psa_like(o)) j["splits"] = in.splits;
  if (o.method == "psa+") j["greedy"] = {{"group", in.group}, {"lanes", in.lanes}, {"rows", b.st.greedy_rows}, {"left_to_psa", b.st.left}};
  if (o.counters) {
    nlohmann::ordered_json m = {{"split_method", o.split}, {"pack_method", o.pack}, {"lanes", b.config.width}, {"sections", b.model.sections},
                                {"table", "equal to the host's"}};
    for (int k = 0; k < 3; ++k) m["counters"][kPhases[k]] = to_json(phase(b, k));
    j["model"] = m;
  }
  if (o.device) j["device"] = {{"name", b.device.device}, {"build_ms", b.device.milliseconds}, {"table", "equal to the host's"}};
  j["rows"] = nlohmann::ordered_json::array();
  std::string head = j.dump(2);  // ends: "rows": []\n}
  head.resize(head.size() - 3);  // less "]\n}": it ends with "["
  out << head;
  for (std::size_t k = 0; k < in.n; ++k) {
    out << (k ? ",\n" : "\n") << "    {\n      \"keep\": " << t.keep[k] << ",\n      \"alias\": " << t.alias[k] << "\n    }";
  }
  out << (in.n ? "\n  ]\n}\n" : "]\n}\n");
}

void write_text(const AliasOptions& o, const Input& in, const Built& b, std::ostream& out) {
  const auto& t = b.t;
  const std::size_t n = in.n;
  out << "alias table of " << n << " items by " << o.method;
  if (psa_like(o)) out << " (" << in.splits << " sections" << (o.method == "psa+" ? ", groups of " + std::to_string(in.group) : "") << ")";
  out << "\nunit 2^" << t.exponent << ", capacity U = " << t.capacity << " units a row; " << oracle::alias::rows_with_alias(t) << " rows with an alias";
  if (o.method == "psa+") out << "; " << b.st.greedy_rows << " rows packed greedily, " << b.st.left << " left to PSA";
  out << "\ncheck: exact (every item's implied mass is N u_i)\n";
  if (o.device) {
    char ms[32];
    std::snprintf(ms, sizeof ms, "%.3f", b.device.milliseconds);
    out << "on the device (" << b.device.device << "): the same table, built in " << ms << " ms\n";
  }
  if (o.counters) {
    out << "on the warp model (" << b.config.width << " lanes, " << o.split << " split, " << o.pack << " pack, " << b.model.sections
        << " sections): the same table\n";
    out << "  phase       instructions  global requests  sectors loaded  sectors stored  shared requests  bank conflicts\n";
    for (int k = 0; k < 3; ++k) {
      const auto& c = phase(b, k);
      char line[160];
      std::snprintf(line, sizeof line, "  %-10s %13llu %16llu %15llu %15llu %16llu %15llu\n", kPhases[k],
                    static_cast<unsigned long long>(c.total_instructions()), static_cast<unsigned long long>(c.global_requests),
                    static_cast<unsigned long long>(c.global_load_sectors),
                    static_cast<unsigned long long>(c.global_sectors - c.global_load_sectors),
                    static_cast<unsigned long long>(c.shared_requests), static_cast<unsigned long long>(c.shared_bank_conflicts));
      out << line;
    }
  }
  out << "  row        keep/U   alias\n";
  const std::size_t shown = std::min<std::size_t>(n, 64);
  for (std::size_t k = 0; k < shown; ++k) {
    char line[96];
    std::snprintf(line, sizeof line, "  %-8zu %10.6f   %s\n", k, static_cast<double>(t.keep[k]) / static_cast<double>(t.capacity),
                  t.keep[k] == t.capacity ? "-" : std::to_string(t.alias[k]).c_str());
    out << line;
  }
  if (shown < n) out << "  ... (" << n - shown << " more rows; --format json lists them all)\n";
}

}  // namespace

int run_alias(const AliasOptions& o, std::ostream& out, const InputSource& inputs) {
  if (o.action == "sharded") return run_alias_sharded(o, out, inputs);
  if (o.weights.empty()) throw UsageError("alias build needs --weights");
  if (o.generate || o.draws) throw UsageError("--generate and --draws go with alias sharded");
  if (o.on != "host" || o.piece_items || o.bin_items) throw UsageError("--on, --piece-items and --bin-items go with alias sharded");
  check_options(o);
  const Input in = read_input(o, inputs);
  const Built b = build(o, in);
  if (o.format == "json") write_json(o, in, b, out);
  else write_text(o, in, b, out);
  return kExitOk;
}

}  // namespace warpsim::cli
