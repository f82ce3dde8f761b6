// Where the command line's input files come from. The CLI names inputs by
// path ("-" is standard input); an InputSource opens them. The program uses
// the file system; tests and fuzz targets use MemoryInputs, so that every
// entry point can be driven in-process without touching the disk.
#pragma once

#include <istream>
#include <map>
#include <memory>
#include <string>

namespace warpsim::cli {

class ArrayReader;
struct ArrayLimits;

class InputSource {
 public:
  virtual ~InputSource() = default;
  // A stream over `path`; throws UsageError (naming the path) when it cannot
  // be opened or is not a readable file.
  virtual std::unique_ptr<std::istream> open(const std::string& path) const = 0;
  // An array held in memory under the name `path` (cli/input/array_view.hpp:
  // a caller's NumPy or device array), read in place; null where `path` names
  // a file. open_array asks this first.
  virtual std::unique_ptr<ArrayReader> open_view(const std::string& path, const ArrayLimits& limits) const;
};

// Refuses (UsageError) a path that names something reading or writing would
// block on or never finish: a FIFO, a socket, a character or block device
// (a terminal, /dev/zero), a directory. A path that does not exist passes
// (the caller's own open says so). `what` names the path's role ("plugin",
// "the counterexample file").
void refuse_unless_regular(const std::string& path, const std::string& what);

// Files and standard input.
class FileInputs final : public InputSource {
 public:
  std::unique_ptr<std::istream> open(const std::string& path) const override;
};

// Named strings: open(name) reads the string stored under that name.
class MemoryInputs final : public InputSource {
 public:
  std::map<std::string, std::string> files;
  std::unique_ptr<std::istream> open(const std::string& path) const override;
};

}  // namespace warpsim::cli
