// `warpsim sample` as a user runs it: the draws are the token law's
// definition's (oracle/token/token_law.hpp) for every logit type the files
// hold; bad logits and options exit 2 naming the row and the reason.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/app.hpp"
#include "cli/input/sources.hpp"
#include "oracle/token/token_law.hpp"
#include "rng/philox_uniform.hpp"

namespace {

namespace tok = warpsim::oracle::token;

struct Run {
  int rc;
  std::string out, err;
};

Run sample(const std::string& logits, std::vector<std::string> args) {
  warpsim::cli::MemoryInputs in;
  in.files["x"] = logits;
  args.insert(args.begin(), {"sample", "x"});
  std::ostringstream out, err;
  const int rc = warpsim::cli::run_cli(args, out, err, in);
  return {rc, out.str(), err.str()};
}

// A .npy of `rows` x `cols` elements of type T with numpy's descr.
template <class T>
std::string npy(const std::vector<T>& v, const std::string& descr, std::size_t rows, std::size_t cols) {
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + std::to_string(rows) + ", " + std::to_string(cols) + "), }";
  header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string s("\x93NUMPY\x01\x00", 8);
  s += static_cast<char>(header.size() & 0xff);
  s += static_cast<char>(header.size() >> 8);
  s += header;
  s.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
  return s;
}

std::vector<float> logits(std::size_t n, unsigned seed) {
  std::vector<float> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<float>(std::sin(seed * 7.1 + static_cast<double>(i) * 1.3) * 4);
  return x;
}

}  // namespace

TEST(SampleCommand, DrawsAreTheDefinitionsForEachLogitType) {
  const std::size_t m = 3, k = 500;
  const auto x = logits(m * k, 1);
  const tok::Sampling s{.temperature = 0.8f, .top_k = 40, .top_p = 0.9f, .min_p = 0.02f};
  const std::vector<std::string> args = {"--temperature", "0.8", "--top-k", "40", "--top-p", "0.9", "--min-p", "0.02",
                                         "--seed",        "11",  "--offset", "5", "--draws", "6",   "--format", "json"};
  // fp32
  auto r = sample(npy(x, "<f4", m, k), args);
  ASSERT_EQ(r.rc, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  for (std::size_t row = 0; row < m; ++row) {
    const auto want = tok::draw(std::span<const float>(x.data() + row * k, k), s, warpsim::rng::request_seed(11, row), 5, 6);  // row r: the request of request_seed(seed, r)
    EXPECT_EQ(j.at("draws")[row].get<std::vector<std::int64_t>>(), want);
  }
  // bf16 as a uint16 .npy of bit patterns
  std::vector<std::uint16_t> bits(x.size());
  std::vector<float> as_bf16(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    std::uint32_t b;
    std::memcpy(&b, &x[i], 4);
    bits[i] = static_cast<std::uint16_t>(b >> 16);
    as_bf16[i] = tok::logit_value(bits[i], tok::LogitType::BF16);
  }
  auto with_type = args;
  with_type.insert(with_type.end(), {"--logit-type", "bf16"});
  r = sample(npy(bits, "<u2", m, k), with_type);
  ASSERT_EQ(r.rc, 0) << r.err;
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("logit_type"), "bf16");
  for (std::size_t row = 0; row < m; ++row)
    EXPECT_EQ(j.at("draws")[row].get<std::vector<std::int64_t>>(), tok::draw(std::span<const float>(as_bf16.data() + row * k, k), s, warpsim::rng::request_seed(11, row), 5, 6));
  // fp16 as numpy's float16
  for (std::size_t i = 0; i < x.size(); ++i) bits[i] = tok::logit_bits(std::round(x[i] * 64) / 64, tok::LogitType::F16);
  std::vector<float> as_f16(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) as_f16[i] = tok::logit_value(bits[i], tok::LogitType::F16);
  r = sample(npy(bits, "<f2", m, k), args);
  ASSERT_EQ(r.rc, 0) << r.err;
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("logit_type"), "f16");
  EXPECT_EQ(j.at("draws")[2].get<std::vector<std::int64_t>>(), tok::draw(std::span<const float>(as_f16.data() + 2 * k, k), s, warpsim::rng::request_seed(11, 2), 5, 6));
}

TEST(SampleCommand, TextIsARowOfDrawsALineAndGreedyIsTheFirstLargest) {
  const auto r = sample("1\n3\n2\n3\n-inf\n", {"--temperature", "0", "--draws", "4"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out, "1 1 1 1\n");
}

TEST(SampleCommand, BadLogitsAndOptionsExitTwoSayingWhy) {
  const std::vector<std::pair<std::pair<std::string, std::vector<std::string>>, std::string>> cases = {
      {{"1\nnan\n", {}}, "logit 1 is NaN"},
      {{"1\ninf\n", {}}, "logit 1 is +inf"},
      {{"-inf\n-inf\n", {}}, "every logit is -inf"},
      {{"1\n2\n", {"--top-p", "0"}}, "--top-p must lie in (0, 1]"},
      {{"1\n2\n", {"--min-p", "2"}}, "--min-p must lie in [0, 1]"},
      {{"1\n2\n", {"--temperature", "-1"}}, "--temperature must be finite and >= 0"},
      {{"1\n2\n", {"--top-k", "-3"}}, "--top-k must be >= 0"},
      {{"1\n2\n", {"--logit-type", "bf16"}}, "reads a uint16 .npy of bit patterns"},
      {{npy(std::vector<std::uint16_t>{1, 2}, "<u2", 1, 2), {}}, "say --logit-type bf16 or f16"},
      {{npy(std::vector<std::int32_t>{1, 2}, "<i4", 1, 2), {}}, "logits are float32, float16, text"},
      {{"", {}}, "no"},
  };
  for (const auto& [input, message] : cases) {
    const auto r = sample(input.first, input.second);
    EXPECT_EQ(r.rc, 2) << message << ": " << r.out;
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
  }
  const auto rows = sample("1 2\nnan 3\n", {});  // names the row
  EXPECT_EQ(rows.rc, 2);
  EXPECT_NE(rows.err.find("row 1: logit 0 is NaN"), std::string::npos) << rows.err;
}
