#include "cli/validate/plugin.hpp"

#include <dlfcn.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "cli/errors.hpp"
#include "cli/input/sources.hpp"
#include "cli/validate/device.hpp"
#include "cli/validate/sandbox.hpp"

namespace warpsim::cli::validate {

namespace {

// The draws of one row (draw_row_draws) a call: samplers.cpp's
// law_through_row_draws makes the same.
constexpr std::uint64_t kRowLawChunk = std::uint64_t{1} << 22;

// Rows of k weights in one draw_rows call of the law: up to 2^26 weights.
std::uint64_t rows_chunk(std::size_t k) { return std::max<std::uint64_t>(1, (std::uint64_t{1} << 26) / static_cast<std::uint64_t>(k)); }

// ---- a crash inside a plugin call: the message names the call, exit 2 ----

char g_crash_message[2048];
std::size_t g_crash_length = 0;
constexpr int kSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
struct sigaction g_previous[std::size(kSignals)];

extern "C" void on_plugin_crash(int sig) {
  const char* name = sig == SIGSEGV ? "SIGSEGV, a bad memory access"
                     : sig == SIGBUS ? "SIGBUS, a bad memory access"
                     : sig == SIGFPE ? "SIGFPE, an arithmetic fault"
                     : sig == SIGILL ? "SIGILL, an illegal instruction"
                                     : "SIGABRT, an abort";
  const char head[] = "warpsim: ";
  [[maybe_unused]] auto a = ::write(STDERR_FILENO, head, sizeof head - 1);
  [[maybe_unused]] auto b = ::write(STDERR_FILENO, g_crash_message, g_crash_length);
  const char mid[] = " (signal ";
  [[maybe_unused]] auto c = ::write(STDERR_FILENO, mid, sizeof mid - 1);
  [[maybe_unused]] auto d = ::write(STDERR_FILENO, name, std::strlen(name));
  const char tail[] = "); nothing after it was run\n";
  [[maybe_unused]] auto e = ::write(STDERR_FILENO, tail, sizeof tail - 1);
  ::_exit(kExitUsage);
}

// While alive, a crash is reported as the plugin's (with its own stack, so a
// stack overflow in the plugin is caught too).
class CallGuard {
 public:
  explicit CallGuard(const std::string& what) {
    note_call(what);  // the worker's parent names it if the plugin ends the worker here
    const std::string m = what + " crashed";
    g_crash_length = std::min(m.size(), sizeof g_crash_message);
    std::memcpy(g_crash_message, m.data(), g_crash_length);
    static const bool stack_ready = [] {
      static std::vector<char> stack(1 << 16);
      stack_t ss{};
      ss.ss_sp = stack.data();
      ss.ss_size = stack.size();
      return ::sigaltstack(&ss, nullptr) == 0;
    }();
    struct sigaction sa {};
    sa.sa_handler = on_plugin_crash;
    sa.sa_flags = stack_ready ? SA_ONSTACK : 0;
    sigemptyset(&sa.sa_mask);
    for (std::size_t i = 0; i < std::size(kSignals); ++i) ::sigaction(kSignals[i], &sa, &g_previous[i]);
  }
  ~CallGuard() {
    for (std::size_t i = 0; i < std::size(kSignals); ++i) ::sigaction(kSignals[i], &g_previous[i], nullptr);
    note_call("");
  }
};

bool valid_name(const char* s) {
  if (!s || !*s) return false;
  for (const char* p = s; *p; ++p) {
    const char c = *p;
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-') || p - s > 200) return false;
  }
  return true;
}

template <class T>
constexpr warpsim_dtype dtype_of() {
  return sizeof(T) == 4 ? WARPSIM_F32 : WARPSIM_F64;
}

}  // namespace

std::shared_ptr<Plugin> Plugin::load(const std::string& path) {
  std::shared_ptr<Plugin> p(new Plugin);
  p->path_ = path;
  const std::string quoted = "plugin '" + printable(path, 200) + "'";
  if (::access(path.c_str(), F_OK) != 0) throw UsageError(quoted + ": no such file");
  refuse_unless_regular(path, "plugin");  // dlopen on a FIFO blocks forever
  // A bare name would be searched for on the library path: say what was meant.
  const std::string load_path = path.find('/') == std::string::npos ? "./" + path : path;
  {
    CallGuard guard(quoted + " (while loading: its static initialisers)");
    p->handle_ = ::dlopen(load_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  }
  if (!p->handle_) {
    const char* e = ::dlerror();
    throw UsageError(quoted + " does not load: " + printable(e ? e : "dlopen failed", 300));
  }
  ::dlerror();
  void* sym = ::dlsym(p->handle_, WARPSIM_PLUGIN_ENTRY_SYMBOL);
  if (!sym) {
    throw UsageError(quoted + " has no symbol " WARPSIM_PLUGIN_ENTRY_SYMBOL
                     " (a plugin exports it as extern \"C\" with WARPSIM_PLUGIN_EXPORT; see include/warpsim/plugin.h)");
  }
  const auto entry = reinterpret_cast<warpsim_plugin_entry_fn>(sym);
  {
    CallGuard guard(quoted + ", " WARPSIM_PLUGIN_ENTRY_SYMBOL "()");
    p->table_ = entry();
  }
  if (!p->table_) throw UsageError(quoted + ": " WARPSIM_PLUGIN_ENTRY_SYMBOL "() returned NULL");
  const auto& t = *p->table_;
  if (t.abi_version < 1 || t.abi_version > WARPSIM_PLUGIN_ABI_VERSION) {
    throw UsageError(quoted + " was built for warpsim plugin ABI version " + std::to_string(t.abi_version) + "; this warpsim reads versions 1 to " +
                     std::to_string(WARPSIM_PLUGIN_ABI_VERSION) + " (rebuild it against this warpsim's include/warpsim/plugin.h)");
  }
  if (t.sampler_count == 0 || !t.samplers) throw UsageError(quoted + " offers no samplers (sampler_count is 0 or samplers is NULL)");
  if (t.sampler_count > 1000) throw UsageError(quoted + " claims " + std::to_string(t.sampler_count) + " samplers; at most 1000 are read");
  for (std::uint32_t i = 0; i < t.sampler_count; ++i) {
    const warpsim_sampler& s = t.samplers[i];
    const std::string which = quoted + ", sampler " + std::to_string(i);
    if (!valid_name(s.name)) throw UsageError(which + " has no valid name (letters, digits, '_', '.', '-'; at most 200)");
    const std::string named = quoted + ", sampler '" + s.name + "'";
    for (const auto* other : p->samplers_)
      if (std::strcmp(other->name, s.name) == 0) throw UsageError(named + " is offered twice");
    if (s.memory != WARPSIM_HOST_MEMORY && s.memory != WARPSIM_DEVICE_MEMORY) {
      throw UsageError(named + ": memory is " + std::to_string(s.memory) + ", neither WARPSIM_HOST_MEMORY nor WARPSIM_DEVICE_MEMORY");
    }
    if (s.flags & ~static_cast<std::uint32_t>(WARPSIM_REPLAYABLE | WARPSIM_ADDS_IN_ORDER)) {
      throw UsageError(named + ": unknown flags " + std::to_string(s.flags) + " (ABI version 1 knows WARPSIM_REPLAYABLE and WARPSIM_ADDS_IN_ORDER)");
    }
    const std::uint32_t wide = WARPSIM_DTYPE_BIT(WARPSIM_F32) | WARPSIM_DTYPE_BIT(WARPSIM_F64);
    const std::uint32_t known = t.abi_version >= 3 ? wide | WARPSIM_DTYPE_BIT(WARPSIM_BF16) | WARPSIM_DTYPE_BIT(WARPSIM_F16) : wide;
    const warpsim_sampler_v3* v3 = t.abi_version >= 3 && t.v3 ? &t.v3[i] : nullptr;
    const bool values_only = v3 && v3->draw_values && !s.draw_rows;
    if (!values_only && (s.dtypes == 0 || (s.dtypes & ~known))) {
      throw UsageError(named + ": dtypes must name the weights it takes (WARPSIM_DTYPE_BIT of fp32, fp64" +
                       std::string(t.abi_version >= 3 ? ", bf16, fp16" : "") + ")");
    }
    if (!s.draw_rows && !values_only) throw UsageError(named + " has no draw_rows entry (it is required of a sampler of indices)");
    if (v3) {
      if (v3->reserved[0] || v3->reserved[1] || v3->reserved[2]) throw UsageError(named + ": its version-3 entry's reserved fields must be 0");
      if (v3->draw_values) {
        static const char* const laws[] = {"uniform", "normal", "exponential", "gamma", "beta", "truncated-normal", "dirichlet"};
        if (!v3->law || std::none_of(std::begin(laws), std::end(laws), [&](const char* l) { return std::strcmp(l, v3->law) == 0; })) {
          throw UsageError(named + ": draw_values needs its law named: uniform, normal, exponential, gamma, beta, truncated-normal or dirichlet");
        }
        if (v3->value_dtypes == 0 || (v3->value_dtypes & ~(wide | WARPSIM_DTYPE_BIT(WARPSIM_BF16) | WARPSIM_DTYPE_BIT(WARPSIM_F16)))) {
          throw UsageError(named + ": value_dtypes must name the value types draw_values writes");
        }
      } else if (v3->law || v3->value_dtypes) {
        throw UsageError(named + ": law and value_dtypes go with draw_values, which it does not give");
      }
    }
    if (t.abi_version == 1 && s.alias_build) throw UsageError(named + ": the reserved field (alias_build) must be NULL in ABI version 1");
    if (s.alias_build) {
      if (s.alias_build->keep_format > WARPSIM_KEEP_U64) {
        throw UsageError(named + ": alias_build's keep_format is " + std::to_string(s.alias_build->keep_format) +
                         ", none of WARPSIM_KEEP_F32, WARPSIM_KEEP_F64, WARPSIM_KEEP_U64");
      }
      if (!s.alias_build->build) throw UsageError(named + ": alias_build has no build entry");
    }
    p->samplers_.push_back(&s);
    p->v3_.push_back(v3);
  }
  return p;
}

const warpsim_sampler_v3* Plugin::v3_of(const warpsim_sampler& s) const {
  for (std::size_t i = 0; i < samplers_.size(); ++i)
    if (samplers_[i] == &s) return v3_[i];
  return nullptr;
}

Plugin::~Plugin() {
  // The library stays loaded: a plugin's CUDA kernels and atexit handlers may
  // outlive this object (dlclose would unmap their code).
}

const warpsim_sampler& Plugin::find(const std::string& name) const {
  std::string names;
  for (const auto* s : samplers_) {
    if (name.empty() ? samplers_.size() == 1 : name == s->name) return *s;
    names += (names.empty() ? "" : ", ") + std::string(s->name);
  }
  const std::string quoted = "plugin '" + printable(path_, 200) + "'";
  if (name.empty()) throw UsageError(quoted + " offers " + std::to_string(samplers_.size()) + " samplers: choose one with --sampler (" + names + ")");
  throw UsageError(quoted + " offers no sampler '" + printable(name) + "' (it offers: " + names + ")");
}

std::string Plugin::describe(const warpsim_sampler& s) const {
  std::string d = s.memory == WARPSIM_DEVICE_MEMORY ? "device memory" : "host memory";
  const auto* v3 = v3_of(s);
  if (s.draw_rows) {
    d += s.flags & WARPSIM_REPLAYABLE ? ", replayable" : ", checked in law";
    std::string types;
    for (const auto& [bit, name] : {std::pair{WARPSIM_F32, "fp32"}, {WARPSIM_F64, "fp64"}, {WARPSIM_BF16, "bf16"}, {WARPSIM_F16, "fp16"}})
      if (s.dtypes & WARPSIM_DTYPE_BIT(bit)) types += std::string(types.empty() ? ", " : ", ") + name;
    d += types;
  }
  if (v3 && v3->draw_row_draws) d += ", S draws a row (each row's seed and offset)";
  if (v3 && v3->draw_values) d += std::string(", values of the ") + v3->law + " law";
  if (s.alias_build) {
    d += s.alias_build->keep_format == WARPSIM_KEEP_F32   ? ", an alias-table builder (fp32 keeps)"
         : s.alias_build->keep_format == WARPSIM_KEEP_F64 ? ", an alias-table builder (fp64 keeps)"
                                                          : ", an alias-table builder (64-bit thresholds)";
  }
  return d;
}

void Plugin::fail(const warpsim_sampler& s, const std::string& entry, const std::string& why) {
  throw UsageError("plugin '" + printable(path_, 200) + "', sampler '" + s.name + "', " + entry + ": " + why);
}

std::string Plugin::take_error() {
  std::string e;
  e.swap(error_);
  return e;
}

std::string Plugin::last_error_text(const std::string& call) {
  const char* msg = nullptr;
  if (table_->last_error) {
    CallGuard guard(call + " (last_error)");
    msg = table_->last_error();
  }
  return msg ? printable(msg, 300) : std::string("no last_error message");
}

template <class T>
std::vector<int> Plugin::draw_rows(const warpsim_sampler& s, const properties::Matrix<T>& m, std::uint64_t seed) {
  std::vector<std::int32_t> idx(static_cast<std::size_t>(m.rows), -1);
  const std::string call = "plugin '" + printable(path_, 200) + "', sampler '" + s.name + "', draw_rows";
  auto returned = [&](int rc) {
    if (rc == WARPSIM_OK) return;
    const std::string text = last_error_text(call);
    // The sampler's own failure, for the properties to report (not the run's).
    if (rc == WARPSIM_FAULT) throw std::runtime_error("the sampler reported a fault (WARPSIM_FAULT): " + text);
    fail(s, "draw_rows", "returned " + std::to_string(rc) + ": " + text);
  };
  if (s.memory == WARPSIM_HOST_MEMORY) {
    int rc = 0;
    {
      CallGuard guard(call);
      rc = s.draw_rows(s.context, m.weights.data(), dtype_of<T>(), m.rows, m.cols, seed, idx.data());
    }
    returned(rc);
  } else {
    if (const auto why = device::unavailable(); !why.empty()) fail(s, "draw_rows", "it takes device memory, and " + why);
    device::Buffer w(m.weights.size() * sizeof(T), call + ": the weights"), out(idx.size() * sizeof(std::int32_t), call + ": the indices");
    w.upload(m.weights.data(), w.bytes());
    out.upload(idx.data(), out.bytes());
    int rc = 0;
    {
      CallGuard guard(call);
      rc = s.draw_rows(s.context, w.get(), dtype_of<T>(), m.rows, m.cols, seed, static_cast<std::int32_t*>(out.get()));
    }
    if (const auto e = device::synchronize_error(); !e.empty()) fail(s, "draw_rows", "its launch left " + e);
    returned(rc);
    out.download(idx.data(), out.bytes());
  }
  return {idx.begin(), idx.end()};
}

template <class T>
std::vector<int> Plugin::draw_row_draws(const warpsim_sampler& s, const properties::Matrix<T>& m, std::uint64_t seed, int draws) {
  const auto& entry = *v3_of(s);
  const auto total = static_cast<std::size_t>(m.rows) * static_cast<std::size_t>(draws);
  std::vector<std::int32_t> idx(total, -1);
  // Each row its own stream of the run's seed: row r's counter starts at
  // r 2^32, so that no two rows share a uniform (S < 2^32).
  std::vector<std::uint64_t> seeds(static_cast<std::size_t>(m.rows), seed), offsets(static_cast<std::size_t>(m.rows));
  for (std::size_t r = 0; r < offsets.size(); ++r) offsets[r] = static_cast<std::uint64_t>(r) << 32;
  const std::string call = "plugin '" + printable(path_, 200) + "', sampler '" + s.name + "', draw_row_draws";
  int rc = 0;
  if (s.memory == WARPSIM_HOST_MEMORY) {
    CallGuard guard(call);
    rc = entry.draw_row_draws(s.context, m.weights.data(), dtype_of<T>(), m.rows, m.cols, draws, seeds.data(), offsets.data(), idx.data());
  } else {
    if (const auto why = device::unavailable(); !why.empty()) fail(s, "draw_row_draws", "it takes device memory, and " + why);
    device::Buffer w(m.weights.size() * sizeof(T), call + ": the weights"), out(total * sizeof(std::int32_t), call + ": the indices");
    w.upload(m.weights.data(), w.bytes());
    out.upload(idx.data(), out.bytes());
    {
      CallGuard guard(call);
      rc = entry.draw_row_draws(s.context, w.get(), dtype_of<T>(), m.rows, m.cols, draws, seeds.data(), offsets.data(),
                                static_cast<std::int32_t*>(out.get()));
    }
    if (const auto e = device::synchronize_error(); !e.empty()) fail(s, "draw_row_draws", "its launch left " + e);
    out.download(idx.data(), out.bytes());
  }
  if (rc != WARPSIM_OK) {
    const std::string text = last_error_text(call);
    if (rc == WARPSIM_FAULT) throw std::runtime_error("the sampler reported a fault (WARPSIM_FAULT): " + text);
    fail(s, "draw_row_draws", "returned " + std::to_string(rc) + ": " + text);
  }
  return {idx.begin(), idx.end()};
}

template <class T>
properties::AliasTableImage Plugin::build_table(const warpsim_sampler& s, std::span<const T> w) {
  const auto k = static_cast<std::int64_t>(w.size());
  const auto& b = *s.alias_build;
  const std::size_t keep_bytes = b.keep_format == WARPSIM_KEEP_F32 ? 4 : 8;
  std::vector<unsigned char> keep(w.size() * keep_bytes, 0);
  std::vector<std::int32_t> alias(w.size(), -1);
  const std::string call = "plugin '" + printable(path_, 200) + "', sampler '" + s.name + "', alias_build";
  int rc = 0;
  if (s.memory == WARPSIM_HOST_MEMORY) {
    CallGuard guard(call);
    rc = b.build(s.context, w.data(), dtype_of<T>(), k, keep.data(), alias.data());
  } else {
    if (const auto why = device::unavailable(); !why.empty()) fail(s, "alias_build", "it takes device memory, and " + why);
    device::Buffer dw(w.size() * sizeof(T), call + ": the weights"), dkeep(keep.size(), call + ": keep"),
        dalias(alias.size() * sizeof(std::int32_t), call + ": alias");
    dw.upload(w.data(), dw.bytes());
    dkeep.upload(keep.data(), dkeep.bytes());
    dalias.upload(alias.data(), dalias.bytes());
    {
      CallGuard guard(call);
      rc = b.build(s.context, dw.get(), dtype_of<T>(), k, dkeep.get(), static_cast<std::int32_t*>(dalias.get()));
    }
    if (const auto e = device::synchronize_error(); !e.empty()) fail(s, "alias_build", "its launch left " + e);
    dkeep.download(keep.data(), dkeep.bytes());
    dalias.download(alias.data(), dalias.bytes());
  }
  if (rc != WARPSIM_OK) {
    const std::string text = last_error_text(call);
    if (rc == WARPSIM_FAULT) throw std::runtime_error("the builder reported a fault (WARPSIM_FAULT): " + text);
    fail(s, "alias_build", "returned " + std::to_string(rc) + ": " + text);
  }
  properties::AliasTableImage image;
  image.alias.assign(alias.begin(), alias.end());
  image.keep.resize(w.size());
  for (std::size_t r = 0; r < w.size(); ++r) {
    if (b.keep_format == WARPSIM_KEEP_F32) {
      float x;
      std::memcpy(&x, keep.data() + 4 * r, 4);
      image.keep[r] = x;
    } else if (b.keep_format == WARPSIM_KEEP_F64) {
      double x;
      std::memcpy(&x, keep.data() + 8 * r, 8);
      image.keep[r] = x;
    } else {
      std::uint64_t x;
      std::memcpy(&x, keep.data() + 8 * r, 8);
      image.keep[r] = std::ldexp(static_cast<long double>(x), -64);
    }
  }
  image.resolution = b.keep_format == WARPSIM_KEEP_F32 ? std::ldexp(1.0L, -24) : b.keep_format == WARPSIM_KEEP_F64 ? std::ldexp(1.0L, -53)
                                                                                                                      : std::ldexp(1.0L, -64);
  return image;
}

properties::Sampler Plugin::as_sampler(const warpsim_sampler& s) {
  properties::Sampler out;
  out.name = s.name;
  out.algorithm = s.name;
  out.where = "plugin '" + path_ + "' (" + describe(s) + ")";
  out.determinism = s.flags & WARPSIM_REPLAYABLE ? properties::Determinism::Replayable : properties::Determinism::InLaw;
  out.adds_in_order = (s.flags & WARPSIM_ADDS_IN_ORDER) != 0;
  auto wrap = [this, &s](auto zero) {
    using T = decltype(zero);
    return properties::MatrixDraw<T>([this, &s](const properties::Matrix<T>& m, std::uint64_t seed) {
      if (!error_.empty()) throw std::runtime_error(error_);  // stop at once: the run is void
      try {
        return draw_rows<T>(s, m, seed);
      } catch (const UsageError& e) {
        error_ = e.what();
        throw;
      }
    });
  };
  if (s.dtypes & WARPSIM_DTYPE_BIT(WARPSIM_F32)) out.f32 = wrap(0.0f);
  if (s.dtypes & WARPSIM_DTYPE_BIT(WARPSIM_F64)) out.f64 = wrap(0.0);
  if (s.alias_build) {
    auto tables = [this, &s](auto zero) {
      using T = decltype(zero);
      return properties::TableBuild<T>([this, &s](std::span<const T> w) {
        if (!error_.empty()) throw std::runtime_error(error_);
        try {
          return build_table<T>(s, w);
        } catch (const UsageError& e) {
          error_ = e.what();
          throw;
        }
      });
    };
    if (s.dtypes & WARPSIM_DTYPE_BIT(WARPSIM_F32)) out.table32 = tables(0.0f);
    if (s.dtypes & WARPSIM_DTYPE_BIT(WARPSIM_F64)) out.table64 = tables(0.0);
  }
  if (const auto* v3 = v3_of(s); v3 && v3->draw_row_draws) {
    // Its draw 0 of a row follows the row's own stream, not draw_rows's.
    out.row_draws_begin_with_the_one_draw = false;
    auto rows = [this, &s](auto zero) {
      using T = decltype(zero);
      return properties::RowDraws<T>([this, &s](const properties::Matrix<T>& m, std::uint64_t seed, int draws) {
        if (!error_.empty()) throw std::runtime_error(error_);
        try {
          return draw_row_draws<T>(s, m, seed, draws);
        } catch (const UsageError& e) {
          error_ = e.what();
          throw;
        }
      });
    };
    if (s.dtypes & WARPSIM_DTYPE_BIT(WARPSIM_F32)) out.rows32 = rows(0.0f);
    if (s.dtypes & WARPSIM_DTYPE_BIT(WARPSIM_F64)) out.rows64 = rows(0.0);
  }
  if (s.memory == WARPSIM_DEVICE_MEMORY) out.unavailable = [] { return device::unavailable(); };
  return out;
}

std::uint64_t Plugin::law_grain(const warpsim_sampler& s, std::size_t k, bool row_draws) const {
  if (row_draws) return kRowLawChunk;
  return s.draw_many ? std::uint64_t{1} << 12 : rows_chunk(k);
}

template <class T>
std::string Plugin::draw_law(const warpsim_sampler& s, const std::vector<T>& weights, std::uint64_t n, std::uint64_t seed, LawCounter& counter,
                             const std::function<void(std::uint64_t)>& progress, std::optional<DrawRange> share) {
  const std::int64_t k = static_cast<std::int64_t>(weights.size());
  const std::string call = "plugin '" + printable(path_, 200) + "', sampler '" + s.name + "'";
  const bool device = s.memory == WARPSIM_DEVICE_MEMORY;
  if (device) {
    if (const auto why = device::unavailable(); !why.empty()) fail(s, "draw_many", "it takes device memory, and " + why);
  }
  // Chunks: draw_many takes up to 2^24 draws a call; draw_rows up to 2^26 weights.
  const std::uint64_t chunk = s.draw_many ? std::uint64_t{1} << 24 : rows_chunk(weights.size());
  const DrawRange mine = share.value_or(DrawRange{0, n});
  std::vector<T> rows;  // copies of the row, for draw_rows
  if (!s.draw_many) {
    rows.reserve(static_cast<std::size_t>(std::min(chunk, mine.count) * static_cast<std::uint64_t>(k)));
    for (std::uint64_t r = 0; r < std::min(chunk, mine.count); ++r) rows.insert(rows.end(), weights.begin(), weights.end());
  }
  const auto& host = s.draw_many ? weights : rows;
  std::unique_ptr<device::Buffer> d_weights;
  if (device) {
    d_weights = std::make_unique<device::Buffer>(host.size() * sizeof(T), call + ": the weights");
    d_weights->upload(host.data(), d_weights->bytes());
  }
  const void* w = device ? d_weights->get() : static_cast<const void*>(host.data());
  const char* entry = s.draw_many ? "draw_many" : "draw_rows";
  return count_law<T>(s, entry, weights, mine, chunk, counter, progress, [&](std::uint64_t first, std::uint64_t m, std::int32_t* out) {
    if (s.draw_many) return s.draw_many(s.context, w, dtype_of<T>(), k, static_cast<std::int64_t>(m), seed, first, out);
    // Row r of this chunk is draw first + r: the seed's stream continues
    // across chunks by a new seed per chunk (a replayable sampler keys row
    // r's uniform by (seed, r)).
    return s.draw_rows(s.context, w, dtype_of<T>(), static_cast<std::int64_t>(m), k, seed + first / chunk, out);
  });
}

namespace {

// A bfloat16's value: the upper half of a float32.
double bf16_value(std::uint16_t h) {
  const std::uint32_t bits = static_cast<std::uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// An IEEE binary16's value (subnormals, infinities and NaN included).
double f16_value(std::uint16_t h) {
  const int sign = h >> 15, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  double v;
  if (exponent == 0x1f) {
    v = mantissa ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  } else if (exponent == 0) {
    v = std::ldexp(static_cast<double>(mantissa), -24);
  } else {
    v = std::ldexp(static_cast<double>(mantissa + 1024), exponent - 25);
  }
  return sign ? -v : v;
}

}  // namespace

std::vector<double> Plugin::draw_values(const warpsim_sampler& s, const std::vector<double>& params, std::uint64_t n, std::uint64_t seed,
                                        std::uint64_t first, warpsim_dtype dtype) {
  const auto& entry = *v3_of(s);
  const std::string call = "plugin '" + printable(path_, 200) + "', sampler '" + s.name + "'";
  const bool device = s.memory == WARPSIM_DEVICE_MEMORY;
  if (device) {
    if (const auto why = device::unavailable(); !why.empty()) fail(s, "draw_values", "it takes device memory, and " + why);
  }
  const std::size_t bytes = dtype == WARPSIM_F64 ? 8 : dtype == WARPSIM_F32 ? 4 : 2;
  // a Dirichlet draw is K values, K the parameters
  const std::uint64_t per_draw = std::strcmp(entry.law, "dirichlet") == 0 ? params.size() : 1;
  std::vector<unsigned char> host(static_cast<std::size_t>(n * per_draw) * bytes);
  std::unique_ptr<device::Buffer> d_values;
  if (device) d_values = std::make_unique<device::Buffer>(host.size(), call + ": the values");
  int rc = 0;
  {
    CallGuard guard(call + ", draw_values");
    rc = entry.draw_values(s.context, params.data(), static_cast<std::int64_t>(params.size()), static_cast<std::int64_t>(n), seed, first, dtype,
                           device ? d_values->get() : static_cast<void*>(host.data()));
  }
  if (device) {
    if (const auto e = device::synchronize_error(); !e.empty()) fail(s, "draw_values", "its launch left " + e);
  }
  if (rc != WARPSIM_OK) fail(s, "draw_values", "returned " + std::to_string(rc) + ": " + last_error_text(call));
  if (device) d_values->download(host.data(), host.size());
  std::vector<double> out(static_cast<std::size_t>(n * per_draw));
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (dtype == WARPSIM_F32) {
      float f;
      std::memcpy(&f, host.data() + 4 * i, 4);
      out[i] = f;
    } else if (dtype == WARPSIM_F64) {
      std::memcpy(&out[i], host.data() + 8 * i, 8);
    } else {
      std::uint16_t h;
      std::memcpy(&h, host.data() + 2 * i, 2);
      out[i] = dtype == WARPSIM_BF16 ? bf16_value(h) : f16_value(h);
    }
  }
  return out;
}

template <class T>
std::string Plugin::draw_row_law(const warpsim_sampler& s, const std::vector<T>& weights, std::uint64_t n, std::uint64_t seed, LawCounter& counter,
                                 const std::function<void(std::uint64_t)>& progress, std::optional<DrawRange> share) {
  const auto& entry = *v3_of(s);
  const std::int64_t k = static_cast<std::int64_t>(weights.size());
  const std::string call = "plugin '" + printable(path_, 200) + "', sampler '" + s.name + "'";
  const bool device = s.memory == WARPSIM_DEVICE_MEMORY;
  if (device) {
    if (const auto why = device::unavailable(); !why.empty()) fail(s, "draw_row_draws", "it takes device memory, and " + why);
  }
  // The draws samplers.cpp's law_through_row_draws makes through
  // draw_row_draws: one row, 2^22 draws a call, chunk c from seed + c at
  // offset 0. Counted as draw_law counts (a histogram on the GPU for device
  // samplers), so that 10^10 draws never leave the device.
  constexpr std::uint64_t chunk = kRowLawChunk;
  std::unique_ptr<device::Buffer> d_weights;
  if (device) {
    d_weights = std::make_unique<device::Buffer>(weights.size() * sizeof(T), call + ": the weights");
    d_weights->upload(weights.data(), d_weights->bytes());
  }
  const void* w = device ? d_weights->get() : static_cast<const void*>(weights.data());
  return count_law<T>(s, "draw_row_draws", weights, share.value_or(DrawRange{0, n}), chunk, counter, progress,
                      [&](std::uint64_t first, std::uint64_t m, std::int32_t* out) {
    const std::uint64_t row_seed = seed + first / chunk, offset = 0;
    return entry.draw_row_draws(s.context, w, dtype_of<T>(), 1, k, static_cast<std::int64_t>(m), &row_seed, &offset, out);
  });
}

template <class T>
std::string Plugin::count_law(const warpsim_sampler& s, const char* entry, const std::vector<T>& weights, DrawRange share, std::uint64_t chunk,
                              LawCounter& counter, const std::function<void(std::uint64_t)>& progress,
                              const std::function<int(std::uint64_t first, std::uint64_t m, std::int32_t* out)>& draw) {
  const std::int64_t k = static_cast<std::int64_t>(weights.size());
  const std::string call = "plugin '" + printable(path_, 200) + "', sampler '" + s.name + "'";
  const bool device = s.memory == WARPSIM_DEVICE_MEMORY;
  std::unique_ptr<device::Buffer> d_row, d_idx, d_counts;
  if (device) {  // the histogram looks weights up in one row
    d_row = std::make_unique<device::Buffer>(weights.size() * sizeof(T), "the weights");
    d_row->upload(weights.data(), d_row->bytes());
    d_idx = std::make_unique<device::Buffer>(std::max<std::uint64_t>(1, std::min(chunk, share.count)) * sizeof(std::int32_t), call + ": the indices");
    d_counts = std::make_unique<device::Buffer>(static_cast<std::size_t>(k) * sizeof(std::uint64_t), "the histogram");
    d_counts->zero();
  }
  std::vector<std::int32_t> idx(static_cast<std::size_t>(std::min(chunk, share.count)));
  std::string failure;
  std::uint64_t bad_range = 0, bad_zero = 0;
  const std::uint64_t end = share.first + share.count;
  counter.start_at(share.first);
  for (std::uint64_t first = share.first; first < end; first += chunk) {
    const std::uint64_t m = std::min(chunk, end - first);
    auto* out = device ? static_cast<std::int32_t*>(d_idx->get()) : idx.data();
    int rc = 0;
    {
      CallGuard guard(call + ", " + entry);
      rc = draw(first, m, out);
    }
    if (device) {
      if (const auto e = device::synchronize_error(); !e.empty()) fail(s, entry, "its launch left " + e);
    }
    if (rc != WARPSIM_OK) {
      const std::string text = last_error_text(call);
      if (rc == WARPSIM_FAULT) return "fault: draws " + std::to_string(first) + " to " + std::to_string(first + m - 1) + ": the sampler reported a fault (WARPSIM_FAULT): " + text;
      fail(s, entry, "returned " + std::to_string(rc) + ": " + text);
    }
    if (device) {
      const auto f = device::histogram(*d_idx, m, *d_row, sizeof(T), k, *d_counts);
      if ((f.out_of_range || f.zero_weight) && failure.empty()) {
        std::vector<std::int32_t> all(m);
        d_idx->download(all.data(), m * sizeof(std::int32_t));
        if (f.out_of_range) {
          failure = "in_range: draw " + std::to_string(first + f.first_out_of_range) + " is " + std::to_string(all[f.first_out_of_range]) + ", outside [0, " + std::to_string(k) + ")";
        } else {
          failure = "zero_never_drawn: draw " + std::to_string(first + f.first_zero_weight) + " is " + std::to_string(all[f.first_zero_weight]) + ", of weight 0";
        }
      }
      bad_range += f.out_of_range;
      bad_zero += f.zero_weight;
    } else {
      for (std::uint64_t i = 0; i < m; ++i) {
        const std::int32_t v = idx[i];
        if (v < 0 || v >= k) {
          ++bad_range;
          if (failure.empty()) failure = "in_range: draw " + std::to_string(first + i) + " is " + std::to_string(v) + ", outside [0, " + std::to_string(k) + ")";
          continue;
        }
        if (weights[static_cast<std::size_t>(v)] == T(0)) {
          ++bad_zero;
          if (failure.empty()) failure = "zero_never_drawn: draw " + std::to_string(first + i) + " is " + std::to_string(v) + ", of weight 0";
        }
        counter.add(static_cast<std::uint64_t>(v));
      }
    }
    progress(first + m - share.first);
  }
  if (device) {
    std::vector<std::uint64_t> counts(static_cast<std::size_t>(k));
    d_counts->download(counts.data(), counts.size() * sizeof(std::uint64_t));
    counter.add_counts(counts);
  }
  if (!failure.empty()) failure += " (" + std::to_string(bad_range) + " draws outside the range, " + std::to_string(bad_zero) + " of weight 0)";
  return failure;
}

template std::string Plugin::draw_law<float>(const warpsim_sampler&, const std::vector<float>&, std::uint64_t, std::uint64_t, LawCounter&,
                                             const std::function<void(std::uint64_t)>&, std::optional<DrawRange>);
template std::string Plugin::draw_law<double>(const warpsim_sampler&, const std::vector<double>&, std::uint64_t, std::uint64_t, LawCounter&,
                                              const std::function<void(std::uint64_t)>&, std::optional<DrawRange>);
template std::string Plugin::draw_row_law<float>(const warpsim_sampler&, const std::vector<float>&, std::uint64_t, std::uint64_t, LawCounter&,
                                                 const std::function<void(std::uint64_t)>&, std::optional<DrawRange>);
template std::string Plugin::draw_row_law<double>(const warpsim_sampler&, const std::vector<double>&, std::uint64_t, std::uint64_t, LawCounter&,
                                                  const std::function<void(std::uint64_t)>&, std::optional<DrawRange>);

}  // namespace warpsim::cli::validate
