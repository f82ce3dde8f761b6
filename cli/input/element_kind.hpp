// The element types arrays hold (cli/input/arrays.hpp), and their
// conversion to doubles: apart from the readers, so that CUDA code (which
// compiles as C++17) describes arrays too.
#pragma once

#include <cstddef>

namespace warpsim::cli {

enum class ElementKind { Float, Signed, Unsigned, Text };

// n little-endian elements of `kind` and `bytes` (as a .npy holds them) as doubles.
void elements_to_doubles(const unsigned char* p, std::size_t n, ElementKind kind, int bytes, double* out);

}  // namespace warpsim::cli
