// CPU kernels of the activations declared in ops/defs/activation.cc.
//
// float32 (and float16/bfloat16, widened to float in blocks) runs on GCC
// vector extensions: every formula is written once as a template over its
// value type and instantiated for a vector of floats, with our own
// branch-free exp/log/tanh/erfc, so the loops are SIMD whatever the compiler
// decides about libm calls and trapping math. float64 runs the same formulas
// on scalars with libm. Selections are written as `mask ? a : b` over values
// computed on every lane, so NaN inputs propagate the way PyTorch's kernels
// propagate them.
//
// The formulas and loops are compiled once per instruction set (AVX-512,
// AVX2, baseline SSE2) and the widest the CPU has is picked once at load time.
// GCC lowers vector comparisons in the context of the function that contains
// them, so every function touching the vectors must itself be compiled for the
// target: this file includes itself once per instruction set through
// isa_regions.inc, each copy in its own namespace, and each copy includes the
// formulas (activation_formulas.inc).

#ifndef OF_ISA

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>

#include "core/runtime/view_ops.h"
#include "ops/api/ops.h"
#include "ops/cpu/isa.h"
#include "ops/cpu/loops.h"
#include "ops/cpu/vec_types.h"
#include "ops/defs/common.h"

// GCC notes the ABI of vector-returning lambdas compiled outside a target
// region (their function-pointer thunks); they are only ever inlined.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace oneflow {
namespace cpu {
namespace {

// The formula families (ops/defs/activation.cc names them by string).
enum class Kind {
  kHardtanh,
  kLeakyRelu,
  kElu,
  kGelu,
  kGeluTanh,
  kSilu,
  kMish,
  kHardswish,
  kHardsigmoid,
  kHardshrink,
  kSoftshrink,
  kTanhshrink,
  kSoftplus,
  kSoftsign,
  kLogsigmoid,
  kThreshold,
};

// f(x), g f'(x) or g f''(x).
enum class Mode { kFwd, kBwd, kSecond };

struct Params {
  double p0 = 0, p1 = 0, p2 = 0;
};

}  // namespace
}  // namespace cpu
}  // namespace oneflow

// ---- the per-instruction-set copies -----------------------------------------

#define OF_ISA_FILE "ops/cpu/activation_kernels.cc"
#include "ops/cpu/isa_regions.inc"  // NOLINT(build/include)
#undef OF_ISA_FILE

namespace oneflow {
namespace cpu {
namespace {

// out = f(a) (kFwd) or f(a = grad, b = x) over n floats.
void MapFloat(Kind kind, Mode mode, const Params& p, int64_t n, float* out, const float* a,
              const float* b) {
  OF_ISA_SWITCH(Map(kind, mode, p, n, out, a, b));
}
// glu: out = a sigmoid(b); prelu rows: out = x > 0 ? x : x w.
void MapGluFloat(int64_t n, float* out, const float* a, const float* b) {
  OF_ISA_SWITCH(MapGlu(n, out, a, b));
}
void MapPreluFloat(int64_t n, float* out, const float* x, const float* w) {
  OF_ISA_SWITCH(MapPrelu(n, out, x, w));
}

// Elements per thread chunk: the formulas cost tens of flops per element.
constexpr int64_t kGrain = 16384;
// float16/bfloat16 are widened in blocks of this many elements.
constexpr int64_t kBlock = 512;

// out = f(a[, b]) over dense arrays of dtype `d`, split across threads.
// float_map(n, out, a, b) runs floats, double_map the same on doubles. With
// `a_is_one_value`, a holds a single value standing for every element (the
// gradient of a sum, say), fed to the formula in blocks.
template <class FloatMap, class DoubleMap>
void MapDense(DType d, int64_t n, void* out, const void* in_a, const void* in_b,
              const FloatMap& float_map, const DoubleMap& double_map, bool a_is_one_value = false) {
  DispatchFloating(d, "activation", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using W = std::conditional_t<std::is_same_v<T, double>, double, float>;
    T* o = static_cast<T*>(out);
    const T* a = static_cast<const T*>(in_a);
    const T* b = static_cast<const T*>(in_b);
    ParallelFor(n, kGrain, [&](int64_t begin, int64_t end) {
      auto map = [&](int64_t m, W* mo, const W* ma, const W* mb) {
        if constexpr (std::is_same_v<W, double>) {
          double_map(m, mo, ma, mb);
        } else {
          float_map(m, mo, ma, mb);
        }
      };
      if constexpr (std::is_same_v<T, W>) {
        if (!a_is_one_value) {
          map(end - begin, o + begin, a + begin, b ? b + begin : nullptr);
          return;
        }
      }
      W wa[kBlock], wb[kBlock], wo[kBlock];
      if (a_is_one_value) std::fill(wa, wa + kBlock, static_cast<W>(a[0]));
      for (int64_t s = begin; s < end; s += kBlock) {
        const int64_t m = std::min(kBlock, end - s);
        if (!a_is_one_value) {
          for (int64_t i = 0; i < m; ++i) wa[i] = static_cast<W>(a[s + i]);
        }
        if constexpr (std::is_same_v<T, W>) {
          map(m, o + s, wa, b ? b + s : nullptr);
        } else {
          if (b) {
            for (int64_t i = 0; i < m; ++i) wb[i] = static_cast<W>(b[s + i]);
          }
          map(m, wo, wa, b ? wb : nullptr);
          for (int64_t i = 0; i < m; ++i) o[s + i] = static_cast<T>(wo[i]);
        }
      }
    });
  });
}

// `t` broadcast to `shape` in a dense row-major buffer (no copy when it already is).
TensorImplPtr DenseAs(const TensorImplPtr& t, const DimVector& shape) {
  return Contiguous(t->shape() == shape ? t : Expand(t, shape));
}

// Whether every element of `t` is the same memory (a broadcast single value).
bool IsOneValue(const TensorImpl& t) {
  for (int64_t d = 0; d < t.ndim(); ++d) {
    if (t.shape()[d] != 1 && t.stride()[d] != 0) return false;
  }
  return true;
}

// Runs the formula over tensors a (and b) into c.outputs[0]. Operands laid out
// densely like the output (contiguous, channels_last, ...) are mapped in
// memory order as they are; others are made row-major first, and an output
// that is not dense (an in-place op on a strided view) is computed aside and
// copied in.
void RunFormula(OpCall& c, Kind kind, Mode mode, const Params& p, TensorImplPtr a,
                TensorImplPtr b) {
  const TensorImplPtr& out = c.outputs[0];
  const bool a_is_one_value = b && out->numel() > 1 && IsOneValue(*a);
  const bool in_place_layout = IsNonOverlappingAndDense(out->shape(), out->stride()) &&
                               (a_is_one_value || SameDenseLayout(*a, *out)) &&
                               (!b || SameDenseLayout(*b, *out));
  TensorImplPtr dst = out;
  if (!in_place_layout) {
    if (!a_is_one_value) a = DenseAs(a, out->shape());
    if (b) b = DenseAs(b, out->shape());
    if (!out->is_contiguous()) dst = TensorImpl::Empty(out->shape(), out->dtype(), out->device());
  }
  MapDense(
      c.compute_dtype, dst->numel(), dst->data(), a->data(), b ? b->data() : nullptr,
      [&](int64_t n, float* o, const float* x, const float* y) {
        MapFloat(kind, mode, p, n, o, x, y);
      },
      [&](int64_t n, double* o, const double* x, const double* y) {
        baseline::MapDouble(kind, mode, p, n, o, x, y);
      },
      a_is_one_value);
  if (dst != out) CopyInto(dst, out);
}

// ---- kernels ----------------------------------------------------------------

struct Spec {
  Kind kind;
  Params p;
};

constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluScale = 1.0507009873554804934193349852946;

// A Scalar argument's value as a double.
double S(const OpCall& c, ArgRef<Scalar> a) { return c.get(a).d; }

// The formula family of a forward call. Elu's parameters are (alpha scale,
// scale, input_scale) here, and the gradient's (see the Elu formula).
Spec SpecOfCall(const OpCall& c) {
  const std::string& op = c.name();
  const std::string name = op.back() == '_' ? op.substr(0, op.size() - 1) : op;
  if (name == "relu6") return {Kind::kHardtanh, {0, 6}};
  if (name == "hardtanh")
    return {Kind::kHardtanh, {S(c, arg::hardtanh::min_val), S(c, arg::hardtanh::max_val)}};
  if (name == "threshold") {
    return {Kind::kThreshold, {S(c, arg::threshold::threshold), S(c, arg::threshold::value)}};
  }
  if (name == "leaky_relu") return {Kind::kLeakyRelu, {S(c, arg::leaky_relu::negative_slope)}};
  if (name == "elu") {
    const double alpha = S(c, arg::elu::alpha), scale = S(c, arg::elu::scale);
    return {Kind::kElu, {alpha * scale, scale, S(c, arg::elu::input_scale)}};
  }
  if (name == "selu") return {Kind::kElu, {kSeluAlpha * kSeluScale, kSeluScale, 1}};
  if (name == "celu") {
    const double alpha = S(c, arg::celu::alpha);
    return {Kind::kElu, {alpha, 1, 1 / alpha}};
  }
  if (name == "gelu")
    return {c.get(arg::gelu::approximate) == "tanh" ? Kind::kGeluTanh : Kind::kGelu, {}};
  if (name == "quick_gelu") return {Kind::kSilu, {1.702}};
  if (name == "silu") return {Kind::kSilu, {1}};
  if (name == "mish") return {Kind::kMish, {}};
  if (name == "hardswish") return {Kind::kHardswish, {}};
  if (name == "hardsigmoid") return {Kind::kHardsigmoid, {}};
  if (name == "hardshrink") return {Kind::kHardshrink, {S(c, arg::hardshrink::lambd)}};
  if (name == "softshrink") return {Kind::kSoftshrink, {S(c, arg::softshrink::lambd)}};
  if (name == "tanhshrink") return {Kind::kTanhshrink, {}};
  if (name == "softplus")
    return {Kind::kSoftplus, {S(c, arg::softplus::beta), S(c, arg::softplus::threshold)}};
  if (name == "softsign") return {Kind::kSoftsign, {}};
  if (name == "logsigmoid") return {Kind::kLogsigmoid, {}};
  OF_THROW(RuntimeError, "activation kernel called for unknown op '", op, "'");
}

// activation_backward(grad, self, kind, p0, p1, p2) and its double backward
// (the same arguments).
namespace act_bwd = arg::activation_backward;
Spec SpecOfBackward(const OpCall& c) {
  const std::string k = c.get(act_bwd::kind);
  Params p{c.get(act_bwd::p0), c.get(act_bwd::p1), c.get(act_bwd::p2)};
  static const std::pair<const char*, Kind> kKinds[] = {
      {"hardtanh", Kind::kHardtanh},
      {"leaky_relu", Kind::kLeakyRelu},
      {"elu", Kind::kElu},
      {"silu", Kind::kSilu},
      {"mish", Kind::kMish},
      {"hardswish", Kind::kHardswish},
      {"hardsigmoid", Kind::kHardsigmoid},
      {"hardshrink", Kind::kHardshrink},
      {"softshrink", Kind::kSoftshrink},
      {"tanhshrink", Kind::kTanhshrink},
      {"softplus", Kind::kSoftplus},
      {"softsign", Kind::kSoftsign},
      {"logsigmoid", Kind::kLogsigmoid},
      {"threshold", Kind::kThreshold},
  };
  if (k == "gelu") return {p.p0 != 0 ? Kind::kGeluTanh : Kind::kGelu, p};
  for (const auto& [name, kind] : kKinds) {
    if (k == name) return {kind, p};
  }
  OF_THROW(RuntimeError, c.name(), "(): unknown activation kind '", k, "'");
}

// hardtanh, relu6 and threshold also take integer tensors, as in PyTorch.
bool IntegerForward(OpCall& c, const Spec& s) {
  if (IsFloatingPoint(c.compute_dtype)) return false;
  DispatchIntegral(c.compute_dtype, c.name().c_str(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T lo = static_cast<T>(s.p.p0), hi = static_cast<T>(s.p.p1);
    // self comes first in every forward activation.
    TensorImplPtr x = c.tensor(arg::hardtanh::self);
    if (s.kind == Kind::kHardtanh) {
      UnaryLoop<T, T>(*x, *c.outputs[0], [=](T v) -> T { return v < lo ? lo : (v > hi ? hi : v); });
    } else {
      UnaryLoop<T, T>(*x, *c.outputs[0], [=](T v) -> T { return v <= lo ? hi : v; });
    }
  });
  return true;
}

void ActivationForwardKernel(OpCall& c) {
  const Spec s = SpecOfCall(c);
  if (IntegerForward(c, s)) return;
  RunFormula(c, s.kind, Mode::kFwd, s.p, c.tensor(arg::hardtanh::self), nullptr);
}

void ActivationBackwardKernel(OpCall& c) {
  const Spec s = SpecOfBackward(c);
  RunFormula(c, s.kind, Mode::kBwd, s.p, c.tensor(act_bwd::grad_output), c.tensor(act_bwd::self));
}

void ActivationDoubleBackwardKernel(OpCall& c) {
  const Spec s = SpecOfBackward(c);
  RunFormula(c, s.kind, Mode::kSecond, s.p, c.tensor(act_bwd::grad_output),
             c.tensor(act_bwd::self));
}

constexpr DeviceType kCPU = DeviceType::kCPU;
constexpr DTypeSet kIntegerToo = kFloatingDTypes | kIntegralDTypes;

OF_KERNEL_WITH_INPLACE("relu6", kCPU, kIntegerToo, &ActivationForwardKernel);
OF_KERNEL_WITH_INPLACE("hardtanh", kCPU, kIntegerToo, &ActivationForwardKernel);
OF_KERNEL_WITH_INPLACE("threshold", kCPU, kIntegerToo, &ActivationForwardKernel);
OF_KERNEL_WITH_INPLACE("leaky_relu", kCPU, kFloatingDTypes, &ActivationForwardKernel);
OF_KERNEL_WITH_INPLACE("elu", kCPU, kFloatingDTypes, &ActivationForwardKernel);
OF_KERNEL_WITH_INPLACE("selu", kCPU, kFloatingDTypes, &ActivationForwardKernel);
OF_KERNEL_WITH_INPLACE("celu", kCPU, kFloatingDTypes, &ActivationForwardKernel);
OF_KERNEL_WITH_INPLACE("silu", kCPU, kFloatingDTypes, &ActivationForwardKernel);
OF_KERNEL_WITH_INPLACE("mish", kCPU, kFloatingDTypes, &ActivationForwardKernel);
OF_KERNEL_WITH_INPLACE("hardswish", kCPU, kFloatingDTypes, &ActivationForwardKernel);
OF_KERNEL_WITH_INPLACE("hardsigmoid", kCPU, kFloatingDTypes, &ActivationForwardKernel);
OF_KERNEL("gelu", kCPU, kFloatingDTypes, &ActivationForwardKernel);
OF_KERNEL("quick_gelu", kCPU, kFloatingDTypes, &ActivationForwardKernel);
OF_KERNEL("hardshrink", kCPU, kFloatingDTypes, &ActivationForwardKernel);
OF_KERNEL("softshrink", kCPU, kFloatingDTypes, &ActivationForwardKernel);
OF_KERNEL("tanhshrink", kCPU, kFloatingDTypes, &ActivationForwardKernel);
OF_KERNEL("softplus", kCPU, kFloatingDTypes, &ActivationForwardKernel);
OF_KERNEL("softsign", kCPU, kFloatingDTypes, &ActivationForwardKernel);
OF_KERNEL("logsigmoid", kCPU, kFloatingDTypes, &ActivationForwardKernel);
OF_KERNEL("activation_backward", kCPU, kFloatingDTypes, &ActivationBackwardKernel);
OF_KERNEL("activation_double_backward", kCPU, kFloatingDTypes, &ActivationDoubleBackwardKernel);

// ---- prelu ------------------------------------------------------------------

// x is (N, C, inner...) with one weight per channel, or any shape with one weight.
void PreluKernel(OpCall& c) {
  const TensorImplPtr x = Contiguous(c.tensor(arg::prelu::self));
  const TensorImplPtr w = Contiguous(c.tensor(arg::prelu::weight));
  const TensorImplPtr& out = c.outputs[0];
  if (w->numel() == 1) {
    Params p;
    DispatchFloating(c.compute_dtype, "prelu", [&](auto tag) {
      using T = typename decltype(tag)::type;
      p.p0 = static_cast<double>(reinterpret_cast<const T*>(w->data())[0]);
    });
    RunFormula(c, Kind::kLeakyRelu, Mode::kFwd, p, x, nullptr);
    return;
  }
  const int64_t n = x->shape()[0], channels = x->shape()[1];
  const int64_t inner = n * channels == 0 ? 0 : x->numel() / (n * channels);
  const int64_t row = channels * inner;
  // One row of weights, each repeated `inner` times, pairs with each sample.
  TensorImplPtr wrow = DenseAs(Unsqueeze(w, 1), {channels, inner});
  const int64_t itemsize = ItemSize(c.compute_dtype);
  ParallelFor(n, std::max<int64_t>(1, kGrain / std::max<int64_t>(row, 1)),
              [&](int64_t b, int64_t e) {
                for (int64_t i = b; i < e; ++i) {
                  MapDense(
                      c.compute_dtype, row, out->data() + i * row * itemsize,
                      x->data() + i * row * itemsize, wrow->data(),
                      [](int64_t m, float* o, const float* v, const float* wv) {
                        MapPreluFloat(m, o, v, wv);
                      },
                      [](int64_t m, double* o, const double* v, const double* wv) {
                        for (int64_t k = 0; k < m; ++k) o[k] = v[k] > 0 ? v[k] : v[k] * wv[k];
                      });
                }
              });
}
OF_KERNEL("prelu", kCPU, kFloatingDTypes, &PreluKernel);

// ---- glu --------------------------------------------------------------------

// x is (outer, 2 H, inner): out = first half * sigmoid(second half).
void GluKernel(OpCall& c) {
  const TensorImplPtr x = Contiguous(c.tensor(arg::glu::self));
  const TensorImplPtr& out = c.outputs[0];
  const int64_t dim = WrapDim(c.get(arg::glu::dim), x->ndim());
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= x->shape()[d];
  for (int64_t d = dim + 1; d < x->ndim(); ++d) inner *= x->shape()[d];
  const int64_t half = x->shape()[dim] / 2 * inner;  // elements of one half of a slice
  const int64_t itemsize = ItemSize(c.compute_dtype);
  ParallelFor(
      outer, std::max<int64_t>(1, kGrain / std::max<int64_t>(half, 1)), [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) {
          const char* a = x->data() + 2 * i * half * itemsize;
          MapDense(
              c.compute_dtype, half, out->data() + i * half * itemsize, a, a + half * itemsize,
              [](int64_t m, float* o, const float* u, const float* v) { MapGluFloat(m, o, u, v); },
              [](int64_t m, double* o, const double* u, const double* v) {
                for (int64_t k = 0; k < m; ++k) o[k] = u[k] / (1 + std::exp(-v[k]));
              });
        }
      });
}
OF_KERNEL("glu", kCPU, kFloatingDTypes, &GluKernel);

}  // namespace
}  // namespace cpu
}  // namespace oneflow

#else  // OF_ISA: one instruction set's formulas and loops ------------------------

namespace oneflow {
namespace cpu {
namespace {
namespace OF_ISA {

using V = OF_ISA_VEC;

// Formulas run on A = double (scalars) or V.
template <class A>
constexpr bool kIsVec = !std::is_arithmetic_v<A>;

// The constant c as an A (a vector splat for vectors).
template <class A>
OF_INLINE A K(double c) {
  if constexpr (kIsVec<A>) {
    return A{} + static_cast<float>(c);
  } else {
    return static_cast<A>(c);
  }
}

// ---- float vector math ------------------------------------------------------
//
// VExp, VExpm1, VLog1p, VTanh, VAbs, VSigmoid and the loop MapV: vec_math.inc.

#include "ops/cpu/vec_math.inc"  // NOLINT(build/include)

// ---- the formulas -------------------------------------------------------------
//
// The normal CDF (gelu), the math the formulas call and one struct per family.

#include "ops/cpu/activation_formulas.inc"  // NOLINT(build/include)

// ---- loops ------------------------------------------------------------------

// Calls fn(formula) for `kind`.
template <class Fn>
OF_INLINE void WithFormula(Kind kind, const Params& p, Fn&& fn) {
  switch (kind) {
    case Kind::kHardtanh:
      return fn(Hardtanh{p.p0, p.p1});
    case Kind::kLeakyRelu:
      return fn(LeakyRelu{p.p0});
    case Kind::kElu:
      return fn(Elu{p.p0, p.p1, p.p2});
    case Kind::kGelu:
      return fn(Gelu{});
    case Kind::kGeluTanh:
      return fn(GeluTanh{});
    case Kind::kSilu:
      return fn(Silu{p.p0});
    case Kind::kMish:
      return fn(Mish{});
    case Kind::kHardswish:
      return fn(Hardswish{});
    case Kind::kHardsigmoid:
      return fn(Hardsigmoid{});
    case Kind::kHardshrink:
      return fn(Hardshrink{p.p0});
    case Kind::kSoftshrink:
      return fn(Softshrink{{p.p0}});
    case Kind::kTanhshrink:
      return fn(Tanhshrink{});
    case Kind::kSoftplus:
      return fn(Softplus{p.p0, p.p1});
    case Kind::kSoftsign:
      return fn(Softsign{});
    case Kind::kLogsigmoid:
      return fn(Logsigmoid{});
    case Kind::kThreshold:
      return fn(Threshold{p.p0, p.p1});
  }
}

// out = f(a) (kFwd), or f(g = a, x = b) (kBwd, kSecond), over n floats.
void Map(Kind kind, Mode mode, const Params& p, int64_t n, float* out, const float* a,
         const float* b) {
  WithFormula(kind, p, [&](const auto& op) {
    switch (mode) {
      case Mode::kFwd:
        return MapV<V>([&op](const V& x) OF_INLINE_LAMBDA { return op.Fwd(x); }, n, out, a);
      case Mode::kBwd:
        return MapV<V>([&op](const V& g, const V& x) OF_INLINE_LAMBDA { return op.Bwd(g, x); }, n,
                       out, a, b);
      case Mode::kSecond:
        return MapV<V>([&op](const V& g, const V& x) OF_INLINE_LAMBDA { return op.Second(g, x); },
                       n, out, a, b);
    }
  });
}

void MapGlu(int64_t n, float* out, const float* a, const float* b) {
  MapV<V>([](const V& u, const V& v) OF_INLINE_LAMBDA { return u * VSigmoid(v); }, n, out, a, b);
}

void MapPrelu(int64_t n, float* out, const float* x, const float* w) {
  MapV<V>([](const V& v, const V& wv) OF_INLINE_LAMBDA { return v > 0.f ? v : v * wv; }, n, out, x,
          w);
}

#ifdef OF_ISA_BASELINE
// The same formulas on doubles (scalars, libm).
void MapDouble(Kind kind, Mode mode, const Params& p, int64_t n, double* out, const double* a,
               const double* b) {
  WithFormula(kind, p, [&](const auto& op) {
    for (int64_t i = 0; i < n; ++i) {
      switch (mode) {
        case Mode::kFwd:
          out[i] = op.Fwd(a[i]);
          break;
        case Mode::kBwd:
          out[i] = op.Bwd(a[i], b[i]);
          break;
        case Mode::kSecond:
          out[i] = op.Second(a[i], b[i]);
          break;
      }
    }
  });
}
#endif

}  // namespace OF_ISA
}  // namespace
}  // namespace cpu
}  // namespace oneflow

#endif  // OF_ISA
