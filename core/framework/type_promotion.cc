#include "core/framework/type_promotion.h"

#include <optional>

namespace oneflow {
namespace {

int Category(DType d) {
  if (d == DType::kBool) return 0;
  return IsFloatingPoint(d) ? 2 : 1;
}

DType default_float = DType::kFloat32;

std::optional<DType> Promote(std::optional<DType> a, DType b) {
  return a ? PromoteTypes(*a, b) : b;
}

// PyTorch's rule for combining a higher-priority class with a lower one.
std::optional<DType> Combine(std::optional<DType> higher, std::optional<DType> lower) {
  if (!lower) return higher;
  if (!higher) return lower;
  if (IsFloatingPoint(*higher)) return higher;
  if (*higher == DType::kBool || IsFloatingPoint(*lower)) return PromoteTypes(*higher, *lower);
  return higher;
}

}  // namespace

DType PromoteTypes(DType a, DType b) {
  if (a == b) return a;
  int ca = Category(a), cb = Category(b);
  if (ca != cb) return ca > cb ? a : b;
  if ((a == DType::kFloat16 && b == DType::kBFloat16) ||
      (a == DType::kBFloat16 && b == DType::kFloat16)) {
    return DType::kFloat32;
  }
  if (a == DType::kUInt8 || b == DType::kUInt8) {
    DType other = a == DType::kUInt8 ? b : a;
    return other == DType::kInt8 ? DType::kInt16 : other;
  }
  return ItemSize(a) >= ItemSize(b) ? a : b;
}

DType ScalarDType(const Scalar& s) {
  switch (s.kind) {
    case Scalar::Kind::kBool:
      return DType::kBool;
    case Scalar::Kind::kInt:
      return DType::kInt64;
    case Scalar::Kind::kFloat:
      return default_float;
  }
  return default_float;
}

DType ResultType(const std::vector<const Value*>& operands) {
  std::optional<DType> dim, zero, wrapped;
  for (const Value* v : operands) {
    if (v->is_tensor()) {
      const TensorImplPtr& t = v->tensor();
      if (v->is_wrapped_number()) {
        DType d = t->dtype();
        // A Python float is a double, but counts as the default float dtype.
        if (IsFloatingPoint(d)) d = default_float;
        wrapped = Promote(wrapped, d);
      } else if (t->ndim() == 0) {
        zero = Promote(zero, t->dtype());
      } else {
        dim = Promote(dim, t->dtype());
      }
    } else if (v->is_tensor_list()) {
      for (const auto& t : v->tensors()) {
        if (t->ndim() == 0) {
          zero = Promote(zero, t->dtype());
        } else {
          dim = Promote(dim, t->dtype());
        }
      }
    } else if (std::holds_alternative<Scalar>(v->storage())) {
      wrapped = Promote(wrapped, ScalarDType(v->scalar()));
    }
  }
  std::optional<DType> r = Combine(dim, Combine(zero, wrapped));
  return r.value_or(default_float);
}

DType DefaultFloatDType() { return default_float; }
void SetDefaultFloatDType(DType dtype) { default_float = dtype; }

bool CanCast(DType from, DType to) { return Category(from) <= Category(to); }

}  // namespace oneflow
