#include "cli/input/number_file.hpp"

#include <charconv>
#include <cmath>

#include "cli/errors.hpp"

namespace warpsim::cli {

namespace {

bool is_separator(int c) {
  return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\v' || c == '\f' || c == ',' || c == ';';
}

bool all_zero_digits(const std::string& t) {
  for (char c : t) {
    if (c == 'e' || c == 'E') break;
    if (c >= '1' && c <= '9') return false;
  }
  return true;
}

// The number `token` spells, or a UsageError that says why it is none.
double parse_number(const std::string& token, const std::string& where) {
  const char* first = token.data();
  const char* last = token.data() + token.size();
  if (first != last && *first == '+' && first + 1 != last && *(first + 1) != '-' && *(first + 1) != '+') ++first;
  double v = 0;
  const auto r = std::from_chars(first, last, v);
  if (r.ec == std::errc::result_out_of_range && r.ptr == last) {
    if (all_zero_digits(token)) return 0;  // "0e-999" is zero
    // Which way it falls out: a long double still holds most such values.
    long double wide = 0;
    const auto w = std::from_chars(first, last, wide);
    const auto e = token.find_first_of("eE");
    const bool under = w.ec == std::errc() ? std::fabs(wide) < 1 : e != std::string::npos && token[e + 1] == '-';
    throw UsageError(where + "'" + printable(token) + "' is outside the range of a double (" +
                     (under ? "it underflows to 0" : "it overflows to infinity") +
                     "; nonzero doubles reach from 4.9e-324 to 1.8e308 in magnitude)");
  }
  if (r.ec != std::errc() || r.ptr != last) throw UsageError(where + "'" + printable(token) + "' is not a number");
  return v;
}

}  // namespace

NumberStream::NumberStream(std::istream& in, const std::string& name, const NumberLimits& limits)
    : buf_(in.rdbuf()), in_(in), file_("'" + printable(name, 200) + "'"), limits_(limits) {}

bool NumberStream::next(double& value, std::size_t& line) {
  auto where = [&] { return file_ + ", line " + std::to_string(token_line_) + ": "; };
  auto finish_token = [&] {
    if (count_ == limits_.max_count) {
      throw UsageError(file_ + " holds more than " + std::to_string(limits_.max_count) + " numbers, the most this input takes");
    }
    value = parse_number(token_, where());
    line = token_line_;
    ++count_;
    token_.clear();
    return true;
  };
  while (!done_) {
    const int c = buf_ ? buf_->sbumpc() : std::char_traits<char>::eof();
    if (c == std::char_traits<char>::eof()) {
      done_ = true;
      if (in_.bad()) throw UsageError(file_ + ": read error");
      break;
    }
    if (++bytes_ > limits_.max_bytes) {
      throw UsageError(file_ + " is longer than " + std::to_string(limits_.max_bytes) + " bytes, the most warpsim reads from one input");
    }
    if (is_separator(c)) {
      const bool had = !token_.empty();
      if (c == '\n') ++line_;
      if (had) return finish_token();
      continue;
    }
    if (token_.empty()) token_line_ = line_;
    if (token_.size() == limits_.max_token_chars) {
      throw UsageError(where() + "a token longer than " + std::to_string(limits_.max_token_chars) + " characters ('" +
                       printable(token_.substr(0, 20)) + "...'), which is no number");
    }
    token_ += static_cast<char>(c);
  }
  if (!token_.empty()) return finish_token();
  return false;
}

std::vector<double> read_numbers(std::istream& in, const std::string& name, const NumberLimits& limits) {
  NumberStream numbers(in, name, limits);
  std::vector<double> out;
  double v = 0;
  std::size_t line = 0;
  while (numbers.next(v, line)) out.push_back(v);
  if (out.empty()) throw UsageError(numbers.quoted_name() + " holds no numbers");
  return out;
}

std::vector<double> read_numbers(const InputSource& inputs, const std::string& path, const NumberLimits& limits) {
  auto in = inputs.open(path);
  return read_numbers(*in, path == "-" ? "standard input" : path, limits);
}

}  // namespace warpsim::cli
