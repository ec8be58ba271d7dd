#ifndef CORE_FRAMEWORK_VALUE_H_
#define CORE_FRAMEWORK_VALUE_H_

// One argument or result of an op call.

#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "core/runtime/device.h"
#include "core/runtime/dtype.h"
#include "core/runtime/scalar.h"
#include "core/runtime/shape.h"
#include "core/runtime/tensor_impl.h"

namespace oneflow {

class Generator;

class Value {
 public:
  using Storage =
      std::variant<std::monostate, TensorImplPtr, std::vector<TensorImplPtr>, Scalar, int64_t,
                   double, bool, DimVector, DType, Device, std::string, std::shared_ptr<Generator>>;

  Value() = default;
  Value(TensorImplPtr t, bool wrapped_number = false)  // NOLINT: implicit
      : v_(std::move(t)), wrapped_number_(wrapped_number) {}
  Value(std::vector<TensorImplPtr> ts) : v_(std::move(ts)) {}  // NOLINT
  Value(Scalar s) : v_(s) {}                                   // NOLINT
  Value(int64_t i) : v_(i) {}                                  // NOLINT
  Value(int i) : v_(static_cast<int64_t>(i)) {}                // NOLINT
  Value(double d) : v_(d) {}                                   // NOLINT
  Value(bool b) : v_(b) {}                                     // NOLINT
  Value(DimVector l) : v_(std::move(l)) {}                     // NOLINT
  Value(DType d) : v_(d) {}                                    // NOLINT
  Value(Device d) : v_(d) {}                                   // NOLINT
  Value(std::string s) : v_(std::move(s)) {}                   // NOLINT
  Value(std::shared_ptr<Generator> g) : v_(std::move(g)) {}    // NOLINT

  bool is_none() const { return std::holds_alternative<std::monostate>(v_); }
  bool is_tensor() const { return std::holds_alternative<TensorImplPtr>(v_); }
  bool is_tensor_list() const { return std::holds_alternative<std::vector<TensorImplPtr>>(v_); }
  // A tensor made from a Python number (it takes part in type promotion as a
  // number, not as a tensor).
  bool is_wrapped_number() const { return wrapped_number_; }

  const TensorImplPtr& tensor() const { return std::get<TensorImplPtr>(v_); }
  const std::vector<TensorImplPtr>& tensors() const {
    return std::get<std::vector<TensorImplPtr>>(v_);
  }
  const Scalar& scalar() const { return std::get<Scalar>(v_); }
  int64_t to_int() const { return std::get<int64_t>(v_); }
  double to_double() const {
    if (auto* i = std::get_if<int64_t>(&v_)) return static_cast<double>(*i);
    return std::get<double>(v_);
  }
  bool to_bool() const { return std::get<bool>(v_); }
  const DimVector& int_list() const { return std::get<DimVector>(v_); }
  DType dtype() const { return std::get<DType>(v_); }
  const Device& device() const { return std::get<Device>(v_); }
  const std::string& str() const { return std::get<std::string>(v_); }
  const std::shared_ptr<Generator>& generator() const {
    return std::get<std::shared_ptr<Generator>>(v_);
  }
  const Storage& storage() const { return v_; }

 private:
  Storage v_;
  bool wrapped_number_ = false;
};

// The index of an op argument, typed by what it holds (generated per op in
// ops/api/ops.h as arg::<op>::<name>); converts to the plain index.
template <typename T>
struct ArgRef {
  int index;
  constexpr operator int() const { return index; }  // NOLINT: implicit
};

// A Value read as T: TensorImplPtr, TensorList, Scalar, int64_t, double, bool,
// DimVector, DType, Device, std::string, a Generator, or std::optional of one
// (nullopt for None).
template <typename T>
T ValueAs(const Value& v) {
  if constexpr (std::is_same_v<T, TensorImplPtr>) {
    return v.is_none() ? nullptr : v.tensor();
  } else if constexpr (std::is_same_v<T, std::vector<TensorImplPtr>>) {
    return v.tensors();
  } else if constexpr (std::is_same_v<T, Scalar>) {
    return v.scalar();
  } else if constexpr (std::is_same_v<T, int64_t>) {
    return v.to_int();
  } else if constexpr (std::is_same_v<T, double>) {
    return v.to_double();
  } else if constexpr (std::is_same_v<T, bool>) {
    return v.to_bool();
  } else if constexpr (std::is_same_v<T, DimVector>) {
    return v.int_list();
  } else if constexpr (std::is_same_v<T, DType>) {
    return v.dtype();
  } else if constexpr (std::is_same_v<T, Device>) {
    return v.device();
  } else if constexpr (std::is_same_v<T, std::string>) {
    return v.str();
  } else if constexpr (std::is_same_v<T, std::shared_ptr<Generator>>) {
    return v.is_none() ? nullptr : v.generator();
  } else {
    using Inner = typename T::value_type;  // std::optional<Inner>
    if (v.is_none()) return std::nullopt;
    return ValueAs<Inner>(v);
  }
}

}  // namespace oneflow

#endif  // CORE_FRAMEWORK_VALUE_H_
