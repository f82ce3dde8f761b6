#include "cli/inputs.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <system_error>

#include "cli/errors.hpp"

namespace warpsim::cli {

std::unique_ptr<std::istream> FileInputs::open(const std::string& path) const {
  if (path == "-") return std::make_unique<std::istream>(std::cin.rdbuf());
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw UsageError("'" + printable(path, 200) + "' is a directory, not a file");
  auto file = std::make_unique<std::ifstream>(path, std::ios::binary);
  if (!*file) throw UsageError("cannot open '" + printable(path, 200) + "'");
  return file;
}

std::unique_ptr<std::istream> MemoryInputs::open(const std::string& path) const {
  const auto it = files.find(path);
  if (it == files.end()) throw UsageError("cannot open '" + printable(path, 200) + "'");
  return std::make_unique<std::istringstream>(it->second);
}

}  // namespace warpsim::cli
