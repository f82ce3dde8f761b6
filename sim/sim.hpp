// warpsim's warp model, all of it: include this, or the one header you need.
#pragma once

#include "sim/coalescing.hpp"
#include "sim/counters.hpp"
#include "sim/diagnostics.hpp"
#include "sim/global_memory.hpp"
#include "sim/lane_mask.hpp"
#include "sim/local_memory.hpp"
#include "sim/reg.hpp"
#include "sim/shared_memory.hpp"
#include "sim/symbolic.hpp"
#include "sim/trace.hpp"
#include "sim/value_format.hpp"
#include "sim/warp.hpp"
