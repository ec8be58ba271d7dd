#ifndef OPS_API_ARG_TYPES_H_
#define OPS_API_ARG_TYPES_H_

// The parameter types of the generated op API (ops/api/ops.h): each schema
// type maps to one C++ type, which becomes the op's argument Value.
//   Tensor -> TensorArg (a tensor, or a Python number from defs::Num/Int)
//   Tensor? -> OptTensorArg (null or std::nullopt: None)
//   Scalar -> ScalarArg (a Scalar or any C++ number or bool)
//   int, float, bool, ScalarType, Device, str -> int64_t, double, bool, DType,
//   Device, std::string; "T?" -> std::optional<T>; int[] / int[N] -> DimVector
//   an argument with a default -> Def<T>: left out ({}), the schema's default.

#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/framework/op_registry.h"
#include "core/framework/schema.h"
#include "core/framework/value.h"

namespace oneflow {
namespace ops {

// A Tensor argument: a tensor, or a Value holding one (a wrapped number).
class TensorArg {
 public:
  TensorArg(TensorImplPtr t) : v_(std::move(t)) {}  // NOLINT: implicit
  TensorArg(Value v) : v_(std::move(v)) {}          // NOLINT: implicit
  const Value& value() const { return v_; }

 private:
  Value v_;
};

// A Tensor? argument; a null tensor or std::nullopt is None.
class OptTensorArg {
 public:
  OptTensorArg() = default;
  OptTensorArg(std::nullopt_t) {}  // NOLINT: implicit
  OptTensorArg(TensorImplPtr t) {  // NOLINT: implicit
    if (t) v_ = Value(std::move(t));
  }
  OptTensorArg(Value v) : v_(std::move(v)) {}  // NOLINT: implicit
  const Value& value() const { return v_; }

 private:
  Value v_;
};

// A Scalar argument from a Scalar, a C++ number or a bool.
class ScalarArg {
 public:
  ScalarArg(Scalar s) : s_(s) {}  // NOLINT: implicit
  template <typename T, typename = std::enable_if_t<std::is_arithmetic_v<T>>>
  ScalarArg(T v) {  // NOLINT: implicit
    if constexpr (std::is_same_v<T, bool>) {
      s_ = Scalar::Bool(v);
    } else if constexpr (std::is_integral_v<T>) {
      s_ = Scalar::Int(static_cast<int64_t>(v));
    } else {
      s_ = Scalar::Float(static_cast<double>(v));
    }
  }
  const Scalar& scalar() const { return s_; }

 private:
  Scalar s_;
};

// An argument with a default in the schema: left out ({}), the op gets that default.
template <typename T>
class Def {
 public:
  Def() = default;
  Def(T v) : v_(std::move(v)) {}  // NOLINT: implicit
  template <typename U, typename = std::enable_if_t<std::is_constructible_v<T, U&&> &&
                                                    !std::is_same_v<std::decay_t<U>, T> &&
                                                    !std::is_same_v<std::decay_t<U>, Def>>>
  Def(U&& v) : v_(T(std::forward<U>(v))) {}  // NOLINT: implicit
  template <typename L = T, typename = std::enable_if_t<std::is_constructible_v<L, DimVector>>>
  Def(std::initializer_list<int64_t> list) : v_(T(DimVector(list))) {}  // NOLINT: implicit
  const std::optional<T>& get() const { return v_; }

 private:
  std::optional<T> v_;
};

// The Value an op receives for one argument (`spec`: its schema entry).
inline Value ToValue(const TensorArg& a, const ArgSpec&) { return a.value(); }
inline Value ToValue(const OptTensorArg& a, const ArgSpec&) { return a.value(); }
inline Value ToValue(const ScalarArg& a, const ArgSpec&) { return Value(a.scalar()); }
inline Value ToValue(const std::vector<TensorImplPtr>& a, const ArgSpec&) { return Value(a); }
inline Value ToValue(const std::shared_ptr<Generator>& g, const ArgSpec&) {
  return g ? Value(g) : Value();
}
template <typename T>
Value ToValue(const T& v, const ArgSpec&) {
  return Value(v);
}
template <typename T>
Value ToValue(const std::optional<T>& v, const ArgSpec& spec) {
  return v ? ToValue(*v, spec) : Value();
}
template <typename T>
Value ToValue(const Def<T>& v, const ArgSpec& spec) {
  return v.get() ? ToValue(*v.get(), spec) : spec.default_value;
}

}  // namespace ops
}  // namespace oneflow

#endif  // OPS_API_ARG_TYPES_H_
