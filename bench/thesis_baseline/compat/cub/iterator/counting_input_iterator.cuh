// CUB 3 removed cub::CountingInputIterator, which the thesis's code (built
// only as a benchmark baseline) uses: the same thing, from Thrust.
#pragma once
#include <thrust/iterator/counting_iterator.h>
namespace cub {
template <class T, class Offset = long long>
using CountingInputIterator = thrust::counting_iterator<T>;
}
