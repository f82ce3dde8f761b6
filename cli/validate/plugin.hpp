// Way in 2: a plugin (include/warpsim/plugin.h), loaded with dlopen. Its
// samplers become properties::Sampler values, so the properties, the law
// check and the shrinking that check warpsim's own kernels check them.
//
// Everything the plugin can get wrong is a UsageError (exit 2) that names the
// file or symbol, raised before anything else runs: a missing file, a library
// that does not load, no warpsim_plugin_entry, a table of another ABI
// version, a malformed table, an unknown sampler. During a run: a call that
// returns an error (with the plugin's last_error message), a CUDA error left
// by its launch ("plugin 'x', sampler 'y': CUDA error ..." -- the plugin's,
// not warpsim's), and a crash inside the call (the signal is caught, the
// message names the plugin, sampler and entry point, and warpsim exits 2).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cli/validate/law.hpp"
#include "properties/sampler.hpp"
#include "warpsim/plugin.h"

namespace warpsim::cli::validate {

class Plugin {
 public:
  // Loads and checks the table; throws UsageError.
  static std::shared_ptr<Plugin> load(const std::string& path);
  ~Plugin();

  const std::string& path() const { return path_; }
  const std::vector<const warpsim_sampler*>& samplers() const { return samplers_; }
  // The sampler's version-3 entry, or null (versions 1 and 2, or none given).
  const warpsim_sampler_v3* v3_of(const warpsim_sampler& s) const;
  // The sampler of that name (or the only one, if `name` is empty); throws
  // UsageError listing the names.
  const warpsim_sampler& find(const std::string& name) const;

  // The sampler as properties/ sees it. Calls that fail record the error;
  // take_error() returns it (and the caller throws it after the checks).
  properties::Sampler as_sampler(const warpsim_sampler& s);
  std::string take_error();

  // Where processes share a law's n draws (dist::share_of), this one's:
  // draws first .. first + count - 1 (global indices: a draw is the same
  // whichever process makes it). law_grain says in what whole numbers of
  // draws they may be handed out: a chunk with a seed of its own for
  // draw_rows and draw_row_draws, 4,096 for draw_many (keyed by index).
  struct DrawRange {
    std::uint64_t first = 0;
    std::uint64_t count = 0;
  };
  std::uint64_t law_grain(const warpsim_sampler& s, std::size_t k, bool row_draws) const;

  // n draws from one distribution into `counter` (host memory: counted on
  // the host; device memory: a histogram on the GPU), in chunks, calling
  // progress(done). Returns the first draw outside [0, k) or of weight 0 as
  // a failure text ("" if none). Throws UsageError on the plugin's errors.
  // `share`: this process's draws (none: all n).
  template <class T>
  std::string draw_law(const warpsim_sampler& s, const std::vector<T>& weights, std::uint64_t n, std::uint64_t seed, LawCounter& counter,
                       const std::function<void(std::uint64_t)>& progress, std::optional<DrawRange> share = std::nullopt);
  // The same through draw_row_draws (version 3): n draws of one row, S =
  // 2^22 a call, the call c from seed + c -- the draws of samplers.cpp's
  // law_through_row_draws, counted as draw_law counts.
  template <class T>
  std::string draw_row_law(const warpsim_sampler& s, const std::vector<T>& weights, std::uint64_t n, std::uint64_t seed, LawCounter& counter,
                           const std::function<void(std::uint64_t)>& progress, std::optional<DrawRange> share = std::nullopt);

  // n values of the sampler's continuous law (version 3's draw_values) with
  // these parameters, values first .. first + n - 1 of the seed's stream,
  // written as `dtype` (fp32 or fp64) and returned as doubles (device
  // memory: downloaded). Throws UsageError on the plugin's errors, naming
  // the call.
  std::vector<double> draw_values(const warpsim_sampler& s, const std::vector<double>& params, std::uint64_t n, std::uint64_t seed,
                                  std::uint64_t first, warpsim_dtype dtype);

  // What `s` is, in words: "host memory, replayable, fp32 and fp64".
  std::string describe(const warpsim_sampler& s) const;

 private:
  Plugin() = default;
  template <class T>
  std::vector<int> draw_rows(const warpsim_sampler& s, const properties::Matrix<T>& m, std::uint64_t seed);
  template <class T>
  std::vector<int> draw_row_draws(const warpsim_sampler& s, const properties::Matrix<T>& m, std::uint64_t seed, int draws);
  // The chunk loop of the law paths: draw(first, m, out) fills m indices at
  // out (device memory for device samplers) and returns the entry's code;
  // they are checked in range and of positive weight, and counted.
  template <class T>
  std::string count_law(const warpsim_sampler& s, const char* entry, const std::vector<T>& weights, DrawRange share, std::uint64_t chunk,
                        LawCounter& counter, const std::function<void(std::uint64_t)>& progress,
                        const std::function<int(std::uint64_t first, std::uint64_t m, std::int32_t* out)>& draw);
  template <class T>
  properties::AliasTableImage build_table(const warpsim_sampler& s, std::span<const T> weights);
  [[noreturn]] void fail(const warpsim_sampler& s, const std::string& entry, const std::string& why);
  // The plugin's last_error() (called under the crash guard, named `call`),
  // printable, or "no last_error message".
  std::string last_error_text(const std::string& call);
  std::string path_;
  void* handle_ = nullptr;
  const warpsim_plugin* table_ = nullptr;
  std::vector<const warpsim_sampler*> samplers_;
  std::vector<const warpsim_sampler_v3*> v3_;  // beside samplers_
  std::string error_;
};

}  // namespace warpsim::cli::validate
