// CUB 3 removed cub::TransformInputIterator, which the thesis's code (built
// only as a benchmark baseline) uses: the same thing, from Thrust.
#pragma once
#include <thrust/iterator/transform_iterator.h>
namespace cub {
template <class Value, class Op, class Iterator, class Offset = long long>
using TransformInputIterator = thrust::transform_iterator<Op, Iterator, Value, Value>;
}
