// Arrays from files, as every command that takes arrays reads them: NumPy .npy (what
// PyTorch, JAX and CuPy write: version 1-3, little-endian, C order;
// float32/float64 and integers of 1-8 bytes) and plain text (one number a
// line, or rows of a matrix, one row a line). The format is told by the
// content (.npy's magic bytes), never by the name.
//
// Both stream: read() hands out values in order with the row each is in, in
// constant memory, so a file of 10^9 draws is counted without being held.
// (Why not a library: the .npy readers in Debian -- xtensor's load_npy --
// read the whole array into memory; the header is a Python dict literal of
// three keys, parsed here strictly.)
//
// Every malformed file is a UsageError naming the file and what is wrong:
// a truncated .npy or bytes after its data, a header that does not parse,
// big-endian or Fortran-ordered data, more than two dimensions, rows of
// different lengths in text.
//
// Usage:
//   auto a = open_array(inputs, "draws.npy", ArrayLimits{});
//   std::vector<double> v(1 << 16); std::vector<std::uint64_t> row(v.size());
//   while (std::size_t n = a->read(v, row)) { ... }
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cli/input/element_kind.hpp"
#include "cli/input/sources.hpp"

namespace warpsim::cli {


struct ArrayInfo {
  std::string path;                     // as given
  std::string quoted;                   // "'path'" for messages
  bool npy = false;
  ElementKind kind = ElementKind::Text;
  int bytes = 0;                        // element size (.npy)
  // .npy: the shape from the header (0, 1 or 2 dims); text: set once read()
  // has returned 0 (lines x numbers a line, or one dim if one a line).
  std::vector<std::uint64_t> shape;
  std::string dtype() const;            // "float32", "int64", "text"
  // Elements per row: .npy 2-D shape[1], else 1; text: known after the
  // first line (0 before).
  std::uint64_t columns = 0;
};

struct ArrayLimits {
  std::uint64_t max_elements = std::uint64_t{1} << 40;  // what one input may hold
};

class ArrayReader {
 public:
  virtual ~ArrayReader() = default;
  const ArrayInfo& info() const { return info_; }
  // Up to values.size() values in order (rows.size() >= values.size()), each
  // with its row: the first index of a 2-D array, the element of a 1-D one,
  // the line (non-empty lines, from 0) of text. 0 at the end, after checking
  // the file is whole (UsageError if not).
  virtual std::size_t read(std::span<double> values, std::span<std::uint64_t> rows) = 0;
  // Elements handed out so far.
  std::uint64_t consumed() const { return consumed_; }
  // The array in device memory this reads (cli/input/array_view.hpp), so
  // that a caller may count it where it lies; null for files and host arrays.
  virtual const struct ArrayView* device_array() const { return nullptr; }

 protected:
  ArrayInfo info_;
  std::uint64_t consumed_ = 0;
};

std::unique_ptr<ArrayReader> open_array(const InputSource& inputs, const std::string& path, const ArrayLimits& limits = {});

// Several files read as one array, in the order given (a sharded dataset's
// shards): their values one after another, rows numbered on from the last
// shard's (shard 2's row 0 is row M1 of the whole, M1 the rows of shard 1).
// Each shard is opened as its turn comes; all hold the same kind of element
// and, where 2-D, rows of the same length (UsageError naming the shard if
// not). .npy shards: the whole shape is known at once (their headers are
// read first). Together at most limits.max_elements. One path: open_array.
std::unique_ptr<ArrayReader> open_arrays(const InputSource& inputs, const std::vector<std::string>& paths, const ArrayLimits& limits = {});

// A whole array in memory, for the inputs that are not streamed (weights).
struct WholeArray {
  ArrayInfo info;
  std::vector<double> values;
  std::uint64_t rows = 0, cols = 0;  // a vector of n: 1 x n
  bool vector = false;               // one dimension (text: one number a line)
};
WholeArray read_whole_array(const InputSource& inputs, const std::string& path, std::uint64_t max_elements);

}  // namespace warpsim::cli
