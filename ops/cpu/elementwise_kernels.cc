// CPU kernels of the elementwise ops declared in ops/defs/elementwise.cc.
//
// Most ops are scalar expressions run by the loops of loops.h. The float32
// transcendentals (exp, expm1, log, log1p, tanh, sigmoid, sqrt, rsqrt) run
// instead on GCC float vectors with the formulas of vec_math.inc; other dtypes
// use libm. The vector loops are compiled once per instruction set
// (isa_regions.inc), and the one for KernelIsa() runs.

#ifndef OF_ISA

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/runtime/tensor_ops.h"
#include "ops/cpu/isa.h"
#include "ops/cpu/loops.h"
#include "ops/cpu/math.h"
#include "ops/cpu/vec_types.h"
#include "ops/defs/common.h"

// GCC notes the ABI of vector-returning lambdas compiled outside a target
// region (their function-pointer thunks); they are only ever inlined.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace oneflow {
namespace cpu {
namespace {

// The unary ops with float vector formulas.
enum class VecUnary { kExp, kExpm1, kLog, kLog1p, kTanh, kSigmoid, kSqrt, kRsqrt };

}  // namespace
}  // namespace cpu
}  // namespace oneflow

// ---- the per-instruction-set copies of the vector loops ---------------------

#define OF_ISA_FILE "ops/cpu/elementwise_kernels.cc"
#include "ops/cpu/isa_regions.inc"  // NOLINT(build/include)
#undef OF_ISA_FILE

namespace oneflow {
namespace cpu {
namespace {

constexpr DeviceType kCPU = DeviceType::kCPU;

// The operands of the generic kernels below: self of the unary ops, self and
// other of the binary ones (the same indices in all of them).
constexpr ArgRef<TensorImplPtr> kSelf = arg::abs::self;
constexpr ArgRef<TensorImplPtr> kOther = arg::add::other;

// out = f(in) over n floats with the copy for the picked instruction set.
void MapVecUnary(VecUnary op, int64_t n, float* out, const float* in) {
  OF_ISA_SWITCH(MapVecUnary(op, n, out, in));
}

// Whether t's elements fill numel() consecutive places from data() (its
// strides are a permutation of a contiguous tensor's).
bool IsDense(const TensorImpl& t) {
  std::vector<std::pair<int64_t, int64_t>> dims;  // (stride, size)
  for (int64_t d = 0; d < t.ndim(); ++d) {
    if (t.shape()[d] != 1) dims.push_back({t.stride()[d], t.shape()[d]});
  }
  std::sort(dims.begin(), dims.end());
  int64_t span = 1;
  for (const auto& [stride, size] : dims) {
    if (stride != span) return false;
    span *= size;
  }
  return true;
}

// Runs `op` on a float32 call over memory: a dense output (contiguous or
// permuted, as the output of a permuted input is) is computed in its own
// memory order, from the input directly when the input has the same layout,
// else from a copy of the input into the output first. Any other output (an
// in-place op on a strided slice) is computed aside and copied in.
void RunVecUnary(OpCall& c, VecUnary op) {
  const TensorImplPtr& out = c.outputs[0];
  TensorImplPtr x = c.tensor(kSelf);
  const int64_t n = out->numel();
  if (n == 0) return;
  TensorImplPtr dst =
      IsDense(*out) ? out : TensorImpl::Empty(out->shape(), out->dtype(), out->device());
  if (!(x->stride() == dst->stride() && IsDense(*x))) {
    UnaryLoop<float, float>(*x, *dst, [](float v) { return v; });
    x = dst;
  }
  const float* in = reinterpret_cast<const float*>(x->data());
  float* o = reinterpret_cast<float*>(dst->data());
  // Elements per thread chunk: the formulas cost tens of flops per element.
  ParallelFor(n, 16384, [&](int64_t b, int64_t e) { MapVecUnary(op, e - b, o + b, in + b); });
  if (dst != out) CopyInto(dst, out);
}

// Whether a call can take the vector path: float32 in and out, same shapes.
bool VecUnaryApplies(const OpCall& c) {
  return c.compute_dtype == DType::kFloat32 && c.tensor(kSelf)->dtype() == DType::kFloat32 &&
         c.outputs[0]->dtype() == DType::kFloat32 &&
         c.tensor(kSelf)->shape() == c.outputs[0]->shape();
}

// ---- unary ----------------------------------------------------------------

#define OF_CPU_UNARY(name, dispatch, dtypes, expr)                                     \
  void name##Kernel(OpCall& c) {                                                       \
    dispatch(c.compute_dtype, #name, [&](auto tag) {                                   \
      using T = typename decltype(tag)::type;                                          \
      using A = AccT<T>;                                                               \
      UnaryLoop<T, T>(*c.tensor(kSelf), *c.outputs[0], [](A x) -> A { return expr; }); \
    });                                                                                \
  }                                                                                    \
  OF_KERNEL_WITH_INPLACE(#name, kCPU, dtypes, &name##Kernel)

// A floating op with a float vector formula `op` for float32.
#define OF_CPU_UNARY_VEC(name, op, expr)                                               \
  void name##Kernel(OpCall& c) {                                                       \
    if (VecUnaryApplies(c)) return RunVecUnary(c, op);                                 \
    DispatchFloating(c.compute_dtype, #name, [&](auto tag) {                           \
      using T = typename decltype(tag)::type;                                          \
      using A = AccT<T>;                                                               \
      UnaryLoop<T, T>(*c.tensor(kSelf), *c.outputs[0], [](A x) -> A { return expr; }); \
    });                                                                                \
  }                                                                                    \
  OF_KERNEL_WITH_INPLACE(#name, kCPU, kFloatingDTypes, &name##Kernel)

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
OF_CPU_UNARY_VEC(exp, VecUnary::kExp, std::exp(x));
OF_CPU_UNARY_VEC(expm1, VecUnary::kExpm1, std::expm1(x));
OF_CPU_UNARY_VEC(log, VecUnary::kLog, std::log(x));
OF_CPU_UNARY_VEC(log1p, VecUnary::kLog1p, std::log1p(x));
OF_CPU_UNARY_FLOAT(log2, std::log2(x));
OF_CPU_UNARY_FLOAT(log10, std::log10(x));
OF_CPU_UNARY_VEC(sqrt, VecUnary::kSqrt, std::sqrt(x));
OF_CPU_UNARY_VEC(rsqrt, VecUnary::kRsqrt, A(1) / std::sqrt(x));
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
OF_CPU_UNARY_VEC(tanh, VecUnary::kTanh, std::tanh(x));
OF_CPU_UNARY_FLOAT(asinh, std::asinh(x));
OF_CPU_UNARY_FLOAT(acosh, std::acosh(x));
OF_CPU_UNARY_FLOAT(atanh, std::atanh(x));
OF_CPU_UNARY_VEC(sigmoid, VecUnary::kSigmoid, A(1) / (A(1) + std::exp(-x)));
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
    UnaryLoop<T, T>(*c.tensor(arg::digamma::self), *c.outputs[0],
                    [](A x) -> A { return static_cast<A>(Digamma(static_cast<double>(x))); });
  });
}
OF_KERNEL("digamma", kCPU, kFloatingDTypes, &DigammaKernel);

#define OF_CPU_PREDICATE(name, expr)                                        \
  void name##Kernel(OpCall& c) {                                            \
    DispatchAll(c.compute_dtype, #name, [&](auto tag) {                     \
      using T = typename decltype(tag)::type;                               \
      using A = AccT<T>;                                                    \
      UnaryLoop<T, bool>(*c.tensor(kSelf), *c.outputs[0], [](A x) -> bool { \
        if constexpr (std::is_floating_point_v<A>) {                        \
          return expr;                                                      \
        } else {                                                            \
          return name##_int;                                                \
        }                                                                   \
      });                                                                   \
    });                                                                     \
  }                                                                         \
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
    UnaryLoop<T, bool>(*c.tensor(arg::logical_not::self), *c.outputs[0],
                       [](AccT<T> x) -> bool { return !(x != 0); });
  });
}
OF_KERNEL("logical_not", kCPU, kAllDTypes, &LogicalNotKernel);

void BitwiseNotKernel(OpCall& c) {
  DispatchIntegral(
      c.compute_dtype, "bitwise_not",
      [&](auto tag) {
        using T = typename decltype(tag)::type;
        UnaryLoop<T, T>(*c.tensor(arg::bitwise_not::self), *c.outputs[0], [](T x) -> T {
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

#define OF_CPU_BINARY(name, dispatch, dtypes, out_type, expr)                     \
  void name##Kernel(OpCall& c) {                                                  \
    dispatch(c.compute_dtype, #name, [&](auto tag) {                              \
      using T = typename decltype(tag)::type;                                     \
      using A = AccT<T>;                                                          \
      BinaryLoop<T, out_type>(*c.tensor(kSelf), *c.tensor(kOther), *c.outputs[0], \
                              [&](A a, A b) { return expr; });                    \
    });                                                                           \
  }

void AddKernel(OpCall& c) {
  DispatchAll(c.compute_dtype, "add", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = AccT<T>;
    if constexpr (std::is_same_v<T, bool>) {
      BinaryLoop<T, T>(*c.tensor(arg::add::self), *c.tensor(arg::add::other), *c.outputs[0],
                       [](A a, A b) { return a || b; });
    } else {
      const A alpha = c.get(arg::add::alpha).template To<A>();
      if (alpha == A(1)) {
        BinaryLoop<T, T>(*c.tensor(arg::add::self), *c.tensor(arg::add::other), *c.outputs[0],
                         [](A a, A b) { return static_cast<A>(a + b); });
      } else {
        BinaryLoop<T, T>(*c.tensor(arg::add::self), *c.tensor(arg::add::other), *c.outputs[0],
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
    const A alpha = c.get(arg::sub::alpha).template To<A>();
    BinaryLoop<T, T>(*c.tensor(arg::sub::self), *c.tensor(arg::sub::other), *c.outputs[0],
                     [alpha](A a, A b) { return static_cast<A>(a - alpha * b); });
  });
}
OF_KERNEL_WITH_INPLACE("sub", kCPU, kAllDTypes, &SubKernel);

void MulKernel(OpCall& c) {
  DispatchAll(c.compute_dtype, "mul", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = AccT<T>;
    if constexpr (std::is_same_v<T, bool>) {
      BinaryLoop<T, T>(*c.tensor(arg::mul::self), *c.tensor(arg::mul::other), *c.outputs[0],
                       [](A a, A b) { return a && b; });
    } else {
      BinaryLoop<T, T>(*c.tensor(arg::mul::self), *c.tensor(arg::mul::other), *c.outputs[0],
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
  const std::optional<std::string> rounding_mode = c.get(arg::div::rounding_mode);
  const bool has_mode = rounding_mode.has_value();
  const std::string mode = has_mode ? *rounding_mode : "";
  DispatchNumeric(c.compute_dtype, "div", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = AccT<T>;
    if (has_mode) CheckNonZeroDivisor<A>(*c.tensor(arg::div::other), "div");
    if (!has_mode) {
      BinaryLoop<T, T>(*c.tensor(arg::div::self), *c.tensor(arg::div::other), *c.outputs[0],
                       [](A a, A b) { return a / b; });
    } else if (mode == "trunc") {
      BinaryLoop<T, T>(*c.tensor(arg::div::self), *c.tensor(arg::div::other), *c.outputs[0],
                       [](A a, A b) -> A {
                         if constexpr (std::is_floating_point_v<A>) {
                           return std::trunc(a / b);
                         } else {
                           return static_cast<A>(a / b);
                         }
                       });
    } else {
      BinaryLoop<T, T>(*c.tensor(arg::div::self), *c.tensor(arg::div::other), *c.outputs[0],
                       [](A a, A b) { return FloorDiv(a, b); });
    }
  });
}
OF_KERNEL_WITH_INPLACE("div", kCPU, kNumericDTypes, &DivKernel);

void FloorDivideKernel(OpCall& c) {
  DispatchNumeric(c.compute_dtype, "floor_divide", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = AccT<T>;
    CheckNonZeroDivisor<A>(*c.tensor(arg::floor_divide::other), "floor_divide");
    BinaryLoop<T, T>(*c.tensor(arg::floor_divide::self), *c.tensor(arg::floor_divide::other),
                     *c.outputs[0], [](A a, A b) { return FloorDiv(a, b); });
  });
}
OF_KERNEL_WITH_INPLACE("floor_divide", kCPU, kNumericDTypes, &FloorDivideKernel);

void FmodKernel(OpCall& c) {
  DispatchNumeric(c.compute_dtype, "fmod", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = AccT<T>;
    CheckNonZeroDivisor<A>(*c.tensor(arg::fmod::other), "fmod");
    BinaryLoop<T, T>(*c.tensor(arg::fmod::self), *c.tensor(arg::fmod::other), *c.outputs[0],
                     [](A a, A b) -> A {
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
    CheckNonZeroDivisor<A>(*c.tensor(arg::remainder::other), "remainder");
    BinaryLoop<T, T>(*c.tensor(arg::remainder::self), *c.tensor(arg::remainder::other),
                     *c.outputs[0], [](A a, A b) -> A {
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
  if constexpr (std::is_signed_v<A>) {
    OF_CHECK(exp >= 0, RuntimeError, "Integers to negative integer powers are not allowed.");
  }
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
    BinaryLoop<T, T>(*c.tensor(arg::pow::self), *c.tensor(arg::pow::exponent), *c.outputs[0],
                     [](A a, A b) -> A {
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
OF_CPU_BINARY(hypot, DispatchFloating, kFloatingDTypes, T, std::hypot(a, b))
OF_KERNEL_WITH_INPLACE("hypot", kCPU, kFloatingDTypes, &hypotKernel);

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

#define OF_CPU_BITWISE(name, op)                                               \
  void name##Kernel(OpCall& c) {                                               \
    DispatchIntegral(                                                          \
        c.compute_dtype, #name,                                                \
        [&](auto tag) {                                                        \
          using T = typename decltype(tag)::type;                              \
          BinaryLoop<T, T>(*c.tensor(kSelf), *c.tensor(kOther), *c.outputs[0], \
                           [](T a, T b) { return static_cast<T>(a op b); });   \
        },                                                                     \
        true);                                                                 \
  }                                                                            \
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

// cond ? a : b on the bits, without a branch: masks of random signs (relu's
// gradient) would mispredict half the time, and the select vectorizes.
template <typename A>
inline A Select(bool cond, A a, A b) {
  using U = std::conditional_t<
      sizeof(A) == 1, uint8_t,
      std::conditional_t<sizeof(A) == 2, uint16_t,
                         std::conditional_t<sizeof(A) == 4, uint32_t, uint64_t>>>;
  static_assert(sizeof(A) == sizeof(U), "where: no select for this type");
  U ua, ub;
  std::memcpy(&ua, static_cast<const void*>(&a), sizeof(A));
  std::memcpy(&ub, static_cast<const void*>(&b), sizeof(A));
  const U mask = static_cast<U>(U(0) - static_cast<U>(cond));
  const U r = static_cast<U>((ua & mask) | (ub & static_cast<U>(~mask)));
  A out;
  std::memcpy(static_cast<void*>(&out), &r, sizeof(A));
  return out;
}

void WhereKernel(OpCall& c) {
  DispatchAll(c.compute_dtype, "where", [&](auto tag) {
    using T = typename decltype(tag)::type;
    TernaryLoop<T, T, bool>(*c.tensor(arg::where::condition), *c.tensor(arg::where::self),
                            *c.tensor(arg::where::other), *c.outputs[0],
                            [](bool cond, T a, T b) { return Select<T>(cond, a, b); });
  });
}
OF_KERNEL("where", DeviceType::kCPU, kAllDTypes, &WhereKernel);

}  // namespace
}  // namespace cpu
}  // namespace oneflow

#else  // OF_ISA: one instruction set's vector loops ------------------------------

namespace oneflow {
namespace cpu {
namespace {
namespace OF_ISA {

using V = OF_ISA_VEC;

#include "ops/cpu/vec_math.inc"  // NOLINT(build/include)

void MapVecUnary(VecUnary op, int64_t n, float* out, const float* in) {
  switch (op) {
    case VecUnary::kExp:
      return MapV<V>([](const V& x) OF_INLINE_LAMBDA { return VExp(x); }, n, out, in);
    case VecUnary::kExpm1:
      return MapV<V>([](const V& x) OF_INLINE_LAMBDA { return VExpm1(x); }, n, out, in);
    case VecUnary::kLog:
      return MapV<V>([](const V& x) OF_INLINE_LAMBDA { return VLog(x); }, n, out, in);
    case VecUnary::kLog1p:
      return MapV<V>([](const V& x) OF_INLINE_LAMBDA { return VLog1p(x); }, n, out, in);
    case VecUnary::kTanh:
      return MapV<V>([](const V& x) OF_INLINE_LAMBDA { return VTanh(x); }, n, out, in);
    case VecUnary::kSigmoid:
      return MapV<V>([](const V& x) OF_INLINE_LAMBDA { return VSigmoid(x); }, n, out, in);
    case VecUnary::kSqrt:
      return MapV<V>([](const V& x) OF_INLINE_LAMBDA { return VSqrt(x); }, n, out, in);
    case VecUnary::kRsqrt:
      return MapV<V>([](const V& x) OF_INLINE_LAMBDA { return 1.f / VSqrt(x); }, n, out, in);
  }
}

}  // namespace OF_ISA
}  // namespace
}  // namespace cpu
}  // namespace oneflow

#endif  // OF_ISA
