// Elementwise ops on CUDA: one templated launcher over strided, broadcast
// operands (numbers read on the host ride along as scalars), and a table of
// formulas by op name. Every formula runs in Acc<T> (float for 16-bit floats).

#include <cstring>

#include "ops/cuda/device_common.cuh"

namespace oneflow {
namespace cuda {
namespace {

struct Params {
  double v[4];
};

template <typename T>
__device__ __forceinline__ Acc<T> LoadOperand(const Operand& o, int64_t off) {
  if (o.is_scalar) return Convert<Acc<T>>(o.scalar);
  return Convert<Acc<T>>(static_cast<const T*>(o.data)[off]);
}

// out = f(in_1, ..., in_N): inputs of type In, output of type Out.
template <typename In, typename Out, int N, typename F>
__global__ void ElemKernel(ElemArgs a, Params p, F f) {
  Out* out = static_cast<Out*>(a.op[0].data);
  OF_GRID_STRIDE(i, a.numel) {
    const Offsets o = ComputeOffsets(a, i);
    using A = Acc<In>;
    if constexpr (N == 1) {
      out[o.o[0]] = Convert<Out>(f(LoadOperand<In>(a.op[1], o.o[1]), p));
    } else if constexpr (N == 2) {
      out[o.o[0]] =
          Convert<Out>(f(LoadOperand<In>(a.op[1], o.o[1]), LoadOperand<In>(a.op[2], o.o[2]), p));
    } else {
      const A x = LoadOperand<In>(a.op[1], o.o[1]);
      const A y = LoadOperand<In>(a.op[2], o.o[2]);
      const A z = LoadOperand<In>(a.op[3], o.o[3]);
      out[o.o[0]] = Convert<Out>(f(x, y, z, p));
    }
  }
}

// where(cond, a, b): cond of type C.
template <typename T, typename C>
__global__ void WhereKernel(ElemArgs a) {
  T* out = static_cast<T*>(a.op[0].data);
  OF_GRID_STRIDE(i, a.numel) {
    const Offsets o = ComputeOffsets(a, i);
    const bool c = a.op[1].is_scalar ? a.op[1].scalar != 0
                                     : Convert<bool>(static_cast<const C*>(a.op[1].data)[o.o[1]]);
    const Operand& src = c ? a.op[2] : a.op[3];
    const int64_t off = c ? o.o[2] : o.o[3];
    out[o.o[0]] = src.is_scalar ? Convert<T>(src.scalar) : static_cast<const T*>(src.data)[off];
  }
}

// ---- formulas ----------------------------------------------------------------

template <typename A>
__device__ __forceinline__ A Sigmoid(A x) {
  return A(1) / (A(1) + exp(-x));
}

template <typename A>
__device__ __forceinline__ A NormCdf(A x) {
  return A(0.5) * erfc(-x * A(0.70710678118654752440));
}

template <typename A>
__device__ __forceinline__ A IsNan(A x) {
  return x != x;
}

constexpr double kSqrt2OverPi = 0.79788456080286535588;
constexpr double kInvSqrt2Pi = 0.39894228040143267794;

template <typename A>
__device__ __forceinline__ A Softplus(A x, A beta, A threshold) {
  return x * beta > threshold ? x : log1p(exp(x * beta)) / beta;
}

#define OF_FORMULA1(Name, ...)                                            \
  struct Name {                                                           \
    template <typename A>                                                 \
    __device__ __forceinline__ A operator()(A x, const Params& p) const { \
      __VA_ARGS__                                                         \
    }                                                                     \
  };
#define OF_FORMULA2(Name, ...)                                                 \
  struct Name {                                                                \
    template <typename A>                                                      \
    __device__ __forceinline__ A operator()(A a, A b, const Params& p) const { \
      __VA_ARGS__                                                              \
    }                                                                          \
  };
#define OF_FORMULA3(Name, ...)                                                      \
  struct Name {                                                                     \
    template <typename A>                                                           \
    __device__ __forceinline__ A operator()(A a, A b, A c, const Params& p) const { \
      __VA_ARGS__                                                                   \
    }                                                                               \
  };

// Floating unary ops.
OF_FORMULA1(FExp, return exp(x);)
OF_FORMULA1(FExpm1, return expm1(x);)
OF_FORMULA1(FLog, return log(x);)
OF_FORMULA1(FLog1p, return log1p(x);)
OF_FORMULA1(FLog2, return log2(x);)
OF_FORMULA1(FLog10, return log10(x);)
OF_FORMULA1(FSqrt, return sqrt(x);)
OF_FORMULA1(FRsqrt, return A(1) / sqrt(x);)
OF_FORMULA1(FReciprocal, return A(1) / x;)
OF_FORMULA1(FSin, return sin(x);)
OF_FORMULA1(FCos, return cos(x);)
OF_FORMULA1(FTan, return tan(x);)
OF_FORMULA1(FAsin, return asin(x);)
OF_FORMULA1(FAcos, return acos(x);)
OF_FORMULA1(FAtan, return atan(x);)
OF_FORMULA1(FSinh, return sinh(x);)
OF_FORMULA1(FCosh, return cosh(x);)
OF_FORMULA1(FTanh, return tanh(x);)
OF_FORMULA1(FAsinh, return asinh(x);)
OF_FORMULA1(FAcosh, return acosh(x);)
OF_FORMULA1(FAtanh, return atanh(x);)
OF_FORMULA1(FSigmoid, return Sigmoid(x);)
OF_FORMULA1(FErf, return erf(x);)
OF_FORMULA1(FErfc, return erfc(x);)
OF_FORMULA1(FErfinv, return erfinv(x);)
OF_FORMULA1(FLgamma, return lgamma(x);)
// Numeric unary ops (integers too).
OF_FORMULA1(FAbs, return x < A(0) ? A(-x) : x;)
OF_FORMULA1(FNeg, return A(-x);)
OF_FORMULA1(FSquare, return A(x * x);)
OF_FORMULA1(FRelu, return IsNan(x) || x > A(0) ? x : A(0);)
OF_FORMULA1(FSign, return IsNan(x) ? x : A((x > A(0)) - (x < A(0)));)
OF_FORMULA1(FFloor, if constexpr (std::is_integral_v<A>) return x; else return floor(x);)
OF_FORMULA1(FCeil, if constexpr (std::is_integral_v<A>) return x; else return ceil(x);)
OF_FORMULA1(FRound, if constexpr (std::is_integral_v<A>) return x; else return rint(x);)
OF_FORMULA1(FTrunc, if constexpr (std::is_integral_v<A>) return x; else return trunc(x);)
// clamp: p = {min, max, has_min, has_max}; NaN passes.
OF_FORMULA1(FClamp, if (IsNan(x)) return x; A r = x;
            if (p.v[2] != 0 && r < A(p.v[0])) r = A(p.v[0]);
            if (p.v[3] != 0 && r > A(p.v[1])) r = A(p.v[1]); return r;)

// Activations, forward (p as the CPU kernels pass them).
OF_FORMULA1(AGelu, return x * NormCdf(x);)
OF_FORMULA1(AGeluTanh, const A u = A(kSqrt2OverPi) * (x + A(0.044715) * x * x * x);
            return A(0.5) * x * (A(1) + tanh(u));)
OF_FORMULA1(ASilu, return x * Sigmoid(A(p.v[0]) * x);)
OF_FORMULA1(ALeakyRelu, return x > A(0) ? x : x * A(p.v[0]);)
OF_FORMULA1(AHardtanh, if (IsNan(x)) return x;
            return x < A(p.v[0]) ? A(p.v[0]) : (x > A(p.v[1]) ? A(p.v[1]) : x);)
OF_FORMULA1(AThreshold, return x <= A(p.v[0]) ? A(p.v[1]) : x;)
OF_FORMULA1(AElu, return x > A(0) ? A(p.v[1]) * x : A(p.v[0]) * (exp(x * A(p.v[2])) - A(1));)
OF_FORMULA1(AHardswish, const A r = x + A(3);
            return x * (r < A(0) ? A(0) : (r > A(6) ? A(6) : r)) / A(6);)
OF_FORMULA1(AHardsigmoid, const A r = x / A(6) + A(0.5);
            return r < A(0) ? A(0) : (r > A(1) ? A(1) : r);)
OF_FORMULA1(ASoftplus, return Softplus(x, A(p.v[0]), A(p.v[1]));)
OF_FORMULA1(AMish, return x * tanh(Softplus(x, A(1), A(20)));)
OF_FORMULA1(ALogsigmoid, return -Softplus(-x, A(1), A(20));)
OF_FORMULA1(ASoftsign, return x / (A(1) + (x < A(0) ? -x : x));)

// Activations, backward: a = grad, b = the op's input (relu: its output).
OF_FORMULA2(BGelu, return a * (NormCdf(b) + b * A(kInvSqrt2Pi) * exp(A(-0.5) * b * b));)
OF_FORMULA2(BGeluTanh, const A k = A(kSqrt2OverPi); const A b3 = A(0.044715) * b * b * b;
            const A t = tanh(k * (b + b3));
            const A dt = (A(1) - t * t) * k * (A(1) + A(3) * A(0.044715) * b * b);
            return a * A(0.5) * (A(1) + t + b * dt);)
OF_FORMULA2(BThreshold, return b <= A(p.v[0]) ? A(0) : a;)
OF_FORMULA2(BLeakyRelu, return b > A(0) ? a : a * A(p.v[0]);)
OF_FORMULA2(BHardtanh, return (b <= A(p.v[0]) || b >= A(p.v[1])) ? A(0) : a;)
OF_FORMULA2(BSilu, const A beta = A(p.v[0]); const A s = Sigmoid(beta * b);
            return a * (s + beta * b * s * (A(1) - s));)
OF_FORMULA2(BElu, return b > A(0) ? a * A(p.v[1]) : a * A(p.v[0]) * A(p.v[2]) * exp(b * A(p.v[2]));)
OF_FORMULA2(BHardswish, return b < A(-3) ? A(0) : (b > A(3) ? a : a * (A(2) * b + A(3)) / A(6));)
OF_FORMULA2(BHardsigmoid, return (b > A(-3) && b < A(3)) ? a / A(6) : A(0);)
OF_FORMULA2(BSoftplus, const A z = b * A(p.v[0]); return z > A(p.v[1]) ? a : a * Sigmoid(z);)
OF_FORMULA2(BMish, const A sp = Softplus(b, A(1), A(20)); const A t = tanh(sp);
            return a * (t + b * Sigmoid(b) * (A(1) - t * t));)

// Binary ops: p = {alpha} for add/sub, {rounding} for div (0 none, 1 trunc, 2 floor).
OF_FORMULA2(FAdd, if constexpr (std::is_same_v<A, bool>) return a || b;
            else return p.v[0] == 1 ? A(a + b) : A(a + A(p.v[0]) * b);)
OF_FORMULA2(FSub, return p.v[0] == 1 ? A(a - b) : A(a - A(p.v[0]) * b);)
OF_FORMULA2(FMul, if constexpr (std::is_same_v<A, bool>) return a && b; else return A(a * b);)
OF_FORMULA2(
    FDiv,
    if constexpr (std::is_integral_v<A>) {
      if (b == 0) return A(0);
      const A q = a / b;
      if (p.v[0] == 2 && (a % b != 0) && ((a < 0) != (b < 0))) return A(q - 1);
      return q;
    } else {
      const A q = a / b;
      if (p.v[0] == 1) return trunc(q);
      if (p.v[0] == 2) return floor(q);
      return q;
    })
OF_FORMULA2(
    FMaximum,
    if constexpr (!std::is_integral_v<A>) {
      if (IsNan(a) || IsNan(b)) return a + b;
    } return a > b
        ? a
        : b;)
OF_FORMULA2(
    FMinimum,
    if constexpr (!std::is_integral_v<A>) {
      if (IsNan(a) || IsNan(b)) return a + b;
    } return a < b
        ? a
        : b;)
OF_FORMULA2(
    FPow,
    if constexpr (std::is_integral_v<A>) {
      if (b < 0) return A(a == 1 ? 1 : (a == -1 ? ((b % 2) ? -1 : 1) : 0));
      A r = 1, base = a;
      for (A e = b; e > 0; e >>= 1) {
        if (e & 1) r *= base;
        base *= base;
      }
      return r;
    } else { return pow(a, b); })
OF_FORMULA2(FAtan2, return atan2(a, b);)
OF_FORMULA2(FHypot, return hypot(a, b);)
OF_FORMULA2(FLogaddexp, const A m = a > b ? a : b; if (m == A(-INFINITY)) return m;
            return m + log1p(exp(-(a > b ? a - b : b - a)));)
OF_FORMULA2(FFmod, if constexpr (std::is_integral_v<A>) return b == 0 ? A(0) : A(a % b);
            else return fmod(a, b);)
OF_FORMULA2(
    FRemainder,
    if constexpr (std::is_integral_v<A>) {
      if (b == 0) return A(0);
      A r = a % b;
      return (r != 0 && ((r < 0) != (b < 0))) ? A(r + b) : r;
    } else {
      A r = fmod(a, b);
      return (r != A(0) && ((r < A(0)) != (b < A(0)))) ? r + b : r;
    })
OF_FORMULA2(
    FFloorDivide,
    if constexpr (std::is_integral_v<A>) {
      if (b == 0) return A(0);
      const A q = a / b;
      return ((a % b != 0) && ((a < 0) != (b < 0))) ? A(q - 1) : q;
    } else { return floor(a / b); })
// Comparisons (bool output; computed in A).
OF_FORMULA2(CEq, return a == b;)
OF_FORMULA2(CNe, return a != b;)
OF_FORMULA2(CLt, return a < b;)
OF_FORMULA2(CLe, return a <= b;)
OF_FORMULA2(CGt, return a > b;)
OF_FORMULA2(CGe, return a >= b;)
OF_FORMULA2(CAnd, return (a != A(0)) && (b != A(0));)
OF_FORMULA2(COr, return (a != A(0)) || (b != A(0));)
OF_FORMULA2(CXor, return (a != A(0)) != (b != A(0));)

// Ternary: addcmul / addcdiv (p = {value}), lerp with a tensor weight.
OF_FORMULA3(FAddcmul, return a + A(p.v[0]) * b * c;)
OF_FORMULA3(FAddcdiv, return a + A(p.v[0]) * b / c;)
OF_FORMULA3(FLerp, return a + c * (b - a);)
// clamp with tensor bounds (p = {has_lo, has_hi}); NaN in x or a bound propagates.
OF_FORMULA3(FClampT, if (IsNan(a)) return a; A r = a;
            if (p.v[0] != 0) r = (IsNan(b) || r < b) ? b : r;
            if (p.v[1] != 0) r = (IsNan(c) || r > c) ? c : r; return r;)

#undef OF_FORMULA1
#undef OF_FORMULA2
#undef OF_FORMULA3

// ---- the table ---------------------------------------------------------------

constexpr uint32_t Bit(DType d) { return 1u << static_cast<int>(d); }
constexpr uint32_t kFloat =
    Bit(DType::kFloat16) | Bit(DType::kBFloat16) | Bit(DType::kFloat32) | Bit(DType::kFloat64);
constexpr uint32_t kInt = Bit(DType::kUInt8) | Bit(DType::kInt8) | Bit(DType::kInt16) |
                          Bit(DType::kInt32) | Bit(DType::kInt64);
constexpr uint32_t kNumeric = kFloat | kInt;
constexpr uint32_t kAll = kNumeric | Bit(DType::kBool);

using LaunchFn = void (*)(DType, const ElemArgs&, const Params&);

template <int N, bool kBoolOut, typename F>
void Launch(DType compute, const ElemArgs& a, const Params& p) {
  SwitchDType(compute, [&](auto tag) {
    using T = decltype(tag);
    using Out = std::conditional_t<kBoolOut, bool, T>;
    ElemKernel<T, Out, N, F><<<Blocks(a.numel), kThreads, 0, CurrentStream()>>>(a, p, F{});
  });
}

template <int N, bool kBoolOut, typename F>
void LaunchFloat(DType compute, const ElemArgs& a, const Params& p) {
  SwitchFloating(compute, [&](auto tag) {
    using T = decltype(tag);
    using Out = std::conditional_t<kBoolOut, bool, T>;
    ElemKernel<T, Out, N, F><<<Blocks(a.numel), kThreads, 0, CurrentStream()>>>(a, p, F{});
  });
}

// Numeric types without bool (avoids bool arithmetic in the formulas).
template <int N, bool kBoolOut, typename F>
void LaunchNumeric(DType compute, const ElemArgs& a, const Params& p) {
  if (compute == DType::kBool) return;
  SwitchDType(compute, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>) {
      using Out = std::conditional_t<kBoolOut, bool, T>;
      ElemKernel<T, Out, N, F><<<Blocks(a.numel), kThreads, 0, CurrentStream()>>>(a, p, F{});
    }
  });
}

void LaunchWhere(DType compute, const ElemArgs& a, const Params&) {
  SwitchDType(compute, [&](auto tag) {
    using T = decltype(tag);
    if (a.op[1].dtype == DType::kUInt8) {
      WhereKernel<T, uint8_t><<<Blocks(a.numel), kThreads, 0, CurrentStream()>>>(a);
    } else {
      WhereKernel<T, bool><<<Blocks(a.numel), kThreads, 0, CurrentStream()>>>(a);
    }
  });
}

struct Entry {
  const char* name;
  uint32_t dtypes;
  LaunchFn fn;
};

#define U_FLOAT(name, F) \
  { name, kFloat, &LaunchFloat<1, false, F> }
#define U_NUM(name, F) \
  { name, kNumeric, &LaunchNumeric<1, false, F> }
#define B_FLOAT(name, F) \
  { name, kFloat, &LaunchFloat<2, false, F> }
#define B_NUM(name, F) \
  { name, kNumeric, &LaunchNumeric<2, false, F> }
#define B_ALL(name, F) \
  { name, kAll, &Launch<2, false, F> }
#define B_CMP(name, F) \
  { name, kAll, &Launch<2, true, F> }

const Entry kTable[] = {
    U_FLOAT("exp", FExp),
    U_FLOAT("expm1", FExpm1),
    U_FLOAT("log", FLog),
    U_FLOAT("log1p", FLog1p),
    U_FLOAT("log2", FLog2),
    U_FLOAT("log10", FLog10),
    U_FLOAT("sqrt", FSqrt),
    U_FLOAT("rsqrt", FRsqrt),
    U_FLOAT("reciprocal", FReciprocal),
    U_FLOAT("sin", FSin),
    U_FLOAT("cos", FCos),
    U_FLOAT("tan", FTan),
    U_FLOAT("asin", FAsin),
    U_FLOAT("acos", FAcos),
    U_FLOAT("atan", FAtan),
    U_FLOAT("sinh", FSinh),
    U_FLOAT("cosh", FCosh),
    U_FLOAT("tanh", FTanh),
    U_FLOAT("asinh", FAsinh),
    U_FLOAT("acosh", FAcosh),
    U_FLOAT("atanh", FAtanh),
    U_FLOAT("sigmoid", FSigmoid),
    U_FLOAT("erf", FErf),
    U_FLOAT("erfc", FErfc),
    U_FLOAT("erfinv", FErfinv),
    U_FLOAT("lgamma", FLgamma),
    U_NUM("abs", FAbs),
    U_NUM("neg", FNeg),
    U_NUM("square", FSquare),
    U_NUM("relu", FRelu),
    U_NUM("sign", FSign),
    U_NUM("floor", FFloor),
    U_NUM("ceil", FCeil),
    U_NUM("round", FRound),
    U_NUM("trunc", FTrunc),
    U_NUM("clamp", FClamp),
    U_FLOAT("activation:gelu", AGelu),
    U_FLOAT("activation:gelu_tanh", AGeluTanh),
    U_FLOAT("activation:silu", ASilu),
    U_FLOAT("activation:leaky_relu", ALeakyRelu),
    U_NUM("activation:hardtanh", AHardtanh),
    U_NUM("activation:threshold", AThreshold),
    U_FLOAT("activation:elu", AElu),
    U_FLOAT("activation:hardswish", AHardswish),
    U_FLOAT("activation:hardsigmoid", AHardsigmoid),
    U_FLOAT("activation:softplus", ASoftplus),
    U_FLOAT("activation:mish", AMish),
    U_FLOAT("activation:logsigmoid", ALogsigmoid),
    U_FLOAT("activation:softsign", ASoftsign),
    B_FLOAT("activation_backward:gelu", BGelu),
    B_FLOAT("activation_backward:gelu_tanh", BGeluTanh),
    B_NUM("activation_backward:threshold", BThreshold),
    B_FLOAT("activation_backward:leaky_relu", BLeakyRelu),
    B_NUM("activation_backward:hardtanh", BHardtanh),
    B_FLOAT("activation_backward:silu", BSilu),
    B_FLOAT("activation_backward:elu", BElu),
    B_FLOAT("activation_backward:hardswish", BHardswish),
    B_FLOAT("activation_backward:hardsigmoid", BHardsigmoid),
    B_FLOAT("activation_backward:softplus", BSoftplus),
    B_FLOAT("activation_backward:mish", BMish),
    B_ALL("add", FAdd),
    B_NUM("sub", FSub),
    B_ALL("mul", FMul),
    B_NUM("div", FDiv),
    B_NUM("maximum", FMaximum),
    B_NUM("minimum", FMinimum),
    B_NUM("pow", FPow),
    B_FLOAT("atan2", FAtan2),
    B_FLOAT("hypot", FHypot),
    B_FLOAT("logaddexp", FLogaddexp),
    B_NUM("fmod", FFmod),
    B_NUM("remainder", FRemainder),
    B_NUM("floor_divide", FFloorDivide),
    B_CMP("eq", CEq),
    B_CMP("ne", CNe),
    B_CMP("lt", CLt),
    B_CMP("le", CLe),
    B_CMP("gt", CGt),
    B_CMP("ge", CGe),
    B_CMP("logical_and", CAnd),
    B_CMP("logical_or", COr),
    B_CMP("logical_xor", CXor),
    {"addcmul", kNumeric, &LaunchNumeric<3, false, FAddcmul>},
    {"addcdiv", kFloat, &LaunchFloat<3, false, FAddcdiv>},
    {"lerp", kFloat, &LaunchFloat<3, false, FLerp>},
    {"clamp_tensor", kNumeric, &LaunchNumeric<3, false, FClampT>},
    {"where", kAll, &LaunchWhere},
};

#undef U_FLOAT
#undef U_NUM
#undef B_FLOAT
#undef B_NUM
#undef B_ALL
#undef B_CMP

const Entry* Find(const char* name) {
  for (const Entry& e : kTable) {
    if (std::strcmp(e.name, name) == 0) return &e;
  }
  return nullptr;
}

}  // namespace

bool LaunchElementwise(const char* name, DType compute, const ElemArgs& args, const double* p) {
  const Entry* e = Find(name);
  if (e == nullptr) return false;
  if (args.numel == 0) return true;
  Params params = {{p[0], p[1], p[2], p[3]}};
  e->fn(compute, args, params);
  OF_CUDA_LAUNCHED();
  return true;
}

uint32_t ElementwiseDTypes(const char* name) {
  const Entry* e = Find(name);
  return e == nullptr ? 0 : e->dtypes;
}

const char* const* ElementwiseNames() {
  static const char* names[sizeof(kTable) / sizeof(kTable[0]) + 1] = {};
  if (names[0] == nullptr) {
    for (size_t i = 0; i < sizeof(kTable) / sizeof(kTable[0]); ++i) names[i] = kTable[i].name;
  }
  return names;
}

}  // namespace cuda
}  // namespace oneflow
