#ifndef CORE_RUNTIME_DTYPE_H_
#define CORE_RUNTIME_DTYPE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/runtime/half.h"

namespace oneflow {

// Element types of tensors. The order is the order of OF_FOR_EACH_DTYPE below;
// keep the two in sync.
enum class DType : int8_t {
  kBool = 0,
  kUInt8,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kFloat16,
  kBFloat16,
  kFloat32,
  kFloat64,
};
inline constexpr int kNumDTypes = 10;

// Applies macro `_` to (C++ type, DType enumerator) for every dtype.
// Kept in sync with enum class DType.
#define OF_FOR_EACH_DTYPE(_)                          \
  _(bool, ::oneflow::DType::kBool)                    \
  _(uint8_t, ::oneflow::DType::kUInt8)                \
  _(int8_t, ::oneflow::DType::kInt8)                  \
  _(int16_t, ::oneflow::DType::kInt16)                \
  _(int32_t, ::oneflow::DType::kInt32)                \
  _(int64_t, ::oneflow::DType::kInt64)                \
  _(::oneflow::Half, ::oneflow::DType::kFloat16)      \
  _(::oneflow::BFloat16, ::oneflow::DType::kBFloat16) \
  _(float, ::oneflow::DType::kFloat32)                \
  _(double, ::oneflow::DType::kFloat64)

template <typename T>
struct DTypeOf;
#define OF_DEFINE_DTYPE_OF(cpp, dt)    \
  template <>                          \
  struct DTypeOf<cpp> {                \
    static constexpr DType value = dt; \
  };
OF_FOR_EACH_DTYPE(OF_DEFINE_DTYPE_OF)
#undef OF_DEFINE_DTYPE_OF

// A type carried as a value: DispatchDType passes TypeTag<T>{} to its callback.
template <typename T>
struct TypeTag {
  using type = T;
};

// Calls fn(TypeTag<T>{}) with the C++ type T of `dtype` and returns its result:
//   DispatchDType(dtype, [&](auto tag) { using T = typename decltype(tag)::type; ... });
template <typename Fn>
decltype(auto) DispatchDType(DType dtype, Fn&& fn) {
  switch (dtype) {
#define OF_DISPATCH_CASE(cpp, dt) \
  case dt:                        \
    return fn(TypeTag<cpp>{});
    OF_FOR_EACH_DTYPE(OF_DISPATCH_CASE)
#undef OF_DISPATCH_CASE
  }
  return fn(TypeTag<float>{});  // unreachable: every enumerator has a case
}

// Bytes per element.
int64_t ItemSize(DType dtype);
// The canonical name without prefix: "float32", "int64", "bool", ...
const char* DTypeName(DType dtype);
bool IsFloatingPoint(DType dtype);
// True for the signed integer and floating point types.
bool IsSigned(DType dtype);
// PyTorch's legacy scalar-type name ("Float", "Long", "Half", ...), which its
// error messages use and ours mirror.
const char* LegacyTypeName(DType dtype);
// Parses a canonical name or a PyTorch alias ("float", "double", "half",
// "long", "int", "short", "byte", "char").
std::optional<DType> DTypeFromName(std::string_view name);

}  // namespace oneflow

#endif  // CORE_RUNTIME_DTYPE_H_
