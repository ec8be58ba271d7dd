// CPU kernels of the fused losses declared in ops/defs/loss.cc: softmax cross
// entropy and nll_loss over (rows, C), the pointwise losses of input - target
// (mse, l1, smooth_l1, huber) and binary cross entropy (CTC:
// ctc_loss_kernels.cc).
//
// Cross entropy makes two passes over each row of logits while the row is in
// cache (the max, then the sum of exponentials; with label smoothing also the
// weighted sum of the logits), keeping only the row's logsumexp; backward makes
// one pass writing softmax minus the (smoothed) one-hot target. Rows are split
// across threads; float32 rows run on GCC vector extensions (AVX-512, AVX2 or
// SSE2, chosen at load time) with a branch-free exp, float16/bfloat16 rows are
// widened to float, float64 runs on scalars with libm. Reductions over rows
// add per-row results in a fixed order, so results do not depend on the
// number of threads.
//
// The vector loops are compiled once per instruction set (isa_regions.inc):
// GCC lowers vector comparisons for the target of the function that contains
// them.

#ifndef OF_ISA

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

#include "core/runtime/view_ops.h"
#include "ops/api/ops.h"
#include "ops/cpu/isa.h"
#include "ops/cpu/loops.h"
#include "ops/cpu/loss_common.h"
#include "ops/cpu/vec_types.h"
#include "ops/defs/common.h"

// GCC notes the ABI of vector-returning lambdas compiled outside a target
// region (their function-pointer thunks); they are only ever inlined.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace oneflow {
namespace cpu {
namespace {

// What the forward needs of one row: its max (NaN if any element is NaN), the
// sum of exp(x - max) and, with label smoothing, sum_c w_c x_c (w = 1 when null).
struct RowStats {
  float max, sum_exp, weighted_sum;
};

// The losses of d = input - target that _pointwise_loss computes.
enum class Pointwise { kMse, kL1, kSmoothL1, kHuber };

}  // namespace
}  // namespace cpu
}  // namespace oneflow

// ---- the per-instruction-set copies of the vector loops ---------------------

#define OF_ISA_FILE "ops/cpu/loss_kernels.cc"
#include "ops/cpu/isa_regions.inc"  // NOLINT(build/include)
#undef OF_ISA_FILE

namespace oneflow {
namespace cpu {
namespace {

constexpr DeviceType kCPU = DeviceType::kCPU;
constexpr double kInf = std::numeric_limits<double>::infinity();

RowStats RowStatsF(const float* x, int64_t n, const float* w, bool weighted_sum) {
  OF_ISA_SWITCH(RowStatsOf(x, n, w, weighted_sum));
}

// out_c = exp(x_c - lse) a - b w_c (w = 1 when null).
void RowGradF(const float* x, int64_t n, float lse, float a, float b, const float* w, float* out) {
  OF_ISA_SWITCH(RowGradOf(x, n, lse, a, b, w, out));
}

// out = loss(x - t) over n floats; backward: out = g loss'(x - t).
void PointwiseF(Pointwise kind, float p, int64_t n, float* out, const float* x, const float* t) {
  OF_ISA_SWITCH(PointwiseOf(kind, p, n, out, x, t));
}
void PointwiseBackwardF(Pointwise kind, float p, int64_t n, float* out, const float* g,
                        const float* x, const float* t) {
  OF_ISA_SWITCH(PointwiseBackwardOf(kind, p, n, out, g, x, t));
}

// ---- rows of any floating dtype ---------------------------------------------

// Weights are widened once: to float for float32/16-bit rows, to double for float64.
template <class T>
using WeightT = std::conditional_t<std::is_same_v<T, double>, double, float>;

struct Stats {
  double max, sum_exp, weighted_sum;
};

// Per-thread buffers for widening float16/bfloat16 rows.
struct Scratch {
  std::vector<float> in, out;
};

template <class T>
Stats RowStatsT(const T* x, int64_t n, const WeightT<T>* w, bool weighted_sum, Scratch& s) {
  if constexpr (std::is_same_v<T, float>) {
    RowStats r = RowStatsF(x, n, w, weighted_sum);
    return {r.max, r.sum_exp, r.weighted_sum};
  } else if constexpr (std::is_same_v<T, double>) {
    double m = -kInf, sum = 0, dot = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (std::isnan(x[i]) || x[i] > m) m = x[i];
      if (std::isnan(m)) break;
    }
    for (int64_t i = 0; i < n; ++i) sum += std::exp(x[i] - m);
    if (weighted_sum) {
      for (int64_t i = 0; i < n; ++i) dot += (w ? w[i] : 1.0) * x[i];
    }
    return {m, sum, dot};
  } else {
    s.in.resize(n);
    for (int64_t i = 0; i < n; ++i) s.in[i] = static_cast<float>(x[i]);
    RowStats r = RowStatsF(s.in.data(), n, w, weighted_sum);
    return {r.max, r.sum_exp, r.weighted_sum};
  }
}

// out_c = exp(x_c - lse) a - b w_c.
template <class T>
void RowGradT(const T* x, int64_t n, double lse, double a, double b, const WeightT<T>* w, T* out,
              Scratch& s) {
  if constexpr (std::is_same_v<T, float>) {
    RowGradF(x, n, static_cast<float>(lse), static_cast<float>(a), static_cast<float>(b), w, out);
  } else if constexpr (std::is_same_v<T, double>) {
    for (int64_t i = 0; i < n; ++i) out[i] = std::exp(x[i] - lse) * a - b * (w ? w[i] : 1.0);
  } else {
    s.in.resize(n);
    s.out.resize(n);
    for (int64_t i = 0; i < n; ++i) s.in[i] = static_cast<float>(x[i]);
    RowGradF(s.in.data(), n, static_cast<float>(lse), static_cast<float>(a), static_cast<float>(b),
             w, s.out.data());
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(s.out[i]);
  }
}

// ---- shared by cross entropy and nll_loss -----------------------------------

// Rows per thread chunk: at least this many elements of work.
constexpr int64_t kWorkGrain = 32768;

int64_t RowGrain(int64_t classes) {
  return std::max<int64_t>(1, kWorkGrain / std::max<int64_t>(classes, 1));
}

// The class indices (int64 or uint8) as int64, checked against [0, classes)
// unless equal to ignore_index. Checked before any thread starts: an exception
// must not leave a parallel region.
std::vector<int64_t> ReadTargets(const TensorImplPtr& target, int64_t classes, int64_t ignore,
                                 const char* op) {
  TensorImplPtr t = Contiguous(target);
  std::vector<int64_t> out(t->numel());
  if (t->dtype() == DType::kUInt8) {
    const uint8_t* p = reinterpret_cast<const uint8_t*>(t->data());
    for (size_t i = 0; i < out.size(); ++i) out[i] = p[i];
  } else {
    OF_CHECK(t->dtype() == DType::kInt64, RuntimeError, op,
             "(): expected target dtype to be Long or Byte, but got ", DTypeName(t->dtype()));
    std::memcpy(out.data(), t->data(), out.size() * sizeof(int64_t));
  }
  for (int64_t v : out) {
    OF_CHECK(v == ignore || (v >= 0 && v < classes), IndexError, op, "(): Target ", v,
             " is out of bounds. (expected a class index in [0, ", classes, ") or ignore_index ",
             ignore, ")");
  }
  return out;
}

template <class T>
std::vector<WeightT<T>> ReadWeights(const OpCall& c, int arg) {
  std::vector<WeightT<T>> w;
  if (!c.has(arg)) return w;
  TensorImplPtr t = Contiguous(c.tensor(arg));
  const T* p = reinterpret_cast<const T*>(t->data());
  w.resize(t->numel());
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<WeightT<T>>(p[i]);
  return w;
}

// Writes the loss (per row for 'none', else the sum or the weighted mean) and
// the total weight; the row sums are added in row order.
template <class T>
void WriteReduced(OpCall& c, const std::string& reduction, const std::vector<double>& loss,
                  const std::vector<double>& weight) {
  T* out = reinterpret_cast<T*>(c.outputs[0]->data());
  double total = 0, sum = 0;
  for (size_t i = 0; i < loss.size(); ++i) {
    total += weight[i];
    sum += loss[i];
  }
  if (reduction == "none") {
    for (size_t i = 0; i < loss.size(); ++i) out[i] = static_cast<T>(loss[i]);
  } else {
    out[0] = static_cast<T>(reduction == "mean" ? sum / total : sum);
  }
  reinterpret_cast<T*>(c.outputs.back()->data())[0] = static_cast<T>(total);
}

// The scale of each row's gradient: grad_output (per row, or one for all) over
// the total weight for 'mean'.
std::vector<double> RowScales(const OpCall& c, int grad_arg, const std::string& reduction,
                              int total_arg, int64_t rows) {
  std::vector<double> s = ReadDoubles(c.tensor(grad_arg), reduction == "none" ? rows : 1);
  if (reduction != "none") s.assign(rows, s[0]);
  if (reduction == "mean") {
    double total = ReadDoubles(c.tensor(total_arg), 1)[0];
    for (double& v : s) v /= total;
  }
  return s;
}

// ---- softmax cross entropy --------------------------------------------------
//
// Per row with target t, weights w (1 without), W = sum w, eps = label smoothing:
//   loss = (1 - eps) w_t (lse - x_t) + eps / C (W lse - sum_c w_c x_c)
//   dloss/dx_c = softmax_c ((1 - eps) w_t + eps W / C) - (1 - eps) w_t [c = t] - eps w_c / C

void SoftmaxCrossEntropyKernel(OpCall& c) {
  namespace a = arg::_softmax_cross_entropy;
  const TensorImplPtr x = Contiguous(c.tensor(a::input));
  const int64_t rows = x->shape()[0], classes = x->shape()[1];
  const std::string& reduction = c.args[a::reduction].str();
  const int64_t ignore = c.get(a::ignore_index);
  const double eps = c.get(a::label_smoothing);
  const std::vector<int64_t> target =
      ReadTargets(c.tensor(a::target), classes, ignore, "cross_entropy");
  DispatchFloating(c.compute_dtype, "cross_entropy", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const std::vector<WeightT<T>> wv = ReadWeights<T>(c, a::weight);
    const WeightT<T>* w = wv.empty() ? nullptr : wv.data();
    double w_sum = w ? 0 : static_cast<double>(classes);
    for (auto v : wv) w_sum += v;
    const T* xp = reinterpret_cast<const T*>(x->data());
    T* lse_out = reinterpret_cast<T*>(c.outputs[1]->data());
    std::vector<double> loss(rows), weight(rows);
    ParallelFor(rows, RowGrain(classes), [&](int64_t begin, int64_t end) {
      Scratch scratch;
      for (int64_t i = begin; i < end; ++i) {
        const T* row = xp + i * classes;
        Stats st = RowStatsT<T>(row, classes, w, eps > 0, scratch);
        const double lse = st.max + std::log(st.sum_exp);
        lse_out[i] = static_cast<T>(lse);
        const int64_t t = target[i];
        if (t == ignore) {
          loss[i] = weight[i] = 0;
          continue;
        }
        const double wt = w ? static_cast<double>(w[t]) : 1.0;
        double l = (1 - eps) * wt * (lse - static_cast<double>(row[t]));
        if (eps > 0) l += eps / classes * (w_sum * lse - st.weighted_sum);
        loss[i] = l;
        weight[i] = wt;
      }
    });
    WriteReduced<T>(c, reduction, loss, weight);
  });
}
OF_KERNEL("_softmax_cross_entropy", kCPU, kFloatingDTypes, &SoftmaxCrossEntropyKernel);

// (grad_output, input, target, weight, reduction, ignore_index, label_smoothing, lse, total_weight)
void SoftmaxCrossEntropyBackwardKernel(OpCall& c) {
  namespace args = arg::_softmax_cross_entropy_backward;
  const TensorImplPtr x = Contiguous(c.tensor(args::input));
  const int64_t rows = x->shape()[0], classes = x->shape()[1];
  const std::string& reduction = c.args[args::reduction].str();
  const int64_t ignore = c.get(args::ignore_index);
  const double eps = c.get(args::label_smoothing);
  const std::vector<int64_t> target =
      ReadTargets(c.tensor(args::target), classes, ignore, "cross_entropy");
  const std::vector<double> scale =
      RowScales(c, args::grad_output, reduction, args::total_weight, rows);
  const std::vector<double> lse = ReadDoubles(c.tensor(args::lse), rows);
  DispatchFloating(c.compute_dtype, "cross_entropy_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const std::vector<WeightT<T>> wv = ReadWeights<T>(c, args::weight);
    const WeightT<T>* w = wv.empty() ? nullptr : wv.data();
    double w_sum = w ? 0 : static_cast<double>(classes);
    for (auto v : wv) w_sum += v;
    const T* xp = reinterpret_cast<const T*>(x->data());
    T* out = reinterpret_cast<T*>(c.outputs[0]->data());
    ParallelFor(rows, RowGrain(classes), [&](int64_t begin, int64_t end) {
      Scratch scratch;
      for (int64_t i = begin; i < end; ++i) {
        T* orow = out + i * classes;
        const int64_t t = target[i];
        if (t == ignore) {
          std::fill(orow, orow + classes, static_cast<T>(0.0f));
          continue;
        }
        const double s = scale[i];
        const double wt = w ? static_cast<double>(w[t]) : 1.0;
        const double a = s * ((1 - eps) * wt + eps * w_sum / classes);
        RowGradT<T>(xp + i * classes, classes, lse[i], a, s * eps / classes, w, orow, scratch);
        orow[t] = static_cast<T>(static_cast<double>(orow[t]) - s * (1 - eps) * wt);
      }
    });
  });
}
OF_KERNEL("_softmax_cross_entropy_backward", kCPU, kFloatingDTypes,
          &SoftmaxCrossEntropyBackwardKernel);

// ---- nll_loss ---------------------------------------------------------------

// loss_i = -w_t x[i, t]; reads only the picked elements (any strides).
void NllLossKernel(OpCall& c) {
  namespace a = arg::_nll_loss;
  const TensorImplPtr& x = c.tensor(a::input);
  const int64_t rows = x->shape()[0], classes = x->shape()[1];
  const int64_t s0 = x->stride()[0], s1 = x->stride()[1];
  const std::string& reduction = c.args[a::reduction].str();
  const int64_t ignore = c.get(a::ignore_index);
  const std::vector<int64_t> target = ReadTargets(c.tensor(a::target), classes, ignore, "nll_loss");
  DispatchFloating(c.compute_dtype, "nll_loss", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const std::vector<WeightT<T>> wv = ReadWeights<T>(c, a::weight);
    const T* xp = reinterpret_cast<const T*>(x->data());
    std::vector<double> loss(rows), weight(rows);
    for (int64_t i = 0; i < rows; ++i) {
      const int64_t t = target[i];
      if (t == ignore) {
        loss[i] = weight[i] = 0;
        continue;
      }
      weight[i] = wv.empty() ? 1.0 : static_cast<double>(wv[t]);
      loss[i] = -weight[i] * static_cast<double>(xp[i * s0 + t * s1]);
    }
    WriteReduced<T>(c, reduction, loss, weight);
  });
}
OF_KERNEL("_nll_loss", kCPU, kFloatingDTypes, &NllLossKernel);

// (grad_output, input, target, weight, reduction, ignore_index, total_weight):
// zeros but -w_t s_i at [i, t].
void NllLossBackwardKernel(OpCall& c) {
  namespace a = arg::_nll_loss_backward;
  const TensorImplPtr& x = c.tensor(a::input);
  const int64_t rows = x->shape()[0], classes = x->shape()[1];
  const std::string& reduction = c.args[a::reduction].str();
  const int64_t ignore = c.get(a::ignore_index);
  const std::vector<int64_t> target = ReadTargets(c.tensor(a::target), classes, ignore, "nll_loss");
  const std::vector<double> scale = RowScales(c, a::grad_output, reduction, a::total_weight, rows);
  DispatchFloating(c.compute_dtype, "nll_loss_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const std::vector<WeightT<T>> wv = ReadWeights<T>(c, a::weight);
    T* out = reinterpret_cast<T*>(c.outputs[0]->data());
    ParallelFor(rows, RowGrain(classes), [&](int64_t begin, int64_t end) {
      std::fill(out + begin * classes, out + end * classes, static_cast<T>(0.0f));
      for (int64_t i = begin; i < end; ++i) {
        const int64_t t = target[i];
        if (t == ignore) continue;
        const double wt = wv.empty() ? 1.0 : static_cast<double>(wv[t]);
        out[i * classes + t] = static_cast<T>(-wt * scale[i]);
      }
    });
  });
}
OF_KERNEL("_nll_loss_backward", kCPU, kFloatingDTypes, &NllLossBackwardKernel);

// ---- binary cross entropy ---------------------------------------------------

// -(t log x + (1 - t) log(1 - x)), each log clamped at -100; x must lie in [0, 1].
void BinaryCrossEntropyKernel(OpCall& c) {
  const TensorImplPtr& input = c.tensor(arg::_binary_cross_entropy::input);
  const TensorImplPtr& target = c.tensor(arg::_binary_cross_entropy::target);
  std::atomic<bool> out_of_range{false};
  DispatchFloating(c.compute_dtype, "binary_cross_entropy", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = AccT<T>;
    BinaryLoop<T, T>(*input, *target, *c.outputs[0], [&](A x, A t) -> A {
      if (!(x >= A(0) && x <= A(1))) out_of_range.store(true, std::memory_order_relaxed);
      A log_x = std::max(std::log(x), A(-100));
      A log_1mx = std::max(std::log1p(-x), A(-100));
      return (t - A(1)) * log_1mx - t * log_x;
    });
  });
  OF_CHECK(!out_of_range.load(), RuntimeError,
           "binary_cross_entropy(): all elements of input should be between 0 and 1 (input ",
           ShapeToString(input->shape()), ")");
}
OF_KERNEL("_binary_cross_entropy", kCPU, kFloatingDTypes, &BinaryCrossEntropyKernel);

// ---- mse, l1, smooth_l1, huber ----------------------------------------------

// out = f(a, b, c) over three operands broadcast to out: split across threads
// when all are dense, else the strided loop.
template <typename T, typename F>
void TernaryDense(const TensorImpl& a, const TensorImpl& b, const TensorImpl& c, TensorImpl& out,
                  F f) {
  using A = AccT<T>;
  const int64_t n = out.numel();
  if (out.is_contiguous() && a.is_contiguous() && b.is_contiguous() && c.is_contiguous() &&
      a.numel() == n && b.numel() == n && c.numel() == n) {
    const T* pa = reinterpret_cast<const T*>(a.data());
    const T* pb = reinterpret_cast<const T*>(b.data());
    const T* pc = reinterpret_cast<const T*>(c.data());
    T* po = reinterpret_cast<T*>(out.data());
    ParallelFor(n, kElementwiseGrain, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        po[i] =
            static_cast<T>(f(static_cast<A>(pa[i]), static_cast<A>(pb[i]), static_cast<A>(pc[i])));
      }
    });
    return;
  }
  TernaryLoop<T, T>(a, b, c, out, f);
}

Pointwise PointwiseKind(const std::string& kind, const char* op) {
  if (kind == "mse") return Pointwise::kMse;
  if (kind == "l1") return Pointwise::kL1;
  if (kind == "smooth_l1") return Pointwise::kSmoothL1;
  if (kind == "huber") return Pointwise::kHuber;
  OF_THROW(RuntimeError, op, "(): unknown kind '", kind, "'");
}

// Whether float32 operands can take the vector path: all dense, none broadcast.
bool DenseFloats(const OpCall& c, std::initializer_list<int> args) {
  if (c.compute_dtype != DType::kFloat32 || !c.outputs[0]->is_contiguous()) return false;
  for (int i : args) {
    const TensorImplPtr& t = c.tensor(i);
    if (!t->is_contiguous() || t->numel() != c.outputs[0]->numel()) return false;
  }
  return true;
}

const float* FloatData(const OpCall& c, int i) {
  return reinterpret_cast<const float*>(c.tensor(i)->data());
}

// (input, target, kind, param): the loss of d = input - target.
void PointwiseLossKernel(OpCall& c) {
  namespace a = arg::_pointwise_loss;
  const Pointwise kind = PointwiseKind(c.args[a::kind].str(), "_pointwise_loss");
  const double param = c.get(a::param);
  if (DenseFloats(c, {a::input, a::target})) {
    float* out = reinterpret_cast<float*>(c.outputs[0]->data());
    const float *x = FloatData(c, a::input), *t = FloatData(c, a::target);
    ParallelFor(c.outputs[0]->numel(), kElementwiseGrain, [&](int64_t b, int64_t e) {
      PointwiseF(kind, static_cast<float>(param), e - b, out + b, x + b, t + b);
    });
    return;
  }
  DispatchFloating(c.compute_dtype, "pointwise_loss", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = AccT<T>;
    const TensorImpl &x = *c.tensor(a::input), &t = *c.tensor(a::target);
    TensorImpl& out = *c.outputs[0];
    const A p = static_cast<A>(param);
    switch (kind) {
      case Pointwise::kMse:
        return BinaryLoop<T, T>(x, t, out, [](A a, A b) -> A { return (a - b) * (a - b); });
      case Pointwise::kL1:
        return BinaryLoop<T, T>(x, t, out, [](A a, A b) -> A { return std::abs(a - b); });
      case Pointwise::kSmoothL1:
        return BinaryLoop<T, T>(x, t, out, [p](A a, A b) -> A {
          A z = std::abs(a - b);
          return z < p ? A(0.5) * z * z / p : z - A(0.5) * p;
        });
      case Pointwise::kHuber:
        return BinaryLoop<T, T>(x, t, out, [p](A a, A b) -> A {
          A z = std::abs(a - b);
          return z < p ? A(0.5) * z * z : p * (z - A(0.5) * p);
        });
    }
  });
}
OF_KERNEL("_pointwise_loss", kCPU, kFloatingDTypes, &PointwiseLossKernel);

// (grad, input, target, kind, param): grad f'(input - target), PyTorch's
// formulas (the kinks of smooth_l1 and huber go to the outer pieces; l1's
// gradient at d = 0 is 0).
void PointwiseLossBackwardKernel(OpCall& c) {
  namespace args = arg::_pointwise_loss_backward;
  const Pointwise kind = PointwiseKind(c.args[args::kind].str(), "_pointwise_loss_backward");
  const double param = c.get(args::param);
  if (DenseFloats(c, {args::grad, args::input, args::target})) {
    float* out = reinterpret_cast<float*>(c.outputs[0]->data());
    const float *g = FloatData(c, args::grad), *x = FloatData(c, args::input),
                *t = FloatData(c, args::target);
    ParallelFor(c.outputs[0]->numel(), kElementwiseGrain, [&](int64_t b, int64_t e) {
      PointwiseBackwardF(kind, static_cast<float>(param), e - b, out + b, g + b, x + b, t + b);
    });
    return;
  }
  DispatchFloating(c.compute_dtype, "pointwise_loss_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = AccT<T>;
    const TensorImpl &g = *c.tensor(args::grad), &x = *c.tensor(args::input),
                     &t = *c.tensor(args::target);
    TensorImpl& out = *c.outputs[0];
    const A p = static_cast<A>(param);
    switch (kind) {
      case Pointwise::kMse:
        return TernaryDense<T>(g, x, t, out,
                               [](A gv, A a, A b) -> A { return A(2) * (a - b) * gv; });
      case Pointwise::kL1:
        return TernaryDense<T>(g, x, t, out, [](A gv, A a, A b) -> A {
          A d = a - b;
          return static_cast<A>((A(0) < d) - (d < A(0))) * gv;
        });
      case Pointwise::kSmoothL1:
        return TernaryDense<T>(g, x, t, out, [p](A gv, A a, A b) -> A {
          A d = a - b;
          return d <= -p ? -gv : (d >= p ? gv : d * gv / p);
        });
      case Pointwise::kHuber:
        return TernaryDense<T>(g, x, t, out, [p](A gv, A a, A b) -> A {
          A d = a - b;
          return d <= -p ? -gv * p : (d >= p ? gv * p : d * gv);
        });
    }
  });
}
OF_KERNEL("_pointwise_loss_backward", kCPU, kFloatingDTypes, &PointwiseLossBackwardKernel);

}  // namespace
}  // namespace cpu
}  // namespace oneflow

#else  // OF_ISA: one instruction set's row passes -------------------------------------

namespace oneflow {
namespace cpu {
namespace {
namespace OF_ISA {

using V = OF_ISA_VEC;

#include "ops/cpu/vec_math.inc"  // NOLINT(build/include): VExp, VAbs, MapV, LoadTail

RowStats RowStatsOf(const float* x, int64_t n, const float* w, bool weighted_sum) {
  constexpr int64_t kW = sizeof(V) / sizeof(float);
  const int64_t full = n / kW * kW, rest = n - full;
  V m = Splat<V>(-INFINITY);
  V dot = Splat<V>(0);
  for (int64_t i = 0; i < full; i += kW) {
    V v;
    std::memcpy(&v, x + i, sizeof(V));
    m = ((v > m) | (v != v)) ? v : m;  // NaN sticks
    if (weighted_sum) {
      if (w) {
        V wv;
        std::memcpy(&wv, w + i, sizeof(V));
        dot += v * wv;
      } else {
        dot += v;
      }
    }
  }
  if (rest) {
    V v = LoadTail<V>(x + full, rest, -INFINITY);
    m = ((v > m) | (v != v)) ? v : m;
    if (weighted_sum) {
      V v0 = LoadTail<V>(x + full, rest, 0);
      dot += w ? v0 * LoadTail<V>(w + full, rest, 0) : v0;
    }
  }
  float mx = -INFINITY;
  for (int64_t k = 0; k < kW; ++k) {
    if (std::isnan(m[k])) {
      mx = m[k];
      break;
    }
    mx = m[k] > mx ? m[k] : mx;
  }
  V s = Splat<V>(0);
  const V mv = Splat<V>(mx);
  for (int64_t i = 0; i < full; i += kW) {
    V v;
    std::memcpy(&v, x + i, sizeof(V));
    s += VExp(v - mv);
  }
  if (rest) s += VExp(LoadTail<V>(x + full, rest, -INFINITY) - mv);
  return {mx, SumLanes(s), SumLanes(dot)};
}

// out_c = exp(x_c - lse) a - b w_c (w = 1 when null).
void RowGradOf(const float* x, int64_t n, float lse, float a, float b, const float* w, float* out) {
  constexpr int64_t kW = sizeof(V) / sizeof(float);
  const V lv = Splat<V>(lse), av = Splat<V>(a), bv = Splat<V>(b);
  int64_t i = 0;
  for (; i + kW <= n; i += kW) {
    V v, wv = Splat<V>(1);
    std::memcpy(&v, x + i, sizeof(V));
    if (w) std::memcpy(&wv, w + i, sizeof(V));
    V r = VExp(v - lv) * av - bv * wv;
    std::memcpy(out + i, &r, sizeof(V));
  }
  if (i < n) {
    V v = LoadTail<V>(x + i, n - i, 0);
    V wv = w ? LoadTail<V>(w + i, n - i, 0) : Splat<V>(1);
    V r = VExp(v - lv) * av - bv * wv;
    std::memcpy(out + i, &r, (n - i) * sizeof(float));
  }
}

void PointwiseOf(Pointwise kind, float p, int64_t n, float* out, const float* x, const float* t) {
  switch (kind) {
    case Pointwise::kMse:
      return MapV<V>([](const V& a, const V& b) OF_INLINE_LAMBDA { return (a - b) * (a - b); }, n,
                     out, x, t);
    case Pointwise::kL1:
      return MapV<V>([](const V& a, const V& b) OF_INLINE_LAMBDA { return VAbs(a - b); }, n, out, x,
                     t);
    case Pointwise::kSmoothL1:
      return MapV<V>(
          [p](const V& a, const V& b) OF_INLINE_LAMBDA {
            V z = VAbs(a - b);
            return z < p ? 0.5f * z * z / p : z - 0.5f * p;
          },
          n, out, x, t);
    case Pointwise::kHuber:
      return MapV<V>(
          [p](const V& a, const V& b) OF_INLINE_LAMBDA {
            V z = VAbs(a - b);
            return z < p ? 0.5f * z * z : p * (z - 0.5f * p);
          },
          n, out, x, t);
  }
}

void PointwiseBackwardOf(Pointwise kind, float p, int64_t n, float* out, const float* g,
                         const float* x, const float* t) {
  switch (kind) {
    case Pointwise::kMse:
      return MapV<V>([](const V& gv, const V& a, const V& b)
                         OF_INLINE_LAMBDA { return 2.f * (a - b) * gv; },
                     n, out, g, x, t);
    case Pointwise::kL1:
      return MapV<V>(
          [](const V& gv, const V& a, const V& b) OF_INLINE_LAMBDA {
            V d = a - b;
            V sign = (d > 0.f ? Splat<V>(1) : Splat<V>(0)) - (d < 0.f ? Splat<V>(1) : Splat<V>(0));
            return sign * gv;
          },
          n, out, g, x, t);
    case Pointwise::kSmoothL1:
      return MapV<V>(
          [p](const V& gv, const V& a, const V& b) OF_INLINE_LAMBDA {
            V d = a - b;
            return d <= -p ? -gv : (d >= p ? gv : d * gv / p);
          },
          n, out, g, x, t);
    case Pointwise::kHuber:
      return MapV<V>(
          [p](const V& gv, const V& a, const V& b) OF_INLINE_LAMBDA {
            V d = a - b;
            return d <= -p ? -gv * p : (d >= p ? gv * p : d * gv);
          },
          n, out, g, x, t);
  }
}

}  // namespace OF_ISA
}  // namespace
}  // namespace cpu
}  // namespace oneflow

#endif  // OF_ISA
