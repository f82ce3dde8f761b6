// sim/sim.hpp compiles on its own (tests/module_headers_test.sh checks what it lists).
#include "sim/sim.hpp"
