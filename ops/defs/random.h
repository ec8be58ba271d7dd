#ifndef OPS_DEFS_RANDOM_H_
#define OPS_DEFS_RANDOM_H_

// Helpers of the random ops (ranges of random_, dtype limits); the Generator
// itself is core/framework/generator.h.

#include "core/framework/generator.h"

namespace oneflow {

struct OpCall;

namespace random_detail {

// The largest finite value of a floating dtype.
double LargestFinite(DType d);
// Significand bits of a floating dtype (11 for float16, 24 for float32, ...).
int MantissaDigits(DType d);
// The values random_() draws from: an integer dtype's range, bool's {0, 1},
// and for floating dtypes the integers they hold exactly, [-2^digits, 2^digits].
void IntegralBounds(DType d, int64_t* lo, int64_t* hi);

// [from, from + span) for a random_ call (span 0 stands for 2^64). Throws
// RuntimeError for an empty range or bounds outside the dtype.
struct RandomRange {
  int64_t from = 0;
  uint64_t span = 0;
};
RandomRange RangeForRandom(const OpCall& call);

}  // namespace random_detail

}  // namespace oneflow

#endif  // OPS_DEFS_RANDOM_H_
