#include "cli/sample_command.hpp"

#include <CLI/CLI.hpp>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "cli/errors.hpp"
#include "cli/input/logits.hpp"
#include "cli/sample_device.hpp"
#include "oracle/token/token_law.hpp"
#include "rng/philox_uniform.hpp"

namespace warpsim::cli {

namespace tok = oracle::token;

CLI::App* add_sample_command(CLI::App& app, SampleOptions& o) {
  auto* a = app.add_subcommand("sample", "Tokens from logits as an LLM server draws them: temperature, top-k, top-p, min-p");
  a->footer("The law is docs/tokens.md's, exactly: the draws on the host are its definition (oracle/token/token_law.hpp); with "
            "--device the GPU kernels draw and every draw is checked against the definition (up to 2^26 logits). Draw j of a "
            "row r comes from (request_seed(seed, r), offset, j), request_seed SplitMix64's output r + 1 from the seed: the same request and step replay the same tokens. Limits: at most 65,536 rows of "
            "at most 2^20 logits, at most 2^24 draws in all.");
  a->add_option("logits", o.logits, "K logits, or M rows of K (.npy or text; - for stdin)")->required();
  a->add_option("--logit-type", o.logit_type,
                "f32 (float32, float16 and text files; float64 and text rounded to float32), or bf16 / f16 for a uint16 .npy of "
                "bit patterns (numpy has no bfloat16: torch's t.view(torch.int16), ml_dtypes' a.view(np.uint16))")
      ->check(CLI::IsMember({"f32", "bf16", "f16"}));
  a->add_option("--temperature", o.temperature, "T >= 0 (0: greedy)")->capture_default_str();
  a->add_option("--top-k", o.top_k, "keep the k largest and their ties (0: off)")->capture_default_str();
  a->add_option("--top-p", o.top_p, "keep the least set of most probable tokens holding p of the mass, with ties (1: off)")
      ->capture_default_str();
  a->add_option("--min-p", o.min_p, "keep tokens of probability >= min-p times the largest (0: off)")->capture_default_str();
  a->add_option("--seed", o.seed, "the batch's seed: row r is the request of seed request_seed(seed, r) (rng/philox_uniform.hpp)")->capture_default_str();
  a->add_option("--offset", o.offset, "the request's step")->capture_default_str();
  a->add_option("--draws", o.draws, "draws a row")->capture_default_str()->check(CLI::PositiveNumber);
  a->add_flag("--device", o.device, "draw with the GPU kernels (gpu/token_sampler.hpp) and check every draw against the definition");
  a->add_option("--format", o.format, "text (a row's draws a line) | json")->check(CLI::IsMember({"text", "json"}))->capture_default_str();
  a->add_option("--out", o.out, "also write the draws as an M x S int32 .npy file");
  return a;
}

namespace {

void write_npy_int32(const std::string& path, const std::vector<int>& v, std::int64_t rows, int cols) {
  std::string header = "{'descr': '<i4', 'fortran_order': False, 'shape': (" + std::to_string(rows) + ", " + std::to_string(cols) + "), }";
  const std::size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::ofstream f(path, std::ios::binary);
  if (!f) throw UsageError("--out: cannot write '" + printable(path) + "'");
  const auto len = static_cast<std::uint16_t>(header.size());
  f.write("\x93NUMPY\x01\x00", 8);
  const char le[2] = {static_cast<char>(len & 0xff), static_cast<char>(len >> 8)};
  f.write(le, 2);
  f << header;
  f.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(int)));
  if (!f) throw UsageError("--out: writing '" + printable(path) + "' failed");
}

}  // namespace

int run_sample(const SampleOptions& o, std::ostream& out, const InputSource& inputs) {
  const tok::Sampling s{o.temperature, o.top_k, o.top_p, o.min_p};
  if (const auto why = refused_sampling(s); !why.empty()) throw UsageError(why);
  const Logits logits = read_logits(inputs, o.logits, o.logit_type);
  const std::int64_t m = logits.rows, k = logits.cols;
  if (m * o.draws > kSampleMaxDraws) throw UsageError("M x --draws is " + std::to_string(m * o.draws) + "; at most 2^24");
  const tok::LogitType type = logits.type;
  const std::vector<float>& x = logits.values;
  const std::string& quoted = logits.quoted;

  // The definition's draws, row by row (each row checked first: NaN, +inf, all -inf).
  std::vector<int> draws(static_cast<std::size_t>(m * o.draws));
  for (std::int64_t r = 0; r < m; ++r) {
    const std::span<const float> row(x.data() + r * k, static_cast<std::size_t>(k));
    try {
      tok::check(row, s);
    } catch (const std::invalid_argument& e) {
      throw UsageError(quoted + (m > 1 ? ", row " + std::to_string(r) : std::string()) + ": " + e.what());
    }
    if (o.device && m * k > kSampleCheckedElements) continue;  // (drawn on the device alone)
    const auto d = tok::draw(row, s, rng::request_seed(o.seed, static_cast<std::uint64_t>(r)), o.offset, o.draws);
    for (int j = 0; j < o.draws; ++j) draws[static_cast<std::size_t>(r * o.draws + j)] = static_cast<int>(d[static_cast<std::size_t>(j)]);
  }
  nlohmann::ordered_json device;
  int rc = 0;
  if (o.device) {
    const auto d = sample_device::sample(x, type, static_cast<int>(m), k, s, o.seed, o.offset, o.draws);
    const bool checked = m * k <= kSampleCheckedElements;
    std::size_t differ = 0, first = 0;
    if (checked) {
      for (std::size_t i = draws.size(); i-- > 0;)
        if (d.draws[i] != draws[i]) ++differ, first = i;
    }
    device = {{"name", d.device}, {"plan", d.plan}, {"kernel_ms", d.milliseconds}, {"checked", checked}, {"draws_differing", differ}};
    if (differ > 0) {
      std::ostringstream why;
      why << "warpsim: --device: " << differ << " of " << draws.size() << " draws differ from the definition's (first: row "
          << first / static_cast<std::size_t>(o.draws) << ", draw " << first % static_cast<std::size_t>(o.draws) << ": kernel " << d.draws[first]
          << ", definition " << draws[first] << "). This is a bug in warpsim; please report it with the logits.\n";
      out << why.str();
      rc = 1;
    }
    draws = d.draws;
  }
  if (o.out) write_npy_int32(*o.out, draws, m, o.draws);
  if (o.format == "json") {
    nlohmann::ordered_json j;
    j["logits"] = o.logits;
    j["rows"] = m;
    j["k"] = k;
    j["logit_type"] = logits.type_name();
    j["sampling"] = {{"temperature", o.temperature}, {"top_k", o.top_k}, {"top_p", o.top_p}, {"min_p", o.min_p}};
    j["seed"] = o.seed;
    j["offset"] = o.offset;
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (std::int64_t r = 0; r < m; ++r)
      rows.push_back(std::vector<int>(draws.begin() + r * o.draws, draws.begin() + (r + 1) * o.draws));
    j["draws"] = rows;
    if (o.device) j["device"] = device;
    out << j.dump(2) << "\n";
  } else {
    for (std::int64_t r = 0; r < m; ++r) {
      for (int jj = 0; jj < o.draws; ++jj) out << (jj ? " " : "") << draws[static_cast<std::size_t>(r * o.draws + jj)];
      out << "\n";
    }
    if (o.device)
      out << "# " << device["name"].get<std::string>() << ", " << device["plan"].get<std::string>() << "; "
          << (device["checked"].get<bool>() ? "every draw checked against the definition: " + std::to_string(draws.size() - device["draws_differing"].get<std::size_t>()) + " of " + std::to_string(draws.size()) + " equal"
                                            : std::string("not checked (more than 2^26 logits)"))
          << "\n";
  }
  return rc;
}

}  // namespace warpsim::cli
