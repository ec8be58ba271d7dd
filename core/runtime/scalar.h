#ifndef CORE_RUNTIME_SCALAR_H_
#define CORE_RUNTIME_SCALAR_H_

#include <cstdint>
#include <type_traits>

namespace oneflow {

// A Python number crossing into C++: bool, int (exact int64) or float (double).
struct Scalar {
  enum class Kind : int8_t { kBool, kInt, kFloat };
  Kind kind = Kind::kInt;
  bool b = false;
  int64_t i = 0;
  double d = 0.0;

  static Scalar Bool(bool v) { return {Kind::kBool, v, v, static_cast<double>(v)}; }
  static Scalar Int(int64_t v) { return {Kind::kInt, v != 0, v, static_cast<double>(v)}; }
  static Scalar Float(double v) { return {Kind::kFloat, v != 0.0, static_cast<int64_t>(v), v}; }

  template <typename T>
  T To() const {
    if constexpr (std::is_same_v<T, bool>) {
      return b;
    } else if (kind == Kind::kFloat) {
      return static_cast<T>(d);
    } else {
      return static_cast<T>(i);
    }
  }
};

}  // namespace oneflow

#endif  // CORE_RUNTIME_SCALAR_H_
