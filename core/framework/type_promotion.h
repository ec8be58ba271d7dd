#ifndef CORE_FRAMEWORK_TYPE_PROMOTION_H_
#define CORE_FRAMEWORK_TYPE_PROMOTION_H_

// PyTorch's dtype rules for ops with several operands.

#include <vector>

#include "core/framework/value.h"

namespace oneflow {

// The smallest dtype both convert to: a higher category (bool < integer <
// floating) wins; uint8 with int8 needs int16; float16 with bfloat16 gives
// float32; otherwise the wider type.
DType PromoteTypes(DType a, DType b);

// The result dtype of an op over `operands` (tensors, wrapped numbers and
// scalars): dimensioned tensors decide, unless zero-dim tensors or Python
// numbers bring a higher category (so float16_tensor + 1.0 stays float16 and
// int_tensor + 1.5 becomes the default float dtype).
DType ResultType(const std::vector<const Value*>& operands);

// The dtype PyTorch gives a Python number: bool, int64, or the default float.
DType ScalarDType(const Scalar& s);

DType DefaultFloatDType();
void SetDefaultFloatDType(DType dtype);

// Whether a value of dtype `from` may be written into a tensor of dtype `to`
// by an in-place op (no category demotion, e.g. float into an int tensor).
bool CanCast(DType from, DType to);

}  // namespace oneflow

#endif  // CORE_FRAMEWORK_TYPE_PROMOTION_H_
