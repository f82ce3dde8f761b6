#include "cli/input/sources.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <system_error>

#include "cli/errors.hpp"
#include "cli/input/arrays.hpp"

namespace warpsim::cli {

void refuse_unless_regular(const std::string& path, const std::string& what) {
  std::error_code ec;
  const auto st = std::filesystem::status(path, ec);  // follows links: what opening would reach
  if (ec || !std::filesystem::exists(st)) return;
  const char* kind = nullptr;
  const char* why = "";
  switch (st.type()) {
    case std::filesystem::file_type::regular: return;
    case std::filesystem::file_type::directory: kind = "a directory"; break;
    case std::filesystem::file_type::fifo: kind = "a FIFO (a named pipe)", why = ": opening it could block forever"; break;
    case std::filesystem::file_type::socket: kind = "a socket"; break;
    case std::filesystem::file_type::character: kind = "a character device", why = ": it may never end (use - for standard input)"; break;
    case std::filesystem::file_type::block: kind = "a block device"; break;
    default: kind = "something other than a file"; break;
  }
  throw UsageError(what + " '" + printable(path, 200) + "' is " + kind + ", not a file" + why);
}

std::unique_ptr<std::istream> FileInputs::open(const std::string& path) const {
  if (path == "-") return std::make_unique<std::istream>(std::cin.rdbuf());
  refuse_unless_regular(path, "input");
  auto file = std::make_unique<std::ifstream>(path, std::ios::binary);
  if (!*file) throw UsageError("cannot open '" + printable(path, 200) + "'");
  return file;
}

std::unique_ptr<ArrayReader> InputSource::open_view(const std::string&, const ArrayLimits&) const { return nullptr; }

std::unique_ptr<std::istream> MemoryInputs::open(const std::string& path) const {
  const auto it = files.find(path);
  if (it == files.end()) throw UsageError("cannot open '" + printable(path, 200) + "'");
  return std::make_unique<std::istringstream>(it->second);
}

}  // namespace warpsim::cli
