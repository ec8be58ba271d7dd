// CPU kernels of the elementwise ops declared in ops/defs/elementwise.cc.

#include <cmath>
#include <cstdlib>
#include <limits>

#include "ops/cpu/loops.h"
#include "ops/cpu/math.h"
#include "ops/defs/common.h"

namespace oneflow {
namespace cpu {
namespace {

constexpr DeviceType kCPU = DeviceType::kCPU;

// ---- unary ----------------------------------------------------------------

#define OF_CPU_UNARY(name, dispatch, dtypes, expr)                                 \
  void name##Kernel(OpCall& c) {                                                   \
    dispatch(c.compute_dtype, #name, [&](auto tag) {                               \
      using T = typename decltype(tag)::type;                                      \
      using A = AccT<T>;                                                           \
      UnaryLoop<T, T>(*c.tensor(0), *c.outputs[0], [](A x) -> A { return expr; }); \
    });                                                                            \
  }                                                                                \
  OF_KERNEL_WITH_INPLACE(#name, kCPU, dtypes, &name##Kernel)

#define OF_CPU_UNARY_FLOAT(name, expr) OF_CPU_UNARY(name, DispatchFloating, kFloatingDTypes, expr)
#define OF_CPU_UNARY_NUMERIC(name, expr) OF_CPU_UNARY(name, DispatchNumeric, kNumericDTypes, expr)

template <typename A>
A Sign(A x) {
  // NaN compares false both ways: sign(nan) is 0, as in PyTorch.
  return static_cast<A>((A(0) < x) - (x < A(0)));
}

template <typename A>
A Relu(A x) {
  // NaN compares false, so it passes through (as in PyTorch); branch-free, so it vectorizes.
  return x < A(0) ? A(0) : x;
}

template <typename A>
A Abs(A x) {
  if constexpr (std::is_unsigned_v<A>) {
    return x;
  } else {
    return x < A(0) ? static_cast<A>(-x) : x;
  }
}

template <typename A>
A Rounded(A x, A (*f)(A)) {
  if constexpr (std::is_floating_point_v<A>) {
    return f(x);
  } else {
    return x;
  }
}

OF_CPU_UNARY_NUMERIC(abs, std::isnan(static_cast<double>(x)) ? x : Abs(x));
OF_CPU_UNARY_NUMERIC(neg, static_cast<A>(-x));
OF_CPU_UNARY_FLOAT(exp, std::exp(x));
OF_CPU_UNARY_FLOAT(expm1, std::expm1(x));
OF_CPU_UNARY_FLOAT(log, std::log(x));
OF_CPU_UNARY_FLOAT(log1p, std::log1p(x));
OF_CPU_UNARY_FLOAT(log2, std::log2(x));
OF_CPU_UNARY_FLOAT(log10, std::log10(x));
OF_CPU_UNARY_FLOAT(sqrt, std::sqrt(x));
OF_CPU_UNARY_FLOAT(rsqrt, A(1) / std::sqrt(x));
OF_CPU_UNARY_FLOAT(reciprocal, A(1) / x);
OF_CPU_UNARY_NUMERIC(square, static_cast<A>(x* x));
OF_CPU_UNARY_FLOAT(sin, std::sin(x));
OF_CPU_UNARY_FLOAT(cos, std::cos(x));
OF_CPU_UNARY_FLOAT(tan, std::tan(x));
OF_CPU_UNARY_FLOAT(asin, std::asin(x));
OF_CPU_UNARY_FLOAT(acos, std::acos(x));
OF_CPU_UNARY_FLOAT(atan, std::atan(x));
OF_CPU_UNARY_FLOAT(sinh, std::sinh(x));
OF_CPU_UNARY_FLOAT(cosh, std::cosh(x));
OF_CPU_UNARY_FLOAT(tanh, std::tanh(x));
OF_CPU_UNARY_FLOAT(asinh, std::asinh(x));
OF_CPU_UNARY_FLOAT(acosh, std::acosh(x));
OF_CPU_UNARY_FLOAT(atanh, std::atanh(x));
OF_CPU_UNARY_FLOAT(sigmoid, A(1) / (A(1) + std::exp(-x)));
OF_CPU_UNARY_NUMERIC(relu, Relu(x));
OF_CPU_UNARY_FLOAT(erf, std::erf(x));
OF_CPU_UNARY_FLOAT(erfc, std::erfc(x));
OF_CPU_UNARY_FLOAT(erfinv, static_cast<A>(Erfinv(x)));
OF_CPU_UNARY_FLOAT(lgamma, std::lgamma(x));
OF_CPU_UNARY_NUMERIC(floor, Rounded<A>(x, [](A v) -> A { return std::floor(v); }));
OF_CPU_UNARY_NUMERIC(ceil, Rounded<A>(x, [](A v) -> A { return std::ceil(v); }));
OF_CPU_UNARY_NUMERIC(round, Rounded<A>(x, [](A v) -> A { return std::nearbyint(v); }));
OF_CPU_UNARY_NUMERIC(trunc, Rounded<A>(x, [](A v) -> A { return std::trunc(v); }));
OF_CPU_UNARY_NUMERIC(sign, Sign(x));

void DigammaKernel(OpCall& c) {
  DispatchFloating(c.compute_dtype, "digamma", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = AccT<T>;
    UnaryLoop<T, T>(*c.tensor(0), *c.outputs[0],
                    [](A x) -> A { return static_cast<A>(Digamma(static_cast<double>(x))); });
  });
}
OF_KERNEL("digamma", kCPU, kFloatingDTypes, &DigammaKernel);

#define OF_CPU_PREDICATE(name, expr)                                    \
  void name##Kernel(OpCall& c) {                                        \
    DispatchAll(c.compute_dtype, #name, [&](auto tag) {                 \
      using T = typename decltype(tag)::type;                           \
      using A = AccT<T>;                                                \
      UnaryLoop<T, bool>(*c.tensor(0), *c.outputs[0], [](A x) -> bool { \
        if constexpr (std::is_floating_point_v<A>) {                    \
          return expr;                                                  \
        } else {                                                        \
          return name##_int;                                            \
        }                                                               \
      });                                                               \
    });                                                                 \
  }                                                                     \
  OF_KERNEL(#name, kCPU, kAllDTypes, &name##Kernel)

constexpr bool isnan_int = false;
constexpr bool isinf_int = false;
constexpr bool isfinite_int = true;
OF_CPU_PREDICATE(isnan, std::isnan(x));
OF_CPU_PREDICATE(isinf, std::isinf(x));
OF_CPU_PREDICATE(isfinite, std::isfinite(x));

void LogicalNotKernel(OpCall& c) {
  DispatchAll(c.compute_dtype, "logical_not", [&](auto tag) {
    using T = typename decltype(tag)::type;
    UnaryLoop<T, bool>(*c.tensor(0), *c.outputs[0], [](AccT<T> x) -> bool { return !(x != 0); });
  });
}
OF_KERNEL("logical_not", kCPU, kAllDTypes, &LogicalNotKernel);

void BitwiseNotKernel(OpCall& c) {
  DispatchIntegral(
      c.compute_dtype, "bitwise_not",
      [&](auto tag) {
        using T = typename decltype(tag)::type;
        UnaryLoop<T, T>(*c.tensor(0), *c.outputs[0], [](T x) -> T {
          if constexpr (std::is_same_v<T, bool>) {
            return !x;
          } else {
            return static_cast<T>(~x);
          }
        });
      },
      /*with_bool=*/true);
}
OF_KERNEL_WITH_INPLACE("bitwise_not", kCPU, kIntegralDTypes | DTypeBit(DType::kBool),
                       &BitwiseNotKernel);

// ---- binary ---------------------------------------------------------------

template <typename A>
void CheckNonZeroDivisor(const TensorImpl& b, const char* op) {
  if constexpr (std::is_integral_v<A>) {
    bool zero = false;
    UnaryLoop<A, A>(b, *TensorImpl::Empty(b.shape(), b.dtype(), b.device()), [&](A v) -> A {
      zero = zero || v == 0;
      return v;
    });
    OF_CHECK(!zero, RuntimeError, op, "(): ZeroDivisionError (integer division by zero)");
  }
}

#define OF_CPU_BINARY(name, dispatch, dtypes, out_type, expr)            \
  void name##Kernel(OpCall& c) {                                         \
    dispatch(c.compute_dtype, #name, [&](auto tag) {                     \
      using T = typename decltype(tag)::type;                            \
      using A = AccT<T>;                                                 \
      BinaryLoop<T, out_type>(*c.tensor(0), *c.tensor(1), *c.outputs[0], \
                              [&](A a, A b) { return expr; });           \
    });                                                                  \
  }

void AddKernel(OpCall& c) {
  DispatchAll(c.compute_dtype, "add", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = AccT<T>;
    if constexpr (std::is_same_v<T, bool>) {
      BinaryLoop<T, T>(*c.tensor(0), *c.tensor(1), *c.outputs[0], [](A a, A b) { return a || b; });
    } else {
      const A alpha = c.args[2].scalar().template To<A>();
      if (alpha == A(1)) {
        BinaryLoop<T, T>(*c.tensor(0), *c.tensor(1), *c.outputs[0],
                         [](A a, A b) { return static_cast<A>(a + b); });
      } else {
        BinaryLoop<T, T>(*c.tensor(0), *c.tensor(1), *c.outputs[0],
                         [alpha](A a, A b) { return static_cast<A>(a + alpha * b); });
      }
    }
  });
}
OF_KERNEL_WITH_INPLACE("add", kCPU, kAllDTypes, &AddKernel);

void SubKernel(OpCall& c) {
  OF_CHECK(c.compute_dtype != DType::kBool, RuntimeError,
           "sub(): bool tensors cannot be subtracted; use logical_xor (or ^) for bools");
  DispatchNumeric(c.compute_dtype, "sub", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = AccT<T>;
    const A alpha = c.args[2].scalar().template To<A>();
    BinaryLoop<T, T>(*c.tensor(0), *c.tensor(1), *c.outputs[0],
                     [alpha](A a, A b) { return static_cast<A>(a - alpha * b); });
  });
}
OF_KERNEL_WITH_INPLACE("sub", kCPU, kAllDTypes, &SubKernel);

void MulKernel(OpCall& c) {
  DispatchAll(c.compute_dtype, "mul", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = AccT<T>;
    if constexpr (std::is_same_v<T, bool>) {
      BinaryLoop<T, T>(*c.tensor(0), *c.tensor(1), *c.outputs[0], [](A a, A b) { return a && b; });
    } else {
      BinaryLoop<T, T>(*c.tensor(0), *c.tensor(1), *c.outputs[0],
                       [](A a, A b) { return static_cast<A>(a * b); });
    }
  });
}
OF_KERNEL_WITH_INPLACE("mul", kCPU, kAllDTypes, &MulKernel);

template <typename A>
A FloorDiv(A a, A b) {
  if constexpr (std::is_floating_point_v<A>) {
    if (b == 0) return a / b;
    A q = std::floor(a / b);
    // Python's a // b: matches the remainder's sign rule.
    A m = std::fmod(a, b);
    A d = (a - m) / b;
    if (m != 0 && ((b < 0) != (m < 0))) d -= 1;
    return std::isfinite(d) ? d : q;
  } else if constexpr (std::is_signed_v<A>) {
    A q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
  } else {
    return a / b;
  }
}

void DivKernel(OpCall& c) {
  const bool has_mode = !c.args[2].is_none();
  const std::string mode = has_mode ? c.args[2].str() : "";
  DispatchNumeric(c.compute_dtype, "div", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = AccT<T>;
    if (has_mode) CheckNonZeroDivisor<A>(*c.tensor(1), "div");
    if (!has_mode) {
      BinaryLoop<T, T>(*c.tensor(0), *c.tensor(1), *c.outputs[0], [](A a, A b) { return a / b; });
    } else if (mode == "trunc") {
      BinaryLoop<T, T>(*c.tensor(0), *c.tensor(1), *c.outputs[0], [](A a, A b) -> A {
        if constexpr (std::is_floating_point_v<A>) {
          return std::trunc(a / b);
        } else {
          return static_cast<A>(a / b);
        }
      });
    } else {
      BinaryLoop<T, T>(*c.tensor(0), *c.tensor(1), *c.outputs[0],
                       [](A a, A b) { return FloorDiv(a, b); });
    }
  });
}
OF_KERNEL_WITH_INPLACE("div", kCPU, kNumericDTypes, &DivKernel);

void FloorDivideKernel(OpCall& c) {
  DispatchNumeric(c.compute_dtype, "floor_divide", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = AccT<T>;
    CheckNonZeroDivisor<A>(*c.tensor(1), "floor_divide");
    BinaryLoop<T, T>(*c.tensor(0), *c.tensor(1), *c.outputs[0],
                     [](A a, A b) { return FloorDiv(a, b); });
  });
}
OF_KERNEL_WITH_INPLACE("floor_divide", kCPU, kNumericDTypes, &FloorDivideKernel);

void FmodKernel(OpCall& c) {
  DispatchNumeric(c.compute_dtype, "fmod", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = AccT<T>;
    CheckNonZeroDivisor<A>(*c.tensor(1), "fmod");
    BinaryLoop<T, T>(*c.tensor(0), *c.tensor(1), *c.outputs[0], [](A a, A b) -> A {
      if constexpr (std::is_floating_point_v<A>) {
        return std::fmod(a, b);
      } else {
        return static_cast<A>(a % b);
      }
    });
  });
}
OF_KERNEL_WITH_INPLACE("fmod", kCPU, kNumericDTypes, &FmodKernel);

void RemainderKernel(OpCall& c) {
  DispatchNumeric(c.compute_dtype, "remainder", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = AccT<T>;
    CheckNonZeroDivisor<A>(*c.tensor(1), "remainder");
    BinaryLoop<T, T>(*c.tensor(0), *c.tensor(1), *c.outputs[0], [](A a, A b) -> A {
      if constexpr (std::is_floating_point_v<A>) {
        A m = std::fmod(a, b);
        if (m != 0 && ((b < 0) != (m < 0))) m += b;
        return m;
      } else if constexpr (std::is_signed_v<A>) {
        A m = static_cast<A>(a % b);
        if (m != 0 && ((b < 0) != (m < 0))) m = static_cast<A>(m + b);
        return m;
      } else {
        return static_cast<A>(a % b);
      }
    });
  });
}
OF_KERNEL_WITH_INPLACE("remainder", kCPU, kNumericDTypes, &RemainderKernel);

template <typename A>
A IntPow(A base, A exp) {
  OF_CHECK(exp >= 0 || !std::is_signed_v<A>, RuntimeError,
           "Integers to negative integer powers are not allowed.");
  A result = 1;
  while (exp > 0) {
    if (exp & 1) result = static_cast<A>(result * base);
    base = static_cast<A>(base * base);
    exp = static_cast<A>(exp >> 1);
  }
  return result;
}

void PowKernel(OpCall& c) {
  DispatchNumeric(c.compute_dtype, "pow", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = AccT<T>;
    BinaryLoop<T, T>(*c.tensor(0), *c.tensor(1), *c.outputs[0], [](A a, A b) -> A {
      if constexpr (std::is_floating_point_v<A>) {
        return std::pow(a, b);
      } else {
        return IntPow(a, b);
      }
    });
  });
}
OF_KERNEL_WITH_INPLACE("pow", kCPU, kNumericDTypes, &PowKernel);

OF_CPU_BINARY(atan2, DispatchFloating, kFloatingDTypes, T, std::atan2(a, b))
OF_KERNEL_WITH_INPLACE("atan2", kCPU, kFloatingDTypes, &atan2Kernel);

template <typename A>
A MaxPropagateNan(A a, A b, bool want_max) {
  if constexpr (std::is_floating_point_v<A>) {
    if (std::isnan(a)) return a;
    if (std::isnan(b)) return b;
  }
  return want_max ? (a > b ? a : b) : (a < b ? a : b);
}
OF_CPU_BINARY(maximum, DispatchAll, kAllDTypes, T, MaxPropagateNan(a, b, true))
OF_KERNEL("maximum", kCPU, kAllDTypes, &maximumKernel);
OF_CPU_BINARY(minimum, DispatchAll, kAllDTypes, T, MaxPropagateNan(a, b, false))
OF_KERNEL("minimum", kCPU, kAllDTypes, &minimumKernel);

template <typename A>
A LogAddExp(A a, A b) {
  if (std::isinf(a) && a == b) return a;
  A m = a > b ? a : b;
  return m + std::log1p(std::exp(-std::abs(a - b)));
}
OF_CPU_BINARY(logaddexp, DispatchFloating, kFloatingDTypes, T, LogAddExp(a, b))
OF_KERNEL("logaddexp", kCPU, kFloatingDTypes, &logaddexpKernel);

#define OF_CPU_COMPARE(name, expr)                         \
  OF_CPU_BINARY(name, DispatchAll, kAllDTypes, bool, expr) \
  OF_KERNEL(#name, kCPU, kAllDTypes, &name##Kernel)
OF_CPU_COMPARE(eq, a == b);
OF_CPU_COMPARE(ne, a != b);
OF_CPU_COMPARE(lt, a < b);
OF_CPU_COMPARE(le, a <= b);
OF_CPU_COMPARE(gt, a > b);
OF_CPU_COMPARE(ge, a >= b);
OF_CPU_COMPARE(logical_and, (a != 0) && (b != 0));
OF_CPU_COMPARE(logical_or, (a != 0) || (b != 0));
OF_CPU_COMPARE(logical_xor, (a != 0) != (b != 0));

#define OF_CPU_BITWISE(name, op)                                             \
  void name##Kernel(OpCall& c) {                                             \
    DispatchIntegral(                                                        \
        c.compute_dtype, #name,                                              \
        [&](auto tag) {                                                      \
          using T = typename decltype(tag)::type;                            \
          BinaryLoop<T, T>(*c.tensor(0), *c.tensor(1), *c.outputs[0],        \
                           [](T a, T b) { return static_cast<T>(a op b); }); \
        },                                                                   \
        true);                                                               \
  }                                                                          \
  OF_KERNEL_WITH_INPLACE(#name, kCPU, kIntegralDTypes | DTypeBit(DType::kBool), &name##Kernel)
OF_CPU_BITWISE(bitwise_and, &);
OF_CPU_BITWISE(bitwise_or, |);
OF_CPU_BITWISE(bitwise_xor, ^);

}  // namespace
}  // namespace cpu
}  // namespace oneflow

namespace oneflow {
namespace cpu {
namespace {

void WhereKernel(OpCall& c) {
  DispatchAll(c.compute_dtype, "where", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = AccT<T>;
    TernaryLoop<T, T, bool>(*c.tensor(0), *c.tensor(1), *c.tensor(2), *c.outputs[0],
                            [](bool cond, A a, A b) { return cond ? a : b; });
  });
}
OF_KERNEL("where", DeviceType::kCPU, kAllDTypes, &WhereKernel);

}  // namespace
}  // namespace cpu
}  // namespace oneflow
