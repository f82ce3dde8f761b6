// warpsim's statistical tests, all of them. Every result says what a pass
// rules out (stats/test_result.hpp).
#pragma once

#include "stats/ad_continuous.hpp"
#include "stats/binomial.hpp"
#include "stats/continuous_law.hpp"
#include "stats/continuous_verdict.hpp"
#include "stats/goodness_of_fit.hpp"
#include "stats/homogeneity.hpp"
#include "stats/input_checks.hpp"
#include "stats/ks_continuous.hpp"
#include "stats/ks_discrete.hpp"
#include "stats/monte_carlo.hpp"
#include "stats/pooling.hpp"
#include "stats/power.hpp"
#include "stats/row_laws.hpp"
#include "stats/stored.hpp"
#include "stats/tail_test.hpp"
#include "stats/test_result.hpp"
#include "stats/two_level.hpp"
#include "stats/two_level_continuous.hpp"
