// oracle/oracle.hpp compiles on its own (tests/module_headers_test.sh checks what it lists).
#include "oracle/oracle.hpp"
