#include "cli/validate_command.hpp"

#include <CLI/CLI.hpp>

#include <chrono>
#include <sstream>

#include "cli/app.hpp"
#include "cli/errors.hpp"
#include "cli/input/real_range.hpp"
#include "cli/input/logits.hpp"
#include "cli/show_command.hpp"
#include "cli/validate/device.hpp"
#include "cli/validate/files.hpp"
#include "cli/validate/values.hpp"
#include "stats/continuous_law.hpp"
#include "properties/value_samplers.hpp"
#include "cli/validate/plugin.hpp"
#include "cli/validate/relay.hpp"
#include "cli/validate/render.hpp"
#include "cli/validate/sandbox.hpp"
#include "cli/validate/samplers.hpp"
#include "dist/communicator.hpp"
#include "properties/rc_checks.hpp"
#include "properties/registry.hpp"

namespace warpsim::cli {

using namespace validate;

CLI::App* add_validate_command(CLI::App& app, ValidateOptions& o) {
  auto* v = app.add_subcommand("validate", "Tell whether a sampler is right: a file of draws, a plugin, a built-in, or the seeded bugs");
  v->footer(
      "Ways in (one of):\n"
      "  --weights W --draws D [--uniforms U]   draws from any sampler (.npy or text), checked in law, and draw by draw with U\n"
      "  --logits L --draws D [--temperature T --top-k K --top-p P --min-p Q]   an LLM's tokens against the token law (docs/tokens.md)\n"
      "  --values V --law NAME:PARAMETERS       floats from a continuous law (normal:mu,sigma, gamma:shape,scale, ...)\n"
      "  --plugin LIB.so [--sampler NAME]       a shared library with the C ABI of include/warpsim/plugin.h\n"
      "    [--law NAME:PARAMETERS]              (its sampler of a continuous law's values, ABI version 3: the law to draw)\n"
      "  --builtin NAME                         a registered algorithm (GPU where present, else its oracle; --on)\n"
      "  --mutants [--only NAME]                the seeded-bug catalogue's mutation score\n"
      "Exit codes: 0 consistent; 1 inconsistent (a check failed, a draw out of range or of weight 0, a mutant survived); "
      "2 bad input or usage (malformed files, a broken plugin, its errors and crashes).\n"
      "Under mpirun (-np R), a sampler of indices (a built-in or a plugin's) shares its law's draws over the R processes; the report, printed by rank 0, "
      "is the same for any R but for its time (docs/distributed.md).\n"
      "Limits: weights hold at most 2^27 values; a file of draws at most 2^40 (streamed, constant memory); "
      "--target-tv asks for at most 10^12 draws. Docs: docs/validate.md.");
  v->add_option("--weights", o.weights, "the weights: K values (one distribution) or an M x K matrix (.npy or text; - for stdin)");
  v->add_option("--draws", o.draws, "the indices drawn: S from one distribution, or one or S a row (.npy int or text); several files: shards read as one, in order (blocks of rows)");
  v->add_option("--logits", o.logits, "instead of --weights: logits (K, or M x K), each row's law the token law under the sampling options");
  v->add_option("--logit-type", o.logit_type, "with --logits: f32, or bf16 / f16 for a uint16 .npy of bit patterns")
      ->check(CLI::IsMember({"f32", "bf16", "f16"}));
  v->add_option("--temperature", o.temperature, "with --logits: T >= 0 (default 1; 0 greedy)");
  v->add_option("--top-k", o.top_k, "with --logits: keep the k largest and their ties (default 0: off)");
  v->add_option("--top-p", o.top_p, "with --logits: keep the least most probable set holding p, with ties (default 1: off)");
  v->add_option("--min-p", o.min_p, "with --logits: keep tokens of probability >= min-p times the largest (default 0: off)");
  v->add_option("--values", o.values, "floats drawn from a continuous law (.npy float32/float64 or text; - for stdin)");
  v->add_option("--law", o.law, "with --values, the law they should follow: " + stats::continuous_law_forms() + ", or table:FILE (a CDF table: rows x F(x), F linear between them)");
  v->add_option("--rounded-to", o.rounded_to, "with --values, the precision the sampler rounded them to, where coarser than the file's: bf16, f16, f32, f64")
      ->check(CLI::IsMember({"bf16", "f16", "f32", "f64"}));
  v->add_option("--clamp-low", o.clamp.low,
                "values of a continuous law: the sampler raises draws below this value to it (a number, or min-normal: 2^-126 in float32, as PyTorch's gamma)");
  v->add_option("--clamp-high", o.clamp.high, "values of a continuous law: the sampler lowers draws above this value to it");
  v->add_option("--uniforms", o.uniforms, "the uniform each draw used, shaped as --draws (one file or shards): check each draw against the scalar definition");
  v->add_option("--row-seeds", o.row_seeds, "with --draws and weights whose rows differ: each row's seed (rows of equal seeds may repeat each other)");
  v->add_option("--plugin", o.plugin, "a plugin library (include/warpsim/plugin.h)");
  v->add_option("--sampler", o.sampler, "the plugin's sampler to check (needed if it offers several)");
  v->add_option("--builtin", o.builtin, "a registered algorithm (--list names them)");
  v->add_flag("--mutants", o.mutants, "the seeded-bug catalogue: every mutant must fail a property");
  v->add_option("--only", o.only, "--mutants: the one mutant of that name");
  v->add_option("--on", o.on, "built-ins and mutants: gpu, oracle, or auto (the GPU where one runs)")
      ->check(CLI::IsMember({"auto", "gpu", "oracle"}))
      ->capture_default_str();
  v->add_flag("--list", o.list, "list the samplers of --plugin, or the built-ins, and exit");
  v->add_option("--format", o.format, "report format")->check(CLI::IsMember({"text", "json", "html"}))->capture_default_str();
  v->add_option("--alpha", o.alpha, "the false-positive rate of the report's statistical checks together")
      ->check(real_range(1e-12, 0.5))
      ->capture_default_str();
  v->add_option("--target-tv", o.target_tv, "plugins and built-ins: draw enough to detect this total-variation bias with power 0.9 (default 0.01)");
  v->add_option("--draws-per-law", o.draws_count,
                "plugins and built-ins: draws for each law check, instead of --target-tv (at most 10^12 a process: mpirun -np R shares a built-in's)")
      ->check(CLI::Range(std::uint64_t{1}, kMaxDrawsPerLaw * 1024));
  v->add_option("--row-draws", o.row_draws,
                "with --weights and --plugin or --builtin: also the S-draw properties, S draws a row (a saved S-draw failure's replay)")
      ->check(CLI::Range(1, 1 << 16));
  v->add_option("--tests", o.tests, "plugins and built-ins: generated inputs per precision for the property checks (default 100)")
      ->check(CLI::Range(1, 100000));
  v->add_option("--seed", o.seed, "plugins, built-ins and mutants: the seed of the generated inputs and of the draws (default 1)");
  v->add_option("--max-rows", o.max_rows, "plugins and built-ins: the largest M generated (default 70)")->check(CLI::Range(1, 4096));
  v->add_option("--max-k", o.max_cols, "plugins and built-ins: the largest K generated (default 150)")->check(CLI::Range(1, 1 << 16));
  v->add_option("--dtype", o.dtype, "the weights' precision where the file does not say it (text): f32 or f64 (default)")
      ->check(CLI::IsMember({"f32", "f64"}));
  v->add_flag("--adds-in-order", o.adds_in_order,
              "with --uniforms: the sampler adds each row's weights in index order, so each draw must equal the scalar definition exactly");
  v->add_option("--counterexample", o.counterexample,
                "plugins, built-ins and mutants: where a shrunk counterexample is saved ('none': not saved; default warpsim-counterexample.txt)");
  v->add_option("--time-limit", o.time_limit,
                "with --plugin: the most seconds the worker that runs the plugin may take (default 600): a plugin that hangs is stopped, exit 2");
  v->add_option("--progress", o.progress, "a progress line on standard error: auto (on a terminal), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
  return v;
}

namespace {

std::string quote(const std::string& s) {
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '/' || c == '.' || c == '_' || c == '-' || c == '+')) return "'" + s + "'";
  return s;
}

// The counterexample's failing row as `warpsim show` draws its algorithm
// (Counterexample::show), the view's last step.
std::string layout_svg(const Report& r) {
  if (!r.counterexample) return "";
  const auto& c = *r.counterexample;
  if (c.show.empty() || c.rows == 0 || (c.show_two_lanes && c.cols > 512)) return "";
  std::vector<double> row(c.weights.begin() + c.failing_row * c.cols, c.weights.begin() + (c.failing_row + 1) * c.cols);
  const std::string line = properties::row_text<double>(row);
  MemoryInputs in;
  in.files["row"] = c.show_two_lanes ? line + "\n" + line + "\n" : line + "\n";
  std::vector<std::string> args{"show"};
  args.insert(args.end(), c.show.begin(), c.show.end());
  args.insert(args.end(), {"--weights", "row", "--step", "final", "--format", "svg"});
  std::ostringstream out, err;
  if (run_cli(args, out, err, in) != 0) return "";  // weights the view refuses (beyond fp32): the page goes without the picture
  return out.str();
}

// Every option given must be one this way in uses.
struct Refused {
  bool given;
  const char* name;
  const char* why = nullptr;
};
void refuse_with(const std::string& way, std::initializer_list<Refused> options) {
  for (const auto& r : options)
    if (r.given) throw UsageError(std::string(r.name) + " does not apply to " + way + (r.why ? std::string(": ") + r.why : ""));
}

bool is_value_algorithm(const std::string& name) {
  for (const auto& a : properties::value_registry())
    if (a.name == name) return true;
  return false;
}

std::string value_names() {
  std::string names;
  for (const auto& a : properties::value_registry()) names += (names.empty() ? "" : ", ") + a.name;
  return names;
}

// A built-in sampler of a continuous law: its GPU entry where one runs (--on
// auto or gpu), else its oracle; fp64 unless --dtype f32.
Report builtin_values_report(const ValidateOptions& o, const SamplerOptions& so, Progress& progress) {
  refuse_with("a built-in sampler of values", {{!o.weights.empty(), "--weights", "a continuous law is named by --law"}, {o.target_tv.has_value(), "--target-tv"},
                                               {o.row_draws != 0, "--row-draws"}, {o.tests.has_value(), "--tests", "no inputs are generated"},
                                               {o.max_rows.has_value(), "--max-rows"}, {o.max_cols.has_value(), "--max-k"},
                                               {o.counterexample.has_value(), "--counterexample", "nothing is shrunk: the law's parameters are given"}});
  const auto& a = properties::find_value_algorithm(o.builtin);
  const bool f32 = o.dtype && *o.dtype == "f32";
  const auto& gpu = f32 ? a.gpu32 : a.gpu64;
  const bool gpu_runs = gpu && gpu->unavailable().empty();
  if (o.on == "gpu" && !gpu_runs) {
    throw UsageError("--on gpu: " + a.name + (gpu ? " has a kernel, but " + gpu->unavailable() : std::string(" has no GPU entry in this build")));
  }
  if (f32 && !a.oracle32) throw UsageError("--dtype f32: " + a.name + " draws float64 values only");
  const properties::ValueSampler& s = o.on != "oracle" && gpu_runs ? *gpu : (f32 ? *a.oracle32 : a.oracle64);
  ValueSource source;
  source.kind = "builtin";
  source.subject = "built-in " + a.name + " (" + a.listing + ") on the " + (s.where == "GPU" ? "GPU" : "host (its oracle)") +
                   (o.on == "auto" && !gpu_runs ? "; no GPU here" + (gpu ? ": " + gpu->unavailable() : std::string()) : "");
  source.law = a.law;
  source.stored = f32 ? stats::Stored::Float32 : stats::Stored::Float64;
  source.draw = s.draw;
  source.clamp_below = s.clamp_below;
  PluginValuesOptions po{o.law, o.draws_count.value_or(1000000), so.seed, o.alpha, o.clamp};
  return check_value_source(source, po, progress);
}

// Everything but the worker: the checks and the report, in this process
// (and its peers under mpirun: comm).
int validate_here(const ValidateOptions& o, std::ostream& out, const InputSource& inputs, std::ostream* progress_out, const dist::Communicator& comm) {
  const bool file_way = !o.draws.empty(), plugin_way = !o.plugin.empty(), builtin_way = !o.builtin.empty(), values_way = !o.values.empty();
  const int ways = (file_way ? 1 : 0) + (plugin_way ? 1 : 0) + (builtin_way ? 1 : 0) + (o.mutants ? 1 : 0) + (values_way ? 1 : 0);
  if (o.rounded_to && !values_way) throw UsageError("--rounded-to says how --values were rounded: it goes with --values");
  if ((o.clamp.low || o.clamp.high) && !values_way && !plugin_way && !builtin_way) {
    throw UsageError("--clamp-low and --clamp-high describe a sampler of a continuous law's values: they go with --values, --plugin or --builtin");
  }
  if (!o.law.empty() && !values_way && !plugin_way && !builtin_way) throw UsageError("--law names the law of --values (or of a plugin's values): it goes with --values or --plugin");
  if (ways == 0) {
    if (!o.weights.empty()) throw UsageError("--weights alone checks nothing: give --draws, --plugin or --builtin with it");
    if (!o.list) throw UsageError("give one way in: --weights W --draws D, --values V --law L, --plugin LIB, --builtin NAME, or --mutants (warpsim validate --help)");
  }
  if (ways > 1) throw UsageError("give one way in: --draws, --values, --plugin, --builtin and --mutants do not go together");
  if (!o.sampler.empty() && !plugin_way) throw UsageError("--sampler names one of a plugin's samplers: it goes with --plugin");
  if (!o.only.empty() && !o.mutants) throw UsageError("--only names one mutant: it goes with --mutants");
  if (o.list && (file_way || builtin_way || o.mutants || values_way)) throw UsageError("--list goes alone (the built-ins) or with --plugin (its samplers)");
  const bool sampling_given = o.temperature || o.top_k || o.top_p || o.min_p || o.logit_type;
  if (sampling_given && o.logits.empty()) throw UsageError("--temperature, --top-k, --top-p, --min-p and --logit-type describe the law of --logits: they go with it");
  if (!o.logits.empty() && !file_way) throw UsageError("--logits gives the law of a file of draws: it goes with --draws");
  if (comm.distributed() && (o.list || !((builtin_way && !is_value_algorithm(o.builtin)) || plugin_way))) {
    throw UsageError("under mpirun with " + std::to_string(comm.size()) +
                     " processes, validate shares the draws of a sampler of indices (--builtin or --plugin); run this way in on one process");
  }
  if (o.draws_count && *o.draws_count > kMaxDrawsPerLaw * static_cast<std::uint64_t>(comm.size())) {
    throw UsageError("--draws-per-law " + std::to_string(*o.draws_count) + ": at most 10^12 a process" +
                     (comm.distributed() ? " (" + std::to_string(comm.size()) + " processes)" : "; mpirun -np R shares a built-in's draws over R processes"));
  }
  // Under mpirun a rank that may use CUDA (a built-in not held to the
  // oracle, a plugin) takes its host's GPU local rank mod GPUs first.
  if (dist::launched_by_mpirun() && (plugin_way || (builtin_way && o.on != "oracle"))) validate::device::use_local_rank_device(dist::local_rank());
  Progress progress(comm.rank() == 0 ? progress_out : nullptr);
  const auto t0 = std::chrono::steady_clock::now();

  if (o.list) {
    if (plugin_way) {
      const auto plugin = Plugin::load(o.plugin);
      for (const auto* s : plugin->samplers()) out << s->name << "  (" << plugin->describe(*s) << ")" << (s->description ? std::string("  ") + s->description : "") << "\n";
    } else {
      for (const auto& a : properties::registry()) out << a.name << "  " << a.listing << (a.gpu ? "  [GPU]" : "") << "\n";
      for (const auto& a : properties::value_registry()) out << a.name << "  values of the " << a.law << " law: " << a.listing << (a.gpu64 ? "  [GPU]" : "") << "\n";
    }
    return kExitOk;
  }

  SamplerOptions so;
  so.tests = o.tests.value_or(so.tests);
  so.max_rows = o.max_rows.value_or(so.max_rows);
  so.max_cols = o.max_cols.value_or(so.max_cols);
  so.seed = o.seed.value_or(so.seed);
  so.alpha = o.alpha;
  if (o.target_tv) {
    if (!(*o.target_tv > 0 && *o.target_tv <= 1)) throw UsageError("--target-tv must lie in (0, 1]");
    so.target_tv = *o.target_tv;
  }
  if (o.target_tv && o.draws_count) throw UsageError("--target-tv and --draws-per-law both choose the number of draws: give one");
  so.draws = o.draws_count;
  so.counterexample_file = o.counterexample == "none" ? "" : o.counterexample.value_or(so.counterexample_file);
  so.weights = o.weights;
  so.row_draws = o.row_draws;
  so.dtype = o.dtype;
  so.comm = &comm;

  Report report;
  if (values_way) {
    refuse_with("a file of values", {{!o.weights.empty(), "--weights", "a continuous law is named by --law"}, {!o.uniforms.empty(), "--uniforms"},
                                     {!o.row_seeds.empty(), "--row-seeds"}, {o.target_tv.has_value(), "--target-tv"}, {o.row_draws != 0, "--row-draws"},
                                     {o.draws_count.has_value(), "--draws-per-law"}, {!o.only.empty(), "--only"}, {o.on != "auto", "--on"},
                                     {o.seed.has_value(), "--seed", "the values are the file's"}, {o.tests.has_value(), "--tests", "no inputs are generated"},
                                     {o.max_rows.has_value(), "--max-rows", "no inputs are generated"},
                                     {o.max_cols.has_value(), "--max-k", "no inputs are generated"}, {o.dtype.has_value(), "--dtype", "the file says its precision"},
                                     {o.adds_in_order, "--adds-in-order"},
                                     {o.counterexample.has_value(), "--counterexample", "nothing is shrunk: the values are the file's"}});
    if (o.law.empty()) throw UsageError("--values needs --law, the law the values should follow (" + stats::continuous_law_forms() + ")");
    report = check_values(inputs, ValuesOptions{o.values, o.law, o.alpha, o.rounded_to, o.clamp}, progress);
  } else if (file_way) {
    refuse_with("a file of draws", {{plugin_way, "--plugin"}, {!o.sampler.empty(), "--sampler"}, {o.target_tv.has_value(), "--target-tv"}, {o.row_draws != 0, "--row-draws"},
                                       {o.draws_count.has_value(), "--draws-per-law"}, {!o.only.empty(), "--only"}, {o.on != "auto", "--on"},
                                       {o.seed.has_value(), "--seed", "the draws are the file's, and the checks' simulations seed from the counts"},
                                       {o.tests.has_value(), "--tests", "no inputs are generated"},
                                       {o.max_rows.has_value(), "--max-rows", "no inputs are generated"},
                                       {o.max_cols.has_value(), "--max-k", "no inputs are generated"},
                                       {o.counterexample.has_value(), "--counterexample", "nothing is shrunk: the draws are the file's"}});
    if (o.weights.empty() && o.logits.empty()) throw UsageError("--draws needs --weights, the weights the draws came from (or --logits)");
    if (!o.weights.empty() && !o.logits.empty()) throw UsageError("--weights and --logits both give the law: give one");
    if (!o.logits.empty()) {
      refuse_with("draws against --logits", {{!o.uniforms.empty(), "--uniforms", "a token draw's uniform is checked by its sampler's tests (docs/tokens.md)"},
                               {o.dtype.has_value(), "--dtype", "logits give their type by the file or --logit-type"}});
    }
    if (o.adds_in_order && o.uniforms.empty()) throw UsageError("--adds-in-order goes with --uniforms (it sharpens the draw-by-draw check)");
    FileOptions fo{o.weights, o.draws, o.uniforms, o.dtype, o.alpha, o.adds_in_order, o.row_seeds};
    fo.logits = o.logits;
    fo.logit_type = o.logit_type;
    fo.sampling = {o.temperature.value_or(1.0f), o.top_k.value_or(0), o.top_p.value_or(1.0f), o.min_p.value_or(0.0f)};
    if (const auto why = refused_sampling(fo.sampling); !why.empty()) throw UsageError(why);
    report = check_files(inputs, fo, progress);
  } else {
    if (!o.uniforms.empty()) throw UsageError("--uniforms goes with --draws (a file of draws)");
    if (!o.row_seeds.empty()) throw UsageError("--row-seeds goes with --draws (a file of draws)");
    if (o.adds_in_order) throw UsageError("--adds-in-order goes with --draws and --uniforms (a plugin declares it with WARPSIM_ADDS_IN_ORDER)");
    if (plugin_way) {
      if (o.on != "auto") throw UsageError("--on applies to --builtin and --mutants; a plugin says where it runs");
      const auto plugin = Plugin::load(o.plugin);
      const warpsim_sampler& raw = plugin->find(o.sampler);
      if (!raw.draw_rows) {  // values of a continuous law (ABI version 3)
        if (o.law.empty()) {
          throw UsageError("plugin '" + printable(o.plugin, 200) + "', sampler '" + raw.name + "' draws values of the " + plugin->v3_of(raw)->law +
                           " law (ABI version 3): give --law " + plugin->v3_of(raw)->law + ":PARAMETERS, the parameters to draw with");
        }
        refuse_with("a plugin's values", {{!o.weights.empty(), "--weights", "a continuous law is named by --law"}, {o.target_tv.has_value(), "--target-tv"},
                                          {o.row_draws != 0, "--row-draws"}, {o.tests.has_value(), "--tests", "no inputs are generated"},
                                          {o.max_rows.has_value(), "--max-rows"}, {o.max_cols.has_value(), "--max-k"}, {o.dtype.has_value(), "--dtype"},
                                          {o.counterexample.has_value(), "--counterexample", "nothing is shrunk: the law's parameters are given"}});
        if (comm.distributed()) {
          throw UsageError("under mpirun with " + std::to_string(comm.size()) + " processes, validate shares the draws of a sampler of indices; '" +
                           raw.name + "' draws values: run it on one process");
        }
        PluginValuesOptions po{o.law, o.draws_count.value_or(1000000), o.seed.value_or(1), o.alpha, o.clamp};
        report = check_plugin_values(*plugin, raw, po, progress);
      } else if (o.clamp.low || o.clamp.high) {
        throw UsageError("--clamp-low and --clamp-high go with a sampler of values; '" + std::string(raw.name) + "' draws indices");
      } else if (!o.law.empty()) {
        throw UsageError("--law goes with --values, or with a plugin's sampler of values (ABI version 3); '" + std::string(raw.name) + "' draws indices");
      } else {
        if (!(raw.dtypes & (WARPSIM_DTYPE_BIT(WARPSIM_F32) | WARPSIM_DTYPE_BIT(WARPSIM_F64)))) {
          throw UsageError("plugin '" + printable(o.plugin, 200) + "', sampler '" + raw.name +
                           "' takes only bf16 or fp16 weights: validate generates fp32 and fp64 weights (16-bit ones come with token sampling)");
        }
        SamplerUnderTest s;
        s.sampler = plugin->as_sampler(raw);
        s.kind = "plugin";
        s.subject = "plugin '" + o.plugin + "', sampler '" + raw.name + "' (" + plugin->describe(raw) + ")";
        s.take_error = [plugin] { return plugin->take_error(); };
        // The law's draws: this process's share of them (all of them alone).
        auto share = [plugin, &raw](const dist::Communicator& c, std::size_t k, std::uint64_t n, bool row_draws) {
          const auto sh = dist::share_of(n, plugin->law_grain(raw, k, row_draws), c.rank(), c.size());
          return Plugin::DrawRange{sh.first, sh.count};
        };
        s.law32 = [plugin, &raw, share](const dist::Communicator& c, const std::vector<float>& w, std::uint64_t n, std::uint64_t seed, LawCounter& ctr,
                                        const std::function<void(std::uint64_t)>& p) {
          return plugin->draw_law<float>(raw, w, n, seed, ctr, p, share(c, w.size(), n, false));
        };
        s.law64 = [plugin, &raw, share](const dist::Communicator& c, const std::vector<double>& w, std::uint64_t n, std::uint64_t seed, LawCounter& ctr,
                                        const std::function<void(std::uint64_t)>& p) {
          return plugin->draw_law<double>(raw, w, n, seed, ctr, p, share(c, w.size(), n, false));
        };
        if (const auto* v3 = plugin->v3_of(raw); v3 && v3->draw_row_draws) {
          s.row_law32 = [plugin, &raw, share](const dist::Communicator& c, const std::vector<float>& w, std::uint64_t n, std::uint64_t seed, LawCounter& ctr,
                                              const std::function<void(std::uint64_t)>& p) {
            return plugin->draw_row_law<float>(raw, w, n, seed, ctr, p, share(c, w.size(), n, true));
          };
          s.row_law64 = [plugin, &raw, share](const dist::Communicator& c, const std::vector<double>& w, std::uint64_t n, std::uint64_t seed, LawCounter& ctr,
                                              const std::function<void(std::uint64_t)>& p) {
            return plugin->draw_row_law<double>(raw, w, n, seed, ctr, p, share(c, w.size(), n, true));
          };
        }
        so.replay_prefix = "warpsim validate --plugin " + quote(o.plugin) + " --sampler " + raw.name;
        report = check_sampler_report(inputs, s, so, progress);
      }
    } else if (builtin_way && is_value_algorithm(o.builtin)) {
      report = builtin_values_report(o, so, progress);
    } else if (builtin_way) {
      if (!o.law.empty()) throw UsageError("--law goes with --values, a plugin's sampler of values, or a built-in one (" + value_names() + ")");
      if (o.clamp.low || o.clamp.high) throw UsageError("--clamp-low and --clamp-high go with a sampler of values (" + value_names() + "), not indices");
      const properties::Algorithm* a = nullptr;
      try {
        a = &properties::find_algorithm(o.builtin);
      } catch (const std::invalid_argument& e) {
        throw UsageError(std::string("--builtin: ") + e.what());
      }
      SamplerUnderTest s;
      const bool gpu_runs = a->gpu && a->gpu->unavailable().empty();
      if (o.on == "gpu" && !gpu_runs) {
        throw UsageError("--on gpu: " + a->name + (a->gpu ? " has a kernel, but " + a->gpu->unavailable() : std::string(" has no GPU entry in this build")));
      }
      s.sampler = o.on != "oracle" && gpu_runs ? *a->gpu : a->oracle;
      s.kind = "builtin";
      s.subject = "built-in " + a->name + " (" + a->listing + ") on the " + (s.sampler.where == "GPU" ? "GPU" : "warp model (its oracle)") +
                  (o.on == "auto" && !gpu_runs ? "; no GPU here" + (a->gpu ? ": " + a->gpu->unavailable() : std::string()) : "");
      so.replay_prefix = "warpsim validate --builtin " + a->name + (s.sampler.where == "GPU" ? " --on gpu" : " --on oracle");
      report = check_sampler_report(inputs, s, so, progress);
    } else {
      if (!o.weights.empty()) throw UsageError("--weights does not apply to --mutants");
      if (o.row_draws != 0) throw UsageError("--row-draws does not apply to --mutants");
      const bool cuda = o.on == "gpu";
      report = mutants_report(so, cuda, o.only, progress);
    }
  }
  report.seconds = comm.max(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  report.processes = comm.size();
  if (comm.rank() != 0) return comm.broadcast(0);  // rank 0 holds the whole report (the properties ran there)
  const int code = report.consistent() ? kExitOk : kExitFailureFound;
  comm.broadcast(code);
  if (o.format == "json") {
    out << render_json(report).dump(2) << "\n";
  } else if (o.format == "html") {
    out << render_html(report, layout_svg(report));
  } else {
    out << render_text(report);
  }
  return code;
}

}  // namespace

int run_validate(const ValidateOptions& o, std::ostream& out, const InputSource& inputs, std::ostream* progress_out) {
  if (o.time_limit && o.plugin.empty()) throw UsageError("--time-limit bounds a plugin's worker: it goes with --plugin");
  if (o.time_limit && !(*o.time_limit >= 1 && *o.time_limit <= 1e6)) throw UsageError("--time-limit must lie in [1, 10^6] seconds");
  if (o.plugin.empty()) {
    if (!dist::launched_by_mpirun()) return validate_here(o, out, inputs, progress_out, dist::Communicator::world());
    // Under mpirun: a failure on any rank ends the job, naming the rank, so
    // that no rank waits for another's counts forever.
    const dist::Communicator& comm = dist::Communicator::world();
    if (!comm.distributed()) return validate_here(o, out, inputs, progress_out, comm);
    try {
      return validate_here(o, out, inputs, progress_out, comm);
    } catch (const UsageError& e) {
      comm.abort(kExitUsage, e.what());
    } catch (const std::exception& e) {
      comm.abort(kExitInternal, std::string("internal error: ") + printable(e.what(), 400) + " (please report it)");
    }
  }
  // A plugin's code runs in a worker process it cannot outlive or end the
  // verdict from (cli/validate/sandbox.hpp).
  const std::string who = "plugin '" + printable(o.plugin, 200) + "'";
  const double limit = o.time_limit.value_or(kDefaultTimeLimit);
  if (!dist::launched_by_mpirun()) {
    const auto r = run_in_worker([&](std::ostream& w) { return validate_here(o, w, inputs, progress_out, dist::Communicator::self()); }, who, limit);
    out << r.output;
    return r.exit_code;
  }
  // Under mpirun the worker, forked before MPI starts, reaches the other
  // ranks through its parent (cli/validate/relay.hpp); whatever ends one
  // rank's worker without a report ends the job, naming the rank.
  std::optional<dist::Communicator> worker_comm;
  const Channel channel = relay_channel(worker_comm);
  try {
    const auto r = run_in_worker([&](std::ostream& w) { return validate_here(o, w, inputs, progress_out, *worker_comm); }, who, limit, &channel);
    out << r.output;
    return r.exit_code;
  } catch (const UsageError& e) {
    dist::Communicator::world().abort(kExitUsage, e.what());
  } catch (const std::exception& e) {
    dist::Communicator::world().abort(kExitInternal, std::string("internal error: ") + printable(e.what(), 400) + " (please report it)");
  }
}

}  // namespace warpsim::cli
