// The bad-input catalogue: every class of careless or hostile input the
// command line has met, one row each, run in-process through cli::run_cli
// with real files under the test build's ASan + UBSan. Each row says what the
// tool must do (exit code, a message or output it must contain), and the
// runner checks more for every row: the message is printable and short, and
// the run ends within its time bound.
//
// docs/bad-input.md shows this table; the test `Catalogue.DocsShowEveryRow`
// fails when they differ (WARPSIM_UPDATE_DOCS=1 rewrites the doc's table).
// A new command adds its rows here, and a fuzz target in fuzz/CMakeLists.txt.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <unistd.h>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "cli/app.hpp"
#include "cli/errors.hpp"
#include "cli/input/sources.hpp"

namespace {

namespace fs = std::filesystem;
using warpsim::cli::kExitFailureFound;
using warpsim::cli::kExitOk;
using warpsim::cli::kExitUsage;

std::string repeat(const std::string& s, std::size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (std::size_t i = 0; i < n; ++i) out += s;
  return out;
}

const std::string kFit = "10\n20\n30\n40\n";                      // agrees with kP
const std::string kBiased = "40\n20\n30\n10\n";                   // does not
const std::string kP = "0.1\n0.2\n0.3\n0.4\n";
constexpr int kEither = -1;  // exit 0 or 1: the test ran, whatever its verdict

struct Case {
  std::string id;          // the test's name: Catalogue/Rows.Holds/<id>
  std::string input_class;
  std::string input;       // the input, for the docs
  std::vector<std::string> args;  // "@name" (or "table:@name") is the path of files[name]; "@dir" a directory
  std::map<std::string, std::string> files;
  int exit_code;           // kEither: 0 or 1
  std::string expect;      // a substring of stderr (exit 2) or stdout (exit 0/1)
  std::string behaviour;   // what warpsim does, for the docs
};

// A .npy file (version 1) of raw little-endian bytes, for the validate rows.
std::string npy(const std::string& descr, const std::string& shape, const std::string& data, bool fortran = false) {
  std::string header = "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") + ", 'shape': " + shape + ", }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out = std::string("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  return out + header + data;
}

std::string int64s(std::initializer_list<long long> v) {
  std::string s;
  for (long long x : v) s.append(reinterpret_cast<const char*>(&x), 8);
  return s;
}

const std::vector<Case>& catalogue() {
  static const std::vector<Case> rows = {
      // --- The three reproducers of issue 10 (memory and termination).
      {"ks_two_sample_total_past_2_64", "count range", "two-sample KS, a count of 1e20 (total past 2^64)",
       {"stats", "ks-two-sample", "--observed", "@a", "--observed2", "@b"}, {{"a", "1\n1e20\n"}, {"b", "1\n0\n"}},
       kExitUsage, "passes 2^53", "refuses: counts and totals lie in [0, 2^53] (it wrote past a buffer)"},
      {"ks_discrete_counts_near_2_60", "count range", "ks-discrete, a count of 2^60",
       {"stats", "ks-discrete", "--observed", "@a", "--probabilities", "@p"}, {{"a", "1152921504606846976\n0\n"}, {"p", "0.5\n0.5\n"}},
       kExitUsage, "passes 2^53", "refuses (it never returned)"},
      {"ks_discrete_counts_2_52", "count range", "ks-discrete, 2^52 draws (inside the range)",
       {"stats", "ks-discrete", "--observed", "@a", "--probabilities", "@p"}, {{"a", "4503599627370496\n0\n"}, {"p", "0.5\n0.5\n"}},
       kExitFailureFound, "Monte-Carlo p-value", "runs: Monte Carlo with Boost's constant-time binomial, rejects"},
      {"show_empty_lanes", "empty value", "`show butterfly --lanes '' --k 4`", {"show", "butterfly", "--lanes", "", "--k", "4"}, {},
       kExitUsage, "an empty value was given to --lanes", "refuses (it divided by zero)"},
      // --- Counts: the supported range and its edges.
      {"counts_total_exactly_2_53", "count range", "chi-square, total exactly 2^53",
       {"stats", "chi-square", "--observed", "@a", "--probabilities", "@p"}, {{"a", "4503599627370496\n4503599627370496\n"}, {"p", "0.5\n0.5\n"}},
       kExitOk, "not rejected", "runs: 2^53 is inside the range"},
      {"counts_total_past_2_53", "count range", "chi-square, total 2^53 + 1",
       {"stats", "chi-square", "--observed", "@a", "--probabilities", "@p"}, {{"a", "9007199254740992\n1\n"}, {"p", "0.5\n0.5\n"}},
       kExitUsage, "passes 2^53", "refuses, naming the entry where the total passes 2^53"},
      {"counts_two_samples_past_2_53", "count range", "homogeneity, each sample 2^52 + 1 draws",
       {"stats", "homogeneity", "--observed", "@a", "--observed2", "@a"}, {{"a", "4503599627370497\n0\n"}},
       kExitUsage, "more than 2^53", "refuses: the pooled sample is counted too"},
      {"counts_negative", "not counts", "a count of -1", {"stats", "g-test", "--observed", "@a", "--probabilities", "@p"},
       {{"a", "10\n-1\n30\n40\n"}, {"p", kP}}, kExitUsage, "entry 1 (-1) is not a non-negative whole number", "refuses, naming the entry"},
      {"counts_fractional", "not counts", "a count of 2.5", {"stats", "binomial", "--observed", "@a", "--probabilities", "@p"},
       {{"a", "10\n2.5\n30\n40\n"}, {"p", kP}}, kExitUsage, "entry 1 (2.5)", "refuses, naming the entry"},
      {"counts_nan", "not counts", "a count of nan", {"stats", "chi-square", "--observed", "@a", "--probabilities", "@p"},
       {{"a", "nan\n20\n30\n40\n"}, {"p", kP}}, kExitUsage, "entry 0 (nan)", "refuses, naming the entry"},
      {"counts_all_zero", "not counts", "all counts 0", {"stats", "chi-square", "--observed", "@a", "--probabilities", "@p"},
       {{"a", "0\n0\n0\n0\n"}, {"p", kP}}, kExitUsage, "all zero", "refuses"},
      // --- Probabilities.
      {"probabilities_not_summing_to_1", "not a law", "probabilities summing to 1.4",
       {"stats", "chi-square", "--observed", "@a", "--probabilities", "@p"}, {{"a", kFit}, {"p", "0.1\n0.2\n0.3\n0.8\n"}},
       kExitUsage, "not 1; pass --normalize", "refuses, offering --normalize"},
      {"probabilities_all_zero_normalized", "not a law", "--normalize of all-zero probabilities",
       {"stats", "g-test", "--observed", "@a", "--probabilities", "@p", "--normalize"}, {{"a", kFit}, {"p", "0\n0\n0\n0\n"}},
       kExitUsage, "all zero", "refuses"},
      {"probabilities_infinite", "not a law", "a probability of inf", {"stats", "ks-discrete", "--observed", "@a", "--probabilities", "@p"},
       {{"a", kFit}, {"p", "inf\n0.2\n0.3\n0.4\n"}}, kExitUsage, "probability 0 is inf", "refuses, naming the entry"},
      {"probabilities_subnormal", "valid input", "a probability of 1e-310 (subnormal)",
       {"stats", "chi-square", "--observed", "@a", "--probabilities", "@p"}, {{"a", "5\n0\n5\n"}, {"p", "0.5\n1e-310\n0.5\n"}},
       kEither, "chi-square", "runs: subnormal numbers read exactly (they were called \"not a number\")"},
      {"lengths_differ", "shape", "3 counts, 4 probabilities", {"stats", "chi-square", "--observed", "@a", "--probabilities", "@p"},
       {{"a", "1\n2\n3\n"}, {"p", kP}}, kExitUsage, "must match", "refuses"},
      // --- Exit codes.
      {"test_passes", "exit codes", "a sample that fits", {"stats", "chi-square", "--observed", "@a", "--probabilities", "@p"},
       {{"a", kFit}, {"p", kP}}, kExitOk, "not rejected", "exit 0"},
      {"test_rejects", "exit codes", "a sample that does not fit", {"stats", "chi-square", "--observed", "@a", "--probabilities", "@p"},
       {{"a", repeat(kBiased, 1)}, {"p", kP}}, kExitFailureFound, "REJECTED", "exit 1, and only then"},
      {"unknown_flag", "usage", "`--no-such-flag`", {"--no-such-flag"}, {}, kExitUsage, "--no-such-flag", "refuses"},
      {"unknown_test", "usage", "`stats anova`", {"stats", "anova", "--observed", "@a"}, {{"a", kFit}}, kExitUsage, "anova", "refuses"},
      // --- Resource limits.
      {"show_every_step_too_large", "resource limit", "`show prefix --lanes 64 --k 4096 --step all`",
       {"show", "prefix", "--lanes", "64", "--k", "4096", "--step", "all"}, {}, kExitUsage, "at most 1048576 cells",
       "refuses up front, naming the limit (it ran past 3 minutes and 5 GB)"},
      {"show_html_too_large", "resource limit", "`show prefix --lanes 64 --k 4096 --format html`",
       {"show", "prefix", "--lanes", "64", "--k", "4096", "--format", "html"}, {}, kExitUsage, "at most 1048576 cells",
       "refuses up front (a page holds every step)"},
      {"show_largest_step", "resource limit", "`show prefix --lanes 64 --k 4096 --step final` (the documented maximum)",
       {"show", "prefix", "--lanes", "64", "--k", "4096", "--step", "final"}, {}, kExitOk, "A0:4095",
       "runs in well under a second (symbolic values are runs)"},
      {"show_k_past_limit", "resource limit", "`show prefix --k 4097`", {"show", "prefix", "--k", "4097"}, {}, kExitUsage, "4097",
       "refuses"},
      {"weights_dev_zero", "resource limit", "`--weights /dev/zero`", {"show", "prefix", "--lanes", "2", "--k", "2", "--weights", "/dev/zero"},
       {}, kExitUsage, "is a character device, not a file", "refuses before reading: a character device (it grew without bound)"},
      {"weights_proc_mem", "unreadable file", "`--weights /proc/self/mem` (ended in exit 3)", {"alias", "build", "--weights", "/proc/self/mem"}, {},
       kExitUsage, "cannot read '/proc/self/mem'", "refuses, naming the file and the read's error (a file that opens but cannot be read)"},
      {"draws_proc_clear_refs", "unreadable file", "`validate --draws /proc/self/clear_refs` (ended in exit 3)",
       {"validate", "--weights", "@w", "--draws", "/proc/self/clear_refs"}, {{"w", "1\n2\n"}}, kExitUsage, "cannot read '/proc/self/clear_refs'",
       "refuses, naming the file and the read's error"},
      {"ks_discrete_many_categories", "resource limit", "ks-discrete over 10^5 categories",
       {"stats", "ks-discrete", "--observed", "@a", "--probabilities", "@p", "--normalize"},
       {{"a", repeat("100\n500\n", 50000)}, {"p", repeat("1\n", 100000)}}, kEither, "Dvoretzky-Kiefer-Wolfowitz-Massart",
       "runs in bounded work: exact, else Monte Carlo, else the conservative DKW bound (it took minutes)"},
      {"binomial_too_many_categories", "resource limit", "binomial over 10^6 + 1 categories",
       {"stats", "binomial", "--observed", "@a", "--probabilities", "@p"}, {{"a", repeat("1\n", 1000001)}, {"p", "1\n"}},
       kExitUsage, "holds more than 1000000 numbers", "refuses while reading, naming the limit"},
      {"nul_in_argument", "usage", "an argument holding a NUL byte (possible only in-process)",
       {"demo", "--lanes", std::string("\0" "4", 2)}, {}, kExitUsage, "contains a NUL byte",
       "refuses (the parser saw an empty value: exit 3 from a warp of 0 lanes; found by fuzzing)"},
      {"argument_too_long", "resource limit", "a 200,000-character argument", {"show", "prefix", "--weights", std::string(200000, 'x')}, {},
       kExitUsage, "longer than 4096 characters", "refuses without echoing it"},
      // --- Values accepted but wrong.
      {"fp32_weight_overflows", "accepted but wrong", "a weight of 1e39 (past fp32)",
       {"show", "prefix", "--lanes", "2", "--k", "2", "--weights", "@w"}, {{"w", "1e39 1\n2 3\n"}}, kExitUsage,
       "is 1e+39, which overflows fp32 (the views compute in fp32)", "refuses (it became inf, while a literal inf was refused)"},
      {"fp32_weight_underflows", "accepted but wrong", "a weight of 1e-46 (rounds to 0 in fp32)",
       {"show", "prefix", "--lanes", "2", "--k", "2", "--weights", "@w"}, {{"w", "1e-46 1\n2 3\n"}}, kExitUsage,
       "rounds to 0 in fp32", "refuses"},
      {"double_overflow", "accepted but wrong", "a number 1e400", {"stats", "chi-square", "--observed", "@a", "--probabilities", "@p"},
       {{"a", "1e400\n1\n"}, {"p", "0.5\n0.5\n"}}, kExitUsage, "overflows to infinity", "refuses"},
      {"double_underflow", "accepted but wrong", "a number 1e-400", {"stats", "chi-square", "--observed", "@a", "--probabilities", "@p"},
       {{"a", "1\n1\n"}, {"p", "1e-400\n1\n"}}, kExitUsage, "underflows to 0", "refuses"},
      {"target_tv_tiny", "accepted but wrong", "`--target-tv 1e-10`",
       {"stats", "chi-square", "--observed", "@a", "--probabilities", "@p", "--target-tv", "1e-10"}, {{"a", kFit}, {"p", kP}}, kExitOk,
       "e+20", "prints about 3.5e20 draws (it printed a negative number)"},
      {"empty_seed", "empty value", "`--seed ''`", {"show", "prefix", "--seed", ""}, {}, kExitUsage, "empty value was given to --seed",
       "refuses (it was silently ignored)"},
      {"empty_highlight", "empty value", "`--highlight=`", {"show", "prefix", "--highlight="}, {}, kExitUsage,
       "empty value was given to --highlight", "refuses"},
      {"empty_weights", "empty value", "`--weights ''`", {"show", "prefix", "--weights", ""}, {}, kExitUsage,
       "empty value was given to --weights", "refuses"},
      {"empty_target_tv", "empty value", "`--target-tv ''`",
       {"stats", "chi-square", "--observed", "@a", "--probabilities", "@p", "--target-tv", ""}, {{"a", kFit}, {"p", kP}}, kExitUsage,
       "empty value was given to --target-tv", "refuses"},
      {"observed2_on_one_sample", "option not used", "`--observed2` on chi-square",
       {"stats", "chi-square", "--observed", "@a", "--probabilities", "@p", "--observed2", "@a"}, {{"a", kFit}, {"p", kP}}, kExitUsage,
       "--observed2 does not apply to chi-square", "refuses (it was silently ignored)"},
      {"target_tv_on_homogeneity", "option not used", "`--target-tv` on homogeneity",
       {"stats", "homogeneity", "--observed", "@a", "--observed2", "@a", "--target-tv", "0.1"}, {{"a", kFit}}, kExitUsage,
       "--target-tv does not apply to homogeneity", "refuses"},
      {"probabilities_on_two_sample", "option not used", "`--probabilities` on ks-two-sample",
       {"stats", "ks-two-sample", "--observed", "@a", "--observed2", "@a", "--probabilities", "@p"}, {{"a", kFit}, {"p", kP}}, kExitUsage,
       "--probabilities does not apply", "refuses"},
      {"correction_on_chi_square", "option not used", "`--correction bh` on chi-square",
       {"stats", "chi-square", "--observed", "@a", "--probabilities", "@p", "--correction", "bh"}, {{"a", kFit}, {"p", kP}}, kExitUsage,
       "--correction does not apply", "refuses"},
      {"variant_on_prefix", "option not used", "`--variant addsub` on prefix", {"show", "prefix", "--variant", "addsub"}, {}, kExitUsage,
       "--variant applies to the butterfly views only", "refuses"},
      // --- Valid input refused, or unclear messages.
      {"directory", "unclear message", "a directory as --observed", {"stats", "chi-square", "--observed", "@dir", "--probabilities", "@p"},
       {{"p", kP}}, kExitUsage, "is a directory", "says so (it said \"holds no numbers\")"},
      {"nul_byte", "unclear message", "a NUL byte inside a number", {"stats", "chi-square", "--observed", "@a", "--probabilities", "@p"},
       {{"a", std::string("1\0002\n", 4)}, {"p", kP}}, kExitUsage, "'1\\x002' is not a number",
       "shows it as \\x00 (it cut the message short)"},
      {"long_token", "unclear message", "a 200 KB token", {"stats", "chi-square", "--observed", "@a", "--probabilities", "@p"},
       {{"a", std::string(200000, '9') + "\n"}, {"p", kP}}, kExitUsage, "a token longer than 1000 characters",
       "shows 20 characters of it (it echoed all of it)"},
      {"alpha_nan_validate", "usage", "`validate --alpha nan` (ended in exit 3)", {"validate", "--builtin", "sum-tree", "--alpha", "nan"}, {}, kExitUsage,
       "--alpha: must be a number in [1e-12, 0.5], got nan", "refuses, naming the range"},
      {"alpha_below_range_validate", "usage", "`validate --alpha 1e-13` (\"Value 1e-13 not in range 0.000000 to ...\")",
       {"validate", "--builtin", "sum-tree", "--alpha", "1e-13"}, {}, kExitUsage, "must lie in [1e-12, 0.5], got 1e-13",
       "refuses, the range written as --help writes it"},
      {"alpha_one_stats", "usage", "`stats chi-square --alpha 1` (--help said 1 was allowed)",
       {"stats", "chi-square", "--observed", "@a", "--probabilities", "@p", "--alpha", "1"}, {{"a", kFit}, {"p", kP}}, kExitUsage,
       "must lie in [1e-12, 1 - 1e-12], got 1", "refuses; --help says [1e-12, 1 - 1e-12]"},
      {"alpha_above_power", "valid input refused", "`--alpha 0.95`",
       {"stats", "chi-square", "--observed", "@a", "--probabilities", "@p", "--alpha", "0.95"}, {{"a", kFit}, {"p", kP}}, kExitOk,
       "is not below the power 0.9", "runs; says no bias is ruled out at that alpha (it failed: \"power must lie between alpha and 1\")"},
      // --- Other malformed input.
      {"empty_file", "malformed file", "an empty file", {"stats", "chi-square", "--observed", "@a", "--probabilities", "@p"},
       {{"a", ""}, {"p", kP}}, kExitUsage, "holds no numbers", "refuses"},
      {"text_in_file", "malformed file", "a word in a number file", {"stats", "chi-square", "--observed", "@a", "--probabilities", "@p"},
       {{"a", "10\ntwenty\n"}, {"p", kP}}, kExitUsage, "line 2: 'twenty' is not a number", "refuses, naming file, line and token"},
      {"missing_file", "malformed file", "a file that does not exist", {"stats", "chi-square", "--observed", "/nonexistent/x", "--probabilities", "@p"},
       {{"p", kP}}, kExitUsage, "cannot open '/nonexistent/x'", "refuses"},
      {"weights_negative", "bad weights", "a weight of -1", {"show", "prefix", "--lanes", "2", "--k", "2", "--weights", "@w"},
       {{"w", "1 -1\n2 3\n"}}, kExitUsage, "weight (0, 1) is -1: negative", "refuses, naming the weight"},
      {"weights_nan", "bad weights", "a weight of nan", {"show", "prefix", "--lanes", "2", "--k", "2", "--weights", "@w"},
       {{"w", "1 nan\n2 3\n"}}, kExitUsage, "weight (0, 1) is nan: not a number", "refuses, naming the weight"},
      {"weights_too_few", "shape", "3 weights for W x K = 4", {"show", "prefix", "--lanes", "2", "--k", "2", "--weights", "@w"},
       {{"w", "1 2 3\n"}}, kExitUsage, "holds 3 numbers; W x K = 4", "refuses"},
      {"weights_too_many", "shape", "5 weights for W x K = 4", {"show", "prefix", "--lanes", "2", "--k", "2", "--weights", "@w"},
       {{"w", "1 2 3 4 5\n"}}, kExitUsage, "holds more than 4 numbers", "refuses while reading"},
      {"transpose_k_not_lanes", "shape", "`show transpose --k 20` on 16 lanes", {"show", "transpose", "--k", "20"}, {}, kExitUsage,
       "must equal --lanes", "refuses"},
      {"step_out_of_range", "usage", "`show transpose --step 99`", {"show", "transpose", "--step", "99"}, {}, kExitUsage,
       "--step must be", "refuses, naming the range"},
      {"two_inputs_from_stdin", "usage", "both inputs from standard input",
       {"stats", "chi-square", "--observed", "-", "--probabilities", "-"}, {}, kExitUsage, "only one input", "refuses"},
      // --- validate: files of weights, draws and uniforms.
      {"validate_npy_truncated", "malformed file", "validate: a .npy of draws cut short",
       {"validate", "--weights", "@w", "--draws", "@d"}, {{"w", "1\n2\n"}, {"d", npy("<i8", "(3,)", int64s({0, 1, 1}).substr(0, 20))}},
       kExitUsage, "is truncated: its header describes 24 bytes", "refuses, saying how many bytes the header promised and the file holds"},
      {"validate_npy_float_draws", "wrong dtype", "validate: draws as float32",
       {"validate", "--weights", "@w", "--draws", "@d"}, {{"w", "1\n2\n"}, {"d", npy("<f4", "(1,)", std::string(4, '\0'))}},
       kExitUsage, "draws are indices, an integer array", "refuses, naming the dtype"},
      {"validate_npy_big_endian", "wrong dtype", "validate: big-endian int64 draws",
       {"validate", "--weights", "@w", "--draws", "@d"}, {{"w", "1\n2\n"}, {"d", npy(">i8", "(1,)", std::string(8, '\0'))}},
       kExitUsage, "is big-endian", "refuses, saying how to write it"},
      {"validate_npy_fortran", "wrong layout", "validate: Fortran-ordered 2-D weights",
       {"validate", "--weights", "@w", "--draws", "@d"}, {{"w", npy("<f8", "(2, 1)", std::string(16, '\0'), true)}, {"d", "0\n"}},
       kExitUsage, "Fortran order", "refuses"},
      {"validate_npy_garbage_header", "malformed file", "validate: a .npy header that is no dict",
       {"validate", "--weights", "@w", "--draws", "@d"}, {{"w", "1\n2\n"}, {"d", npy("<i8", "(1,)", int64s({0})).replace(10, 1, "[")}},
       kExitUsage, "the header does not parse", "refuses"},
      {"validate_shape_mismatch", "shape", "validate: 3 draws for a 2-row matrix",
       {"validate", "--weights", "@w", "--draws", "@d"}, {{"w", "1 2\n3 4\n"}, {"d", "0\n1\n1\n"}},
       kExitUsage, "has more rows than the weights (2)", "refuses"},
      {"validate_weights_nan", "bad weights", "validate: a weight of nan", {"validate", "--weights", "@w", "--draws", "@d"},
       {{"w", "1\nnan\n"}, {"d", "0\n"}}, kExitUsage, "weight 1 is nan: not a number", "refuses, naming the weight"},
      {"validate_weights_negative", "bad weights", "validate: a weight of -1", {"validate", "--weights", "@w", "--draws", "@d"},
       {{"w", "1\n-1\n"}, {"d", "0\n"}}, kExitUsage, "weight 1 is -1: negative", "refuses, naming the weight"},
      {"validate_weights_inf", "bad weights", "validate: a weight of inf", {"validate", "--weights", "@w", "--draws", "@d"},
       {{"w", "inf\n1\n"}, {"d", "0\n"}}, kExitUsage, "weight 0 is inf: infinite", "refuses, naming the weight"},
      {"validate_weights_all_zero", "bad weights", "validate: every weight 0", {"validate", "--weights", "@w", "--draws", "@d"},
       {{"w", "0\n0\n"}, {"d", "0\n"}}, kExitUsage, "no positive weight", "refuses: there is no distribution"},
      {"validate_weights_fp32_overflow", "bad weights", "validate: 1e39 with --dtype f32", {"validate", "--weights", "@w", "--draws", "@d", "--dtype", "f32"},
       {{"w", "1e39\n1\n"}, {"d", "0\n"}}, kExitUsage, "overflows fp32", "refuses, suggesting --dtype f64"},
      {"validate_empty_draws", "empty input", "validate: an empty file of draws", {"validate", "--weights", "@w", "--draws", "@d"},
       {{"w", "1\n2\n"}, {"d", ""}}, kExitUsage, "holds no numbers", "refuses"},
      {"validate_values_law_unknown", "bad law", "validate: `--law cauchy:0,1` with a file of values", {"validate", "--values", "@v", "--law", "cauchy:0,1"},
       {{"v", "0.1\n0.2\n"}}, kExitUsage, "not a law warpsim knows", "refuses, listing the laws it knows"},
      {"validate_values_law_parameters", "bad law", "validate: `--law normal:0,-1`", {"validate", "--values", "@v", "--law", "normal:0,-1"},
       {{"v", "0.1\n0.2\n"}}, kExitUsage, "sigma must be > 0", "refuses, naming the parameter"},
      {"validate_values_no_law", "missing option", "validate: `--values` without `--law`", {"validate", "--values", "@v"},
       {{"v", "0.1\n0.2\n"}}, kExitUsage, "--values needs --law", "refuses, listing the laws"},
      {"validate_law_alone", "missing option", "validate: `--law` without `--values`", {"validate", "--law", "normal:0,1"},
       {}, kExitUsage, "it goes with --values", "refuses"},
      {"validate_values_integers", "wrong dtype", "validate: a .npy of integers as `--values`", {"validate", "--values", "@v", "--law", "normal:0,1"},
       {{"v", npy("<i8", "(1,)", int64s({3}))}}, kExitUsage, "holds integers", "refuses: indices go with --draws"},
      {"validate_values_empty", "empty input", "validate: an empty file of values", {"validate", "--values", "@v", "--law", "normal:0,1"},
       {{"v", ""}}, kExitUsage, "holds no", "refuses"},
      {"validate_values_nan", "sampler failure", "validate: a NaN among the values", {"validate", "--values", "@v", "--law", "normal:0,1"},
       {{"v", "0.1\nnan\n0.3\n"}}, kExitFailureFound, "value 1 is nan", "reports the sampler's failure, naming the value (exit 1)"},
      {"validate_values_outside", "sampler failure", "validate: a value outside the law's support", {"validate", "--values", "@v", "--law", "exponential:1"},
       {{"v", "0.1\n-0.5\n0.3\n"}}, kExitFailureFound, "outside [0, inf]", "reports the sampler's failure, naming the value (exit 1)"},
      {"validate_values_with_weights", "option not used", "validate: `--weights` with a file of values", {"validate", "--values", "@v", "--law", "normal:0,1", "--weights", "@v"},
       {{"v", "0.1\n0.2\n"}}, kExitUsage, "--weights does not apply to a file of values", "refuses: a continuous law is named by --law"},
      {"validate_values_not_bf16", "wrong dtype", "validate: `--rounded-to bf16` for values that are not bf16", {"validate", "--values", "@v", "--law", "normal:0,1", "--rounded-to", "bf16"},
       {{"v", "0.5\n0.1\n"}}, kExitUsage, "value 1 (0.1) is not a bf16 value", "refuses, naming the value"},
      {"validate_table_unsorted", "bad law", "validate: `--law table:FILE` whose x values do not increase", {"validate", "--values", "@v", "--law", "table:@t"},
       {{"v", "0.1\n0.2\n"}, {"t", "0 0\n2 0.5\n1 1\n"}}, kExitUsage, "row 3: x must increase", "refuses, naming the row"},
      {"validate_table_not_to_one", "bad law", "validate: a CDF table that ends below F = 1", {"validate", "--values", "@v", "--law", "table:@t"},
       {{"v", "0.1\n0.2\n"}, {"t", "0 0\n1 0.9\n"}}, kExitUsage, "F must end at 1", "refuses, naming the row"},
      {"validate_table_words", "bad law", "validate: a CDF table with a word for a number", {"validate", "--values", "@v", "--law", "table:@t"},
       {{"v", "0.1\n0.2\n"}, {"t", "0 0\n1 one\n"}}, kExitUsage, "'one' is not a number", "refuses, naming the line"},
      {"validate_table_missing", "missing file", "validate: `--law table:` of a file that does not exist", {"validate", "--values", "@v", "--law", "table:nope.txt"},
       {{"v", "0.1\n0.2\n"}}, kExitUsage, "nope.txt", "refuses, naming the file"},
      {"validate_clamp_word", "bad option value", "validate: `--clamp-low` neither a number nor min-normal", {"validate", "--values", "@v", "--law", "gamma:1,1", "--clamp-low", "tiny"},
       {{"v", "0.1\n0.2\n"}}, kExitUsage, "a finite number or min-normal", "refuses"},
      {"validate_clamp_outside", "bad option value", "validate: `--clamp-low` below the law's support", {"validate", "--values", "@v", "--law", "gamma:1,1", "--clamp-low", "-1"},
       {{"v", "0.1\n0.2\n"}}, kExitUsage, "lie within the law's support", "refuses"},
      {"validate_clamp_crossed", "bad option value", "validate: `--clamp-low` above `--clamp-high`", {"validate", "--values", "@v", "--law", "uniform:0,1", "--clamp-low", "0.9", "--clamp-high", "0.1"},
       {{"v", "0.1\n0.2\n"}}, kExitUsage, "--clamp-low must lie below --clamp-high", "refuses"},
      {"validate_clamp_with_draws", "option not used", "validate: `--clamp-low` with a file of draws", {"validate", "--weights", "@w", "--draws", "@d", "--clamp-low", "0"},
       {{"w", "1\n2\n"}, {"d", "0\n1\n"}}, kExitUsage, "they go with --values, --plugin or --builtin", "refuses"},
      {"validate_rounded_to_alone", "option not used", "validate: `--rounded-to` without `--values`", {"validate", "--weights", "@w", "--draws", "@d", "--rounded-to", "bf16"},
       {{"w", "1\n2\n"}, {"d", "0\n1\n"}}, kExitUsage, "it goes with --values", "refuses"},
      {"validate_seed_on_file", "option not used", "validate: `--seed` with a file of draws", {"validate", "--weights", "@w", "--draws", "@d", "--seed", "3"},
       {{"w", "1\n2\n"}, {"d", "0\n1\n"}}, kExitUsage, "--seed does not apply to a file of draws", "refuses (it was silently ignored)"},
      {"validate_tests_on_file", "option not used", "validate: `--tests` with a file of draws", {"validate", "--weights", "@w", "--draws", "@d", "--tests", "5"},
       {{"w", "1\n2\n"}, {"d", "0\n1\n"}}, kExitUsage, "--tests does not apply to a file of draws", "refuses (it was silently ignored)"},
      {"validate_max_k_on_file", "option not used", "validate: `--max-k` with a file of draws", {"validate", "--weights", "@w", "--draws", "@d", "--max-k", "9"},
       {{"w", "1\n2\n"}, {"d", "0\n1\n"}}, kExitUsage, "--max-k does not apply to a file of draws", "refuses (it was silently ignored)"},
      {"validate_list_on_file", "option not used", "validate: `--list` with a file of draws", {"validate", "--weights", "@w", "--draws", "@d", "--list"},
       {{"w", "1\n2\n"}, {"d", "0\n1\n"}}, kExitUsage, "--list goes alone", "refuses (it listed the built-ins)"},
      {"validate_row_seeds_count", "shape", "validate: `--row-seeds` of 1 seed for 2 rows", {"validate", "--weights", "@w", "--draws", "@d", "--row-seeds", "@s"},
       {{"w", "1 2\n2 1\n"}, {"d", "0\n1\n"}, {"s", "7\n"}}, kExitUsage, "holds 1 seeds; the weights have 2 rows", "refuses: one a row"},
      {"validate_row_seeds_negative", "bad seeds", "validate: a row seed of -1", {"validate", "--weights", "@w", "--draws", "@d", "--row-seeds", "@s"},
       {{"w", "1 2\n2 1\n"}, {"d", "0\n1\n"}, {"s", "7\n-1\n"}}, kExitUsage, "seed 1 is -1, not a whole number", "refuses, naming the seed"},
      {"validate_row_seeds_one_law", "option not used", "validate: `--row-seeds` where every row is one law", {"validate", "--weights", "@w", "--draws", "@d", "--row-seeds", "@s"},
       {{"w", "1 2\n1 2\n"}, {"d", "0\n1\n"}, {"s", "7\n8\n"}}, kExitUsage, "--row-seeds goes with weights whose rows differ", "refuses"},
      {"validate_draw_not_index", "bad draws", "validate: a draw of 1.5", {"validate", "--weights", "@w", "--draws", "@d"},
       {{"w", "1\n2\n"}, {"d", "0\n1.5\n"}}, kExitUsage, "draw 1 is 1.5, not an index", "refuses: not an index at all"},
      {"validate_draw_out_of_range", "sampler failure", "validate: a draw of K", {"validate", "--weights", "@w", "--draws", "@d"},
       {{"w", "1\n2\n"}, {"d", "0\n1\n2\n"}}, kExitFailureFound, "draw 2 is 2, outside [0, 2)",
       "the sampler's failure (exit 1), with the first such draw"},
      {"validate_draw_weight_zero", "sampler failure", "validate: a draw of weight 0", {"validate", "--weights", "@w", "--draws", "@d"},
       {{"w", "1\n0\n"}, {"d", "0\n1\n"}}, kExitFailureFound, "draw 1 is 1, of weight 0", "the sampler's failure (exit 1)"},
      {"validate_uniform_outside", "bad uniforms", "validate: a uniform of 1", {"validate", "--weights", "@w", "--draws", "@d", "--uniforms", "@u"},
       {{"w", "1\n2\n"}, {"d", "0\n1\n"}, {"u", "0.1\n1\n"}}, kExitUsage, "outside [0, 1)", "refuses"},
      {"validate_fewer_uniforms", "shape", "validate: fewer uniforms than draws", {"validate", "--weights", "@w", "--draws", "@d", "--uniforms", "@u"},
       {{"w", "1\n2\n"}, {"d", "0\n1\n"}, {"u", "0.1\n"}}, kExitUsage, "holds fewer values than", "refuses"},
      {"validate_no_way_in", "usage", "`validate --weights w` alone", {"validate", "--weights", "@w"}, {{"w", "1\n"}}, kExitUsage,
       "checks nothing", "refuses, naming the ways in"},
      {"validate_two_ways_in", "usage", "`validate --builtin x --mutants`", {"validate", "--builtin", "baseline-linear", "--mutants"}, {},
       kExitUsage, "do not go together", "refuses"},
      {"validate_unknown_builtin", "usage", "`validate --builtin nope`", {"validate", "--builtin", "nope"}, {}, kExitUsage,
       "no algorithm 'nope' (known:", "refuses, listing the known ones"},
      {"validate_row_draws_alone", "usage", "`validate --builtin sum-tree --row-draws 5` without --weights",
       {"validate", "--builtin", "sum-tree", "--on", "oracle", "--row-draws", "5"}, {}, kExitUsage, "it goes with --weights", "refuses"},
      {"validate_row_draws_one_draw", "usage", "`--row-draws` for a built-in that makes one draw a row",
       {"validate", "--builtin", "baseline-linear", "--on", "oracle", "--weights", "@w", "--row-draws", "5"}, {{"w", "1\n2\n"}}, kExitUsage,
       "makes one draw a row, not S", "refuses"},
      {"validate_row_draws_zero", "out of range", "`validate --row-draws 0`",
       {"validate", "--builtin", "sum-tree", "--on", "oracle", "--weights", "@w", "--row-draws", "0"}, {{"w", "1\n2\n"}}, kExitUsage,
       "--row-draws", "refuses"},
      // --- alias build.
      {"alias_weight_nan", "bad weights", "`alias build`, a weight of nan", {"alias", "build", "--weights", "@w"}, {{"w", "1\nnan\n"}},
       kExitUsage, "weight 1 is nan: not a number", "refuses, naming the weight"},
      {"alias_weight_negative", "bad weights", "`alias build`, a weight of -2", {"alias", "build", "--weights", "@w"}, {{"w", "1\n-2\n"}},
       kExitUsage, "weight 1 is -2: negative", "refuses, naming the weight"},
      {"alias_weight_inf", "bad weights", "`alias build`, a weight of inf", {"alias", "build", "--weights", "@w"}, {{"w", "inf\n"}},
       kExitUsage, "infinite", "refuses, naming the weight"},
      {"alias_all_zero", "bad weights", "`alias build`, every weight 0", {"alias", "build", "--weights", "@w"}, {{"w", "0\n0\n0\n"}},
       kExitUsage, "no positive weight", "refuses: there is no distribution"},
      {"alias_empty", "empty input", "`alias build`, an empty file", {"alias", "build", "--weights", "@w"}, {{"w", ""}}, kExitUsage,
       "holds no numbers", "refuses"},
      {"alias_matrix", "shape", "`alias build` on a 2 x 2 matrix", {"alias", "build", "--weights", "@w"}, {{"w", "1 2\n3 4\n"}}, kExitUsage,
       "built from one distribution", "refuses: one distribution a table"},
      // --- sample.
      {"sample_logit_nan", "bad logits", "`sample`, a logit of nan", {"sample", "@x"}, {{"x", "1\nnan\n"}}, kExitUsage, "logit 1 is NaN",
       "refuses, naming the logit"},
      {"sample_logit_inf", "bad logits", "`sample`, a logit of +inf", {"sample", "@x"}, {{"x", "1\ninf\n"}}, kExitUsage, "logit 1 is +inf",
       "refuses, naming the logit"},
      {"sample_all_minus_inf", "bad logits", "`sample`, every logit -inf", {"sample", "@x"}, {{"x", "-inf\n-inf\n"}}, kExitUsage,
       "every logit is -inf", "refuses: no token can be drawn"},
      {"sample_top_p_zero", "usage", "`sample --top-p 0`", {"sample", "@x", "--top-p", "0"}, {{"x", "1\n2\n"}}, kExitUsage,
       "--top-p must lie in (0, 1]", "refuses, naming the range"},
      {"sample_uint16_untyped", "usage", "`sample` on a uint16 .npy without --logit-type", {"sample", "@x"},
       {{"x", npy("<u2", "(2,)", std::string("\x80\x3f\x00\x40", 4))}},
       kExitUsage, "say --logit-type bf16 or f16", "refuses: its values are bit patterns of a type it must be told"},
      // --- rejection.
      {"rejection_p_zero", "usage", "`rejection --p 0`", {"rejection", "--p", "0"}, {}, kExitUsage, "--p must lie in [1e-300, 1]",
       "refuses, naming the range (no lane ever accepts)"},
      {"rejection_p_nan", "usage", "`rejection --p nan`", {"rejection", "--p", "nan"}, {}, kExitUsage, "--p must lie in [1e-300, 1]",
       "refuses, naming the range"},
      {"rejection_p_below_1e300", "usage", "`rejection --p 1e-301`", {"rejection", "--p", "1e-301"}, {}, kExitUsage,
       "would pass 1e300", "refuses: the mean number of iterations would near the largest double"},
      {"rejection_p_tiny_64_lanes", "resource limit", "`rejection --lanes 64 --p 1e-4 --cached` (ran past 60 s)",
       {"rejection", "--lanes", "64", "--p", "1e-4", "--cached"}, {}, kExitOk, "E[L_64] = 47437",
       "the means solved exactly, the laws stepped through a bounded number of iterations, their tails stated"},
      {"rejection_p_1e5_32_lanes", "resource limit", "`rejection --lanes 32 --p 1e-5` (took 59 s)", {"rejection", "--lanes", "32", "--p", "1e-5"}, {},
       kExitOk, "E[L_32] = 405848", "the same, in well under a second"},
      {"rejection_p_1e300", "resource limit", "`rejection --p 1e-300` (never ended)", {"rejection", "--p", "1e-300"}, {}, kExitOk,
       "E[L_32] = 4.0585e+300", "ends: 1 - (1 - p)^r computed without cancellation"},
      {"rejection_p_1e300_one_lane", "value range", "`rejection --lanes 1 --p 1e-300` (printed a mean of inf)",
       {"rejection", "--lanes", "1", "--p", "1e-300"}, {}, kExitOk, "E[L_1] = 1e+300 iterations", "the exact mean, 1 / p"},
      {"rejection_lanes_65", "usage", "`rejection --p 0.5 --lanes 65`", {"rejection", "--p", "0.5", "--lanes", "65"}, {}, kExitUsage,
       "--lanes must be 1 to 64", "refuses, naming the range"},
      {"rejection_valid", "valid input", "`rejection --p 0.8 --cached`", {"rejection", "--p", "0.8", "--cached"}, {}, kExitOk,
       "E[L_32] = 3.01774", "prints the exact means and laws, uncached and pre-cached"},
      {"alias_sharded_beyond_memory", "resource limit", "`alias sharded --generate 2^32` on one process (about 190 GB)",
       {"alias", "sharded", "--generate", "4294967296", "--draws", "10"}, {}, kExitUsage, "bytes of host memory",
       "refuses before allocating, naming the bytes, the host's memory, and more ranks or --on gpu"},
      {"alias_sharded_gpu_weights", "usage", "`alias sharded --on gpu --weights` (the GPU path makes its own weights)",
       {"alias", "sharded", "--on", "gpu", "--weights", "@w"}, {{"w", "1\n2\n"}}, kExitUsage, "takes --generate N",
       "refuses, naming what it takes"},
      {"alias_sharded_bins_on_host", "usage", "`alias sharded --bin-items 64` without --on gpu",
       {"alias", "sharded", "--generate", "100", "--bin-items", "64"}, {}, kExitUsage, "go with alias sharded --on gpu",
       "refuses an option the host path does not use"},
      {"alias_splits_past_n", "usage", "`alias build --method psa --splits 9` on 4 weights",
       {"alias", "build", "--weights", "@w", "--method", "psa", "--splits", "9"}, {{"w", "1\n2\n3\n4\n"}}, kExitUsage,
       "--splits must lie in [1, N] = [1, 4]", "refuses, naming the range"},
      {"alias_splits_for_vose", "usage", "`alias build --method vose --splits 2`", {"alias", "build", "--weights", "@w", "--method", "vose", "--splits", "2"},
       {{"w", "1\n2\n"}}, kExitUsage, "--splits applies to psa and psa+", "refuses an option the method does not use"},
      {"alias_walker_too_large", "resource limit", "`alias build --method walker` on 8,193 weights",
       {"alias", "build", "--weights", "@w", "--method", "walker"}, {{"w", repeat("1\n", 8193)}}, kExitUsage, "walker is O(N^2)",
       "refuses, naming the limit and the other methods"},
      {"alias_walker_at_limit", "resource limit", "`alias build --method walker` on 8,192 weights (65,536 ran past 2 minutes)",
       {"alias", "build", "--weights", "@w", "--method", "walker", "--format", "json"}, {{"w", [] {
         std::string w;
         for (int i = 0; i < 8192; ++i) w += std::to_string(1 + (i * 7919) % 1000) + "\n";
         return w;
       }()}}, kExitOk, "\"rows\"", "builds it in well under a second; every stated limit is one the command meets in seconds"},
      {"alias_psa_plus", "valid input", "`alias build --method psa+` on 6 weights, 0 among them",
       {"alias", "build", "--weights", "@w", "--method", "psa+", "--group", "3"}, {{"w", "1\n3\n0\n4\n2\n2\n"}}, kExitOk,
       "check: exact", "builds the table and says it is exact"},
      {"alias_counters_for_sweep", "usage", "`alias build --method sweep --counters`", {"alias", "build", "--weights", "@w", "--method", "sweep", "--counters"},
       {{"w", "1\n2\n"}}, kExitUsage, "--counters applies to psa and psa+", "refuses: the model runs PSA and PSA+ only"},
      {"alias_pack_without_counters", "usage", "`alias build --method psa --pack shared` without --counters",
       {"alias", "build", "--weights", "@w", "--method", "psa", "--pack", "shared"}, {{"w", "1\n2\n"}}, kExitUsage, "add --counters",
       "refuses a model option without the model"},
      {"alias_counters_lanes", "usage", "`alias build --method psa+ --counters --lanes 3`",
       {"alias", "build", "--weights", "@w", "--method", "psa+", "--counters", "--lanes", "3"}, {{"w", "1\n2\n"}}, kExitUsage,
       "--lanes must be a power of two from 2 to 64", "refuses a group the model cannot run on one warp"},
      {"alias_device_for_vose", "usage", "`alias build --method vose --device`", {"alias", "build", "--weights", "@w", "--method", "vose", "--device"},
       {{"w", "1\n2\n"}}, kExitUsage, "--device builds with the GPU kernels, which run psa", "refuses a method the kernels do not run"},
      {"alias_counters", "valid input", "`alias build --method psa+ --group 3 --counters` on 6 weights, 0 among them",
       {"alias", "build", "--weights", "@w", "--method", "psa+", "--group", "3", "--counters"}, {{"w", "1\n3\n0\n4\n2\n2\n"}}, kExitOk,
       "the same table", "builds on the model too and prints each phase's counters"},
      {"show_alias_too_many", "resource limit", "`show alias` on 513 weights", {"show", "alias", "--weights", "@w"}, {{"w", repeat("1\n", 513)}},
       kExitUsage, "show alias draws at most 512 items", "refuses, pointing to alias build"},
      {"show_alias_weight_nan", "bad weights", "`show alias`, a weight of nan", {"show", "alias", "--weights", "@w"}, {{"w", "1\nnan\n"}},
       kExitUsage, "weight 1 is nan", "refuses, naming the weight"},
      {"show_alias_method_elsewhere", "usage", "`show prefix --method psa`", {"show", "prefix", "--method", "psa"}, {}, kExitUsage,
       "apply to show alias", "refuses an option the view does not use"},
      {"validate_missing_plugin", "broken plugin", "`validate --plugin` of a missing file", {"validate", "--plugin", "/no/such/lib.so"}, {},
       kExitUsage, "no such file", "refuses (the other broken plugins: tests/CMakeLists.txt, validate.plugin.*)"},
  };
  return rows;
}

void PrintTo(const Case& c, std::ostream* os) { *os << c.id; }

struct Outcome {
  int rc;
  std::string out, err;
  double seconds;
};

Outcome run_case(const Case& c) {
  const fs::path dir = fs::temp_directory_path() / ("warpsim-catalogue-" + c.id + "-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::vector<std::string> args;
  for (const auto& a : c.args) {
    if (a == "@dir") {
      args.push_back((dir / "a-directory").string());
      fs::create_directories(dir / "a-directory");
    } else if (const std::size_t at = a.rfind("table:@", 0) == 0 ? 6 : 0; a.size() > at + 1 && a[at] == '@' && c.files.count(a.substr(at + 1))) {
      // "@name", or "table:@name" (a CDF table's path after its prefix)
      const fs::path file = dir / a.substr(at + 1);
      std::ofstream(file, std::ios::binary) << c.files.at(a.substr(at + 1));
      args.push_back(a.substr(0, at) + file.string());
    } else {
      args.push_back(a);
    }
  }
  std::ostringstream out, err;
  const auto t0 = std::chrono::steady_clock::now();
  const int rc = warpsim::cli::run_cli(args, out, err, warpsim::cli::FileInputs{});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  fs::remove_all(dir);
  return {rc, out.str(), err.str(), seconds};
}

class Rows : public testing::TestWithParam<Case> {};

TEST_P(Rows, Holds) {
  const Case& c = GetParam();
  const Outcome r = run_case(c);
  if (c.exit_code == kEither) {
    EXPECT_TRUE(r.rc == kExitOk || r.rc == kExitFailureFound) << "exit " << r.rc << "\n" << r.err;
  } else {
    EXPECT_EQ(r.rc, c.exit_code) << r.err;
  }
  const std::string& where = r.rc == kExitUsage ? r.err : r.out;
  EXPECT_NE(where.find(c.expect), std::string::npos) << "expected '" << c.expect << "' in:\n" << where.substr(0, 2000);
  for (char ch : r.err) {
    const auto u = static_cast<unsigned char>(ch);
    ASSERT_TRUE(u == '\n' || (u >= 0x20 && u < 0x7f)) << "unprintable byte in the message";
  }
  EXPECT_LT(r.err.size(), 1000u) << "a message should be short";
  if (r.rc == kExitUsage) {
    EXPECT_EQ(r.err.rfind("warpsim: ", 0), 0u) << r.err;
  }
  EXPECT_LT(r.seconds, 30.0) << "every input finishes in bounded time (sanitizer build)";
}

INSTANTIATE_TEST_SUITE_P(Catalogue, Rows, testing::ValuesIn(catalogue()),
                         [](const testing::TestParamInfo<Case>& row) { return row.param.id; });

// An exception the code did not expect is exit 3 with a message, never exit 1.
class ThrowingInputs final : public warpsim::cli::InputSource {
 public:
  std::unique_ptr<std::istream> open(const std::string&) const override { throw std::runtime_error("disk on fire"); }
};

TEST(Catalogue, AnUnexpectedExceptionIsExit3) {
  std::ostringstream out, err;
  const int rc = warpsim::cli::run_cli({"stats", "chi-square", "--observed", "a", "--probabilities", "b"}, out, err, ThrowingInputs{});
  EXPECT_EQ(rc, warpsim::cli::kExitInternal);
  EXPECT_NE(err.str().find("internal error: disk on fire"), std::string::npos) << err.str();
}

std::string docs_table() {
  std::string t = "| input class | input | what warpsim does | exit | test |\n| --- | --- | --- | --- | --- |\n";
  for (const auto& c : catalogue()) {
    std::string input = c.input;
    for (std::size_t p = 0; (p = input.find('|', p)) != std::string::npos; p += 2) input.replace(p, 1, "\\|");
    t += "| " + c.input_class + " | " + input + " | " + c.behaviour + " | " +
         (c.exit_code == kEither ? std::string("0 or 1") : std::to_string(c.exit_code)) + " | `Catalogue/Rows.Holds/" + c.id +
         "` |\n";
  }
  t += "| internal error | an exception warpsim did not expect (here: the input source throws) | exit 3 with `internal error: ...` "
       "(such errors were exit 1, which means \"rejected\") | 3 | `Catalogue.AnUnexpectedExceptionIsExit3` |\n";
  return t;
}

TEST(Catalogue, DocsShowEveryRow) {
  const fs::path doc = fs::path(WARPSIM_SOURCE_DIR) / "docs" / "bad-input.md";
  std::ifstream in(doc);
  ASSERT_TRUE(in) << "missing " << doc;
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  const std::string begin = "<!-- catalogue: begin -->\n", end = "<!-- catalogue: end -->";
  const auto b = text.find(begin), e = text.find(end);
  ASSERT_TRUE(b != std::string::npos && e != std::string::npos && b < e) << "markers missing in " << doc;
  const std::string shown = text.substr(b + begin.size(), e - b - begin.size());
  const std::string wanted = docs_table();
  if (shown != wanted && std::getenv("WARPSIM_UPDATE_DOCS")) {
    text.replace(b + begin.size(), e - b - begin.size(), wanted);
    std::ofstream(doc) << text;
    return;
  }
  EXPECT_EQ(shown, wanted) << "docs/bad-input.md is out of date: run this test with WARPSIM_UPDATE_DOCS=1";
}

}  // namespace
