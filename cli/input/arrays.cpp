#include "cli/input/arrays.hpp"

#include <array>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>

#include "cli/errors.hpp"
#include "cli/input/number_file.hpp"

namespace warpsim::cli {

std::string ArrayInfo::dtype() const {
  switch (kind) {
    case ElementKind::Float: return "float" + std::to_string(8 * bytes);
    case ElementKind::Signed: return "int" + std::to_string(8 * bytes);
    case ElementKind::Unsigned: return "uint" + std::to_string(8 * bytes);
    case ElementKind::Text: return "text";
  }
  return "?";
}

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMaxHeader = 1 << 16;

// The header dict of a .npy file: {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
class HeaderParser {
 public:
  HeaderParser(std::string text, std::string file) : s_(std::move(text)), file_(std::move(file)) {}

  void parse(ArrayInfo& info) {
    bool have_descr = false, have_order = false, have_shape = false;
    skip();
    expect('{');
    for (;;) {
      skip();
      if (peek() == '}') break;
      const std::string key = quoted();
      skip();
      expect(':');
      skip();
      if (key == "descr") {
        if (peek() != '\'' && peek() != '"') fail("'descr' is not a plain dtype string (structured arrays are not read)");
        descr(quoted(), info);
        have_descr = true;
      } else if (key == "fortran_order") {
        fortran_ = word() == "True";
        have_order = true;
      } else if (key == "shape") {
        shape(info);
        have_shape = true;
      } else {
        fail("unknown key '" + printable(key) + "'");
      }
      skip();
      if (peek() == ',') ++i_;
    }
    if (!have_descr || !have_order || !have_shape) fail("the header lacks 'descr', 'fortran_order' or 'shape'");
    if (fortran_ && info.shape.size() > 1) fail("the array is in Fortran order; write it in C order (numpy.ascontiguousarray)");
  }

 private:
  [[noreturn]] void fail(const std::string& why) { throw UsageError(file_ + " is not a .npy file warpsim reads: " + why); }
  char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  void skip() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  void expect(char c) {
    if (peek() != c) fail(std::string("the header does not parse (expected '") + c + "' at byte " + std::to_string(i_) + ")");
    ++i_;
  }
  std::string quoted() {
    const char q = peek();
    if (q != '\'' && q != '"') fail("the header does not parse (expected a quoted key at byte " + std::to_string(i_) + ")");
    ++i_;
    const auto end = s_.find(q, i_);
    if (end == std::string::npos) fail("the header does not parse (an unterminated string)");
    std::string v = s_.substr(i_, end - i_);
    i_ = end + 1;
    return v;
  }
  std::string word() {
    std::string w;
    while (std::isalpha(static_cast<unsigned char>(peek()))) w += s_[i_++];
    if (w != "True" && w != "False") fail("'fortran_order' is neither True nor False");
    return w;
  }
  void shape(ArrayInfo& info) {
    expect('(');
    for (;;) {
      skip();
      if (peek() == ')') break;
      std::uint64_t v = 0;
      if (!std::isdigit(static_cast<unsigned char>(peek()))) fail("the shape holds something other than whole numbers");
      while (std::isdigit(static_cast<unsigned char>(peek()))) {
        if (v > (std::numeric_limits<std::uint64_t>::max() - 9) / 10) fail("a dimension is too large");
        v = v * 10 + static_cast<std::uint64_t>(s_[i_++] - '0');
      }
      if (peek() == 'L') ++i_;  // Python 2's long
      info.shape.push_back(v);
      skip();
      if (peek() == ',') ++i_;
    }
    ++i_;
    if (info.shape.size() > 2) fail("the array has " + std::to_string(info.shape.size()) + " dimensions; warpsim reads 1 or 2");
  }
  void descr(const std::string& d, ArrayInfo& info) {
    if (d.size() < 3) fail("dtype '" + printable(d) + "' is not one warpsim reads");
    const char order = d[0], kind = d[1];
    int bytes = 0;
    for (std::size_t j = 2; j < d.size(); ++j) {
      if (!std::isdigit(static_cast<unsigned char>(d[j])) || bytes > 100) fail("dtype '" + printable(d) + "' is not one warpsim reads");
      bytes = bytes * 10 + (d[j] - '0');
    }
    if (kind == 'f' && (bytes == 2 || bytes == 4 || bytes == 8)) {
      info.kind = ElementKind::Float;
    } else if ((kind == 'i' || kind == 'u') && (bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8)) {
      info.kind = kind == 'i' ? ElementKind::Signed : ElementKind::Unsigned;
    } else {
      fail("dtype '" + printable(d) + "' is not float16, float32, float64 or an integer (complex, bool and objects are not read)");
    }
    if (order == '>' && bytes > 1) fail("dtype '" + printable(d) + "' is big-endian; write it little-endian (astype('<" + d.substr(1) + "'))");
    if (order != '<' && order != '|' && order != '=' && order != '>') fail("dtype '" + printable(d) + "' has no byte order");
    info.bytes = bytes;
  }

  std::string s_;
  std::string file_;
  std::size_t i_ = 0;
  bool fortran_ = false;
};

std::uint64_t little_endian(const unsigned char* p, int n) {
  std::uint64_t v = 0;
  for (int j = n - 1; j >= 0; --j) v = (v << 8) | p[j];
  return v;
}

class NpyReader final : public ArrayReader {
 public:
  NpyReader(std::unique_ptr<std::istream> in, ArrayInfo info, const ArrayLimits& limits) : in_(std::move(in)) {
    info_ = std::move(info);
    info_.npy = true;
    auto* buf = in_->rdbuf();
    std::array<char, 8> head{};
    if (buf->sgetn(head.data(), 8) != 8 || std::memcmp(head.data(), kMagic, 6) != 0) {
      throw UsageError(info_.quoted + " is not a .npy file warpsim reads: it is shorter than a .npy header");
    }
    const int major = static_cast<unsigned char>(head[6]);
    if (major < 1 || major > 3) throw UsageError(info_.quoted + " is .npy version " + std::to_string(major) + "; warpsim reads versions 1 to 3");
    std::array<unsigned char, 4> len{};
    const int len_bytes = major == 1 ? 2 : 4;
    if (buf->sgetn(reinterpret_cast<char*>(len.data()), len_bytes) != len_bytes) {
      throw UsageError(info_.quoted + " is truncated inside its .npy header");
    }
    const std::uint64_t header_len = little_endian(len.data(), len_bytes);
    if (header_len > kMaxHeader) throw UsageError(info_.quoted + "'s .npy header claims " + std::to_string(header_len) + " bytes; at most 65536 are read");
    std::string header(header_len, '\0');
    if (static_cast<std::uint64_t>(buf->sgetn(header.data(), static_cast<std::streamsize>(header_len))) != header_len) {
      throw UsageError(info_.quoted + " is truncated inside its .npy header");
    }
    HeaderParser(header, info_.quoted).parse(info_);
    remaining_ = 1;
    for (auto d : info_.shape) {
      if (d != 0 && remaining_ > limits.max_elements / d) {
        throw UsageError(info_.quoted + " holds more than " + std::to_string(limits.max_elements) + " elements, the most one input may hold");
      }
      remaining_ *= d;
    }
    if (remaining_ > limits.max_elements) {
      throw UsageError(info_.quoted + " holds more than " + std::to_string(limits.max_elements) + " elements, the most one input may hold");
    }
    total_ = remaining_;
    info_.columns = info_.shape.size() == 2 ? info_.shape[1] : 1;
  }

  std::size_t read(std::span<double> values, std::span<std::uint64_t> rows) override {
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(values.size(), remaining_));
    if (want == 0) {
      if (!checked_end_) {
        checked_end_ = true;
        char extra = 0;
        if (in_->rdbuf()->sgetn(&extra, 1) == 1) {
          throw UsageError(info_.quoted + " has bytes after the data its header describes (shape " + shape_text() + ", " + info_.dtype() + ")");
        }
      }
      return 0;
    }
    bytes_.resize(want * static_cast<std::size_t>(info_.bytes));
    const auto got = static_cast<std::size_t>(in_->rdbuf()->sgetn(reinterpret_cast<char*>(bytes_.data()), static_cast<std::streamsize>(bytes_.size())));
    if (got != bytes_.size()) {
      const std::uint64_t have = (total_ - remaining_) * static_cast<std::uint64_t>(info_.bytes) + got;
      throw UsageError(info_.quoted + " is truncated: its header describes " + std::to_string(total_ * static_cast<std::uint64_t>(info_.bytes)) +
                       " bytes of data (shape " + shape_text() + ", " + info_.dtype() + "), the file holds " + std::to_string(have));
    }
    elements_to_doubles(bytes_.data(), want, info_.kind, info_.bytes, values.data());
    for (std::size_t j = 0; j < want; ++j) rows[j] = (consumed_ + j) / info_.columns;
    consumed_ += want;
    remaining_ -= want;
    return want;
  }

 private:
  std::string shape_text() const {
    std::string s = "(";
    for (std::size_t j = 0; j < info_.shape.size(); ++j) s += (j ? ", " : "") + std::to_string(info_.shape[j]);
    return s + (info_.shape.size() == 1 ? ",)" : ")");
  }
  std::unique_ptr<std::istream> in_;
  std::vector<unsigned char> bytes_;
  std::uint64_t remaining_ = 0, total_ = 0;
  bool checked_end_ = false;
};

class TextReader final : public ArrayReader {
 public:
  TextReader(std::unique_ptr<std::istream> in, ArrayInfo info, const ArrayLimits& limits)
      : in_(std::move(in)),
        numbers_(*in_, info.path == "-" ? "standard input" : info.path,
                 NumberLimits{.max_count = static_cast<std::size_t>(limits.max_elements), .max_token_chars = 1000,
                              .max_bytes = std::numeric_limits<std::size_t>::max()}) {
    info_ = std::move(info);
  }

  std::size_t read(std::span<double> values, std::span<std::uint64_t> rows) override {
    std::size_t n = 0;
    double v = 0;
    std::size_t line = 0;
    while (n < values.size() && numbers_.next(v, line)) {
      if (line != line_) {  // a new row
        end_row();
        line_ = line;
        ++row_;
      }
      ++in_row_;
      values[n] = v;
      rows[n] = static_cast<std::uint64_t>(row_);
      ++n;
    }
    consumed_ += n;
    if (n == 0 && !finished_) {
      finished_ = true;
      end_row();
      if (consumed_ == 0) throw UsageError(info_.quoted + " holds no numbers");
      const std::uint64_t lines = static_cast<std::uint64_t>(row_ + 1);
      info_.shape = info_.columns == 1 ? std::vector<std::uint64_t>{lines} : std::vector<std::uint64_t>{lines, info_.columns};
    }
    return n;
  }

 private:
  void end_row() {
    if (row_ < 0) return;
    if (info_.columns == 0) {
      info_.columns = in_row_;
    } else if (in_row_ != info_.columns) {
      throw UsageError(info_.quoted + ", line " + std::to_string(line_) + ": " + std::to_string(in_row_) + " numbers where the lines before hold " +
                       std::to_string(info_.columns) + " (rows of a matrix must have one length)");
    }
    in_row_ = 0;
  }
  std::unique_ptr<std::istream> in_;
  NumberStream numbers_;
  std::size_t line_ = 0;
  std::int64_t row_ = -1;
  std::uint64_t in_row_ = 0;
  bool finished_ = false;
};

}  // namespace

void elements_to_doubles(const unsigned char* p, std::size_t n, ElementKind kind, int b, double* values) {
  if constexpr (std::endian::native == std::endian::little) {
    // The common dtypes as typed copies, converted in one tight loop.
    const auto fast = [&](auto zero) {
      using E = decltype(zero);
      if (sizeof(E) != static_cast<std::size_t>(b)) return false;
      for (std::size_t j = 0; j < n; ++j) {
        E x;
        std::memcpy(&x, p + j * sizeof(E), sizeof(E));
        values[j] = static_cast<double>(x);
      }
      return true;
    };
    const bool done = kind == ElementKind::Signed ? fast(std::int64_t{}) || fast(std::int32_t{})
                      : kind == ElementKind::Float ? fast(double{}) || fast(float{})
                                                   : false;
    if (done) return;
  }
  for (std::size_t j = 0; j < n; ++j, p += b) {
    const std::uint64_t bits = little_endian(p, b);
    double v = 0;
    switch (kind) {
      case ElementKind::Float:
        if (b == 2) {  // IEEE binary16, subnormals included: exact in a double
          const int e = static_cast<int>((bits >> 10) & 0x1f), m = static_cast<int>(bits & 0x3ff);
          v = e == 0x1f ? (m ? std::nan("") : HUGE_VAL) : e == 0 ? std::ldexp(m, -24) : std::ldexp(m + 1024, e - 25);
          if (bits & 0x8000) v = -v;
        } else if (b == 4) {
          float f;
          const auto u32 = static_cast<std::uint32_t>(bits);
          std::memcpy(&f, &u32, 4);
          v = f;
        } else {
          std::memcpy(&v, &bits, 8);
        }
        break;
      case ElementKind::Signed: {
        const int shift = 64 - 8 * b;
        v = static_cast<double>(static_cast<std::int64_t>(bits << shift) >> shift);
        break;
      }
      case ElementKind::Unsigned: v = static_cast<double>(bits); break;
      case ElementKind::Text: break;
    }
    values[j] = v;
  }
}

std::unique_ptr<ArrayReader> open_array(const InputSource& inputs, const std::string& path, const ArrayLimits& limits) {
  if (auto view = inputs.open_view(path, limits)) return view;
  auto in = inputs.open(path);
  ArrayInfo info;
  info.path = path;
  info.quoted = "'" + printable(path == "-" ? "standard input" : path, 200) + "'";
  const int first = in->rdbuf() ? in->rdbuf()->sgetc() : std::char_traits<char>::eof();
  if (first == static_cast<unsigned char>(kMagic[0])) return std::make_unique<NpyReader>(std::move(in), std::move(info), limits);
  return std::make_unique<TextReader>(std::move(in), std::move(info), limits);
}

namespace {

class ShardedReader final : public ArrayReader {
 public:
  ShardedReader(const InputSource& inputs, const std::vector<std::string>& paths, const ArrayLimits& limits)
      : inputs_(inputs), paths_(paths), limits_(limits) {
    for (const auto& p : paths) {
      if (p == "-") throw UsageError("standard input cannot be one of several files");
    }
    info_.path = paths.front();
    std::string names;
    for (std::size_t i = 0; i < paths.size() && i < 3; ++i) names += (i ? ", " : "") + std::string("'") + printable(paths[i], 200) + "'";
    info_.quoted = names + (paths.size() > 3 ? ", ... (" + std::to_string(paths.size()) + " files)" : "");
    // The headers first: every shard's kind and shape, so that the whole's is
    // known before a value is read (as one .npy's is).
    bool all_npy = true;
    std::uint64_t rows = 0, elements = 0;
    for (std::size_t i = 0; i < paths.size(); ++i) {
      auto r = open_array(inputs, paths[i], limits);
      const auto& a = r->info();
      all_npy = all_npy && a.npy;
      if (i == 0) {
        info_.kind = a.kind;
        info_.bytes = a.bytes;
        dims_ = a.shape.size();
        info_.columns = a.columns;
      } else if (a.npy && first_npy_) {
        if ((a.kind == ElementKind::Float) != (info_.kind == ElementKind::Float)) {
          throw UsageError(a.quoted + " holds " + a.dtype() + ", and " + quoted_first() + " " + first_dtype_ + ": the shards differ in kind");
        }
        if (a.shape.size() != dims_ || (dims_ == 2 && a.columns != info_.columns)) {
          throw UsageError(a.quoted + " has shape " + shape_text(a.shape) + ", and " + quoted_first() + " " + shape_text(first_shape_) +
                           ": shards are blocks of rows of the same length");
        }
      }
      if (i == 0) {
        first_npy_ = a.npy;
        first_dtype_ = a.dtype();
        first_shape_ = a.shape;
      }
      if (a.npy) {
        rows += a.shape.empty() ? 1 : a.shape[0];
        std::uint64_t n = 1;
        for (auto d : a.shape) n *= d;
        elements += n;
        if (elements > limits.max_elements) {
          throw UsageError(info_.quoted + " hold more than " + std::to_string(limits.max_elements) + " values together");
        }
      }
    }
    info_.npy = all_npy;
    if (all_npy) {
      info_.shape = dims_ == 2 ? std::vector<std::uint64_t>{rows, info_.columns} : std::vector<std::uint64_t>{rows};
    }
  }

  std::size_t read(std::span<double> values, std::span<std::uint64_t> rows) override {
    for (;;) {
      if (!current_) {
        if (next_ == paths_.size()) {
          if (!info_.npy) info_.shape = columns_seen_ > 1 ? std::vector<std::uint64_t>{offset_, columns_seen_} : std::vector<std::uint64_t>{offset_};
          return 0;
        }
        ArrayLimits left = limits_;
        left.max_elements = limits_.max_elements - consumed_;
        current_ = open_array(inputs_, paths_[next_++], left);
      }
      const std::size_t n = current_->read(values, rows);
      if (n > 0) {
        for (std::size_t i = 0; i < n; ++i) rows[i] += offset_;
        consumed_ += n;
        if (!info_.npy && info_.columns == 0) info_.columns = current_->info().columns;
        return n;
      }
      // This shard is whole: the next one's rows follow its own.
      const auto& a = current_->info();
      if (!info_.npy && current_->consumed() > 0) {
        const std::uint64_t c = a.shape.size() == 2 ? a.shape[1] : 1;
        if (columns_seen_ != 0 && c != columns_seen_) {
          throw UsageError(a.quoted + " has " + std::to_string(c) + " numbers a line, and the shards before it " + std::to_string(columns_seen_) +
                           ": shards are blocks of rows of the same length");
        }
        columns_seen_ = c;
      }
      offset_ += a.shape.empty() ? 1 : a.shape[0];
      current_.reset();
    }
  }

 private:
  std::string quoted_first() const { return "'" + printable(paths_.front(), 200) + "'"; }
  static std::string shape_text(const std::vector<std::uint64_t>& s) {
    if (s.empty()) return "()";
    std::string t = std::to_string(s[0]);
    for (std::size_t i = 1; i < s.size(); ++i) t += " x " + std::to_string(s[i]);
    return t;
  }

  const InputSource& inputs_;
  std::vector<std::string> paths_;
  ArrayLimits limits_;
  std::unique_ptr<ArrayReader> current_;
  std::size_t next_ = 0;
  std::uint64_t offset_ = 0;        // rows of the shards read
  std::uint64_t columns_seen_ = 0;  // text: numbers a line
  std::size_t dims_ = 0;
  bool first_npy_ = false;
  std::string first_dtype_;
  std::vector<std::uint64_t> first_shape_;
};

}  // namespace

std::unique_ptr<ArrayReader> open_arrays(const InputSource& inputs, const std::vector<std::string>& paths, const ArrayLimits& limits) {
  if (paths.empty()) throw UsageError("no file given");
  if (paths.size() == 1) return open_array(inputs, paths.front(), limits);
  return std::make_unique<ShardedReader>(inputs, paths, limits);
}

WholeArray read_whole_array(const InputSource& inputs, const std::string& path, std::uint64_t max_elements) {
  auto reader = open_array(inputs, path, {.max_elements = max_elements});
  WholeArray a;
  std::vector<double> chunk(1 << 16);
  std::vector<std::uint64_t> rows(chunk.size());
  while (std::size_t n = reader->read(chunk, rows)) a.values.insert(a.values.end(), chunk.begin(), chunk.begin() + static_cast<std::ptrdiff_t>(n));
  a.info = reader->info();
  const auto& shape = a.info.shape;
  if (shape.empty()) {  // a .npy scalar
    a.vector = true;
    a.rows = 1;
    a.cols = 1;
  } else if (shape.size() == 1) {
    a.vector = true;
    a.rows = 1;
    a.cols = shape[0];
  } else {
    a.rows = shape[0];
    a.cols = shape[1];
  }
  if (a.values.empty()) throw UsageError(a.info.quoted + " holds no numbers (shape with a zero dimension)");
  return a;
}

}  // namespace warpsim::cli
