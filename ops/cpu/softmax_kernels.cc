// CPU kernels of softmax and log_softmax (ops/defs/softmax.cc) and of their
// gradients.
//
// The input is viewed as [outer, n, inner] with the softmax dim in the middle.
// With inner == 1 every row is contiguous: one pass finds the row's max, one
// computes exp(x - max) (stored, and summed), one scales by 1 / sum, all while
// the row is in cache. Otherwise the same passes run on blocks of the inner
// dim, vectorized across it. The max is subtracted first, so large inputs do
// not overflow. Rows (or blocks) are split over threads; the loops are built
// for AVX-512, AVX2 and baseline x86-64 and picked at run time. exp is VExp of
// vec_math.inc for float; 16-bit floats compute in float, float64 uses
// std::exp.

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

#include "core/runtime/tensor_ops.h"
#include "ops/cpu/isa.h"
#include "ops/cpu/loops.h"
#include "ops/cpu/vec_types.h"
#include "ops/defs/common.h"

namespace oneflow {
namespace cpu {
namespace {

constexpr DeviceType kCPU = DeviceType::kCPU;

// Exp<A>: VExp for float (vectorized in `omp simd` loops), std::exp for double.
#include "ops/cpu/vec_math.inc"  // NOLINT(build/include)

// ---- contiguous rows -------------------------------------------------------------------

template <typename A>
OF_INLINE A RowMax(const A* x, int64_t n) {
  A m = -std::numeric_limits<A>::infinity();
#pragma omp simd reduction(max : m)
  for (int64_t i = 0; i < n; ++i) m = x[i] > m ? x[i] : m;
  return m;
}

template <typename A>
OF_INLINE void SoftmaxRow(const A* x, A* y, int64_t n, bool log) {
  const A m = RowMax(x, n);
  A s = 0;
  if (log) {
#pragma omp simd reduction(+ : s)
    for (int64_t i = 0; i < n; ++i) s += Exp<A>(x[i] - m);
    const A lse = m + std::log(s);
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) y[i] = x[i] - lse;
    return;
  }
#pragma omp simd reduction(+ : s)
  for (int64_t i = 0; i < n; ++i) {
    const A e = Exp<A>(x[i] - m);
    y[i] = e;
    s += e;
  }
  const A inv = A(1) / s;
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) y[i] *= inv;
}

// softmax: dx = y * (g - sum(g * y)); log_softmax: dx = g - exp(y) * sum(g).
template <typename A>
OF_INLINE void SoftmaxBackwardRow(const A* g, const A* y, A* dx, int64_t n, bool log) {
  A s = 0;
  if (log) {
#pragma omp simd reduction(+ : s)
    for (int64_t i = 0; i < n; ++i) s += g[i];
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) dx[i] = g[i] - Exp<A>(y[i]) * s;
    return;
  }
#pragma omp simd reduction(+ : s)
  for (int64_t i = 0; i < n; ++i) s += g[i] * y[i];
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) dx[i] = y[i] * (g[i] - s);
}

template <typename T>
OF_INLINE void ToAcc(const T* src, AccT<T>* dst, int64_t n) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<AccT<T>>(src[i]);
}

template <typename T>
OF_INLINE void FromAcc(const AccT<T>* src, T* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<T>(src[i]);
}

template <typename T>
constexpr bool kNative = std::is_same_v<T, AccT<T>>;

// One softmax problem: [outer, n, inner]; a backward problem also reads g.
template <typename T>
struct SmArgs {
  const T* x;  // input, or y for the backward
  const T* g;  // backward only
  T* y;        // output
  int64_t outer, n, inner;
  bool log;
};

// Rows [r0, r1) of an inner == 1 problem. 16-bit types go through float rows.
template <typename T, bool kBackward>
OF_INLINE void RowsImpl(const SmArgs<T>& p, int64_t r0, int64_t r1) {
  using A = AccT<T>;
  const int64_t n = p.n;
  if constexpr (kNative<T>) {
    for (int64_t r = r0; r < r1; ++r) {
      if constexpr (kBackward) {
        SoftmaxBackwardRow<A>(p.g + r * n, p.x + r * n, p.y + r * n, n, p.log);
      } else {
        SoftmaxRow<A>(p.x + r * n, p.y + r * n, n, p.log);
      }
    }
  } else {
    std::vector<A> buf((kBackward ? 3 : 2) * n);
    A* a = buf.data();
    A* b = a + n;
    A* c = b + n;
    for (int64_t r = r0; r < r1; ++r) {
      ToAcc(p.x + r * n, a, n);
      if constexpr (kBackward) {
        ToAcc(p.g + r * n, c, n);
        SoftmaxBackwardRow<A>(c, a, b, n, p.log);
      } else {
        SoftmaxRow<A>(a, b, n, p.log);
      }
      FromAcc(b, p.y + r * n, n);
    }
  }
}

// ---- strided rows (inner > 1) ------------------------------------------------------------
//
// A unit is (outer index, block of up to kCols inner positions); its n x cols
// values are processed with per-column running max and sum.

constexpr int64_t kCols = 256;

template <typename T, bool kBackward>
OF_INLINE void ColsImpl(const SmArgs<T>& p, int64_t u0, int64_t u1) {
  using A = AccT<T>;
  const int64_t blocks = (p.inner + kCols - 1) / kCols;
  A m[kCols], s[kCols], a[kCols], gb[kCols];
  for (int64_t u = u0; u < u1; ++u) {
    const int64_t o = u / blocks, j0 = (u % blocks) * kCols;
    const int64_t w = std::min(kCols, p.inner - j0);
    const int64_t base = o * p.n * p.inner + j0;
    if constexpr (kBackward) {
      // s = sum(g * y) (softmax) or sum(g) (log_softmax) per column.
      for (int64_t j = 0; j < w; ++j) s[j] = 0;
      for (int64_t l = 0; l < p.n; ++l) {
        ToAcc(p.g + base + l * p.inner, gb, w);
        ToAcc(p.x + base + l * p.inner, a, w);
        if (p.log) {
#pragma omp simd
          for (int64_t j = 0; j < w; ++j) s[j] += gb[j];
        } else {
#pragma omp simd
          for (int64_t j = 0; j < w; ++j) s[j] += gb[j] * a[j];
        }
      }
      for (int64_t l = 0; l < p.n; ++l) {
        ToAcc(p.g + base + l * p.inner, gb, w);
        ToAcc(p.x + base + l * p.inner, a, w);
        if (p.log) {
#pragma omp simd
          for (int64_t j = 0; j < w; ++j) a[j] = gb[j] - Exp<A>(a[j]) * s[j];
        } else {
#pragma omp simd
          for (int64_t j = 0; j < w; ++j) a[j] = a[j] * (gb[j] - s[j]);
        }
        FromAcc(a, p.y + base + l * p.inner, w);
      }
      continue;
    }
    for (int64_t j = 0; j < w; ++j) {
      m[j] = -std::numeric_limits<A>::infinity();
      s[j] = 0;
    }
    for (int64_t l = 0; l < p.n; ++l) {
      ToAcc(p.x + base + l * p.inner, a, w);
#pragma omp simd
      for (int64_t j = 0; j < w; ++j) m[j] = a[j] > m[j] ? a[j] : m[j];
    }
    for (int64_t l = 0; l < p.n; ++l) {
      ToAcc(p.x + base + l * p.inner, a, w);
#pragma omp simd
      for (int64_t j = 0; j < w; ++j) s[j] += Exp<A>(a[j] - m[j]);
    }
    if (p.log) {
      for (int64_t j = 0; j < w; ++j) s[j] = m[j] + std::log(s[j]);  // log-sum-exp
    } else {
      for (int64_t j = 0; j < w; ++j) s[j] = A(1) / s[j];
    }
    for (int64_t l = 0; l < p.n; ++l) {
      ToAcc(p.x + base + l * p.inner, a, w);
      if (p.log) {
#pragma omp simd
        for (int64_t j = 0; j < w; ++j) a[j] = a[j] - s[j];
      } else {
#pragma omp simd
        for (int64_t j = 0; j < w; ++j) a[j] = Exp<A>(a[j] - m[j]) * s[j];
      }
      FromAcc(a, p.y + base + l * p.inner, w);
    }
  }
}

// The row and column passes, run with the instruction set KernelIsa() picked.
template <typename T, bool kBackward>
void Rows(const SmArgs<T>& p, int64_t b, int64_t e) {
  RunForKernelIsa([&]() OF_INLINE_LAMBDA { RowsImpl<T, kBackward>(p, b, e); });
}
template <typename T, bool kBackward>
void Cols(const SmArgs<T>& p, int64_t b, int64_t e) {
  RunForKernelIsa([&]() OF_INLINE_LAMBDA { ColsImpl<T, kBackward>(p, b, e); });
}

// Runs a forward (g == null) or backward problem over `x` (contiguous) into `out`.
void RunSoftmax(const TensorImplPtr& x, const TensorImplPtr& g, const TensorImplPtr& out,
                int64_t dim, bool log, const char* op) {
  const int64_t nd = x->ndim();
  const int64_t d = WrapDim(dim, nd);
  int64_t outer = 1, inner = 1;
  const int64_t n = nd == 0 ? 1 : x->shape()[d];
  for (int64_t i = 0; i < d; ++i) outer *= x->shape()[i];
  for (int64_t i = d + 1; i < nd; ++i) inner *= x->shape()[i];
  if (x->numel() == 0) return;
  TensorImplPtr y =
      out->is_contiguous() ? out : TensorImpl::Empty(out->shape(), out->dtype(), out->device());
  DispatchFloating(x->dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    SmArgs<T> p{reinterpret_cast<const T*>(x->data()),
                g ? reinterpret_cast<const T*>(g->data()) : nullptr,
                reinterpret_cast<T*>(y->data()),
                outer,
                n,
                inner,
                log};
    if (inner == 1) {
      const int64_t grain = std::max<int64_t>(1, 16384 / n);
      ParallelFor(outer, grain, [&](int64_t b, int64_t e) {
        if (g) {
          Rows<T, true>(p, b, e);
        } else {
          Rows<T, false>(p, b, e);
        }
      });
    } else {
      const int64_t blocks = (inner + kCols - 1) / kCols;
      const int64_t grain = std::max<int64_t>(1, 16384 / (n * std::min(inner, kCols)));
      ParallelFor(outer * blocks, grain, [&](int64_t b, int64_t e) {
        if (g) {
          Cols<T, true>(p, b, e);
        } else {
          Cols<T, false>(p, b, e);
        }
      });
    }
  });
  if (y != out) CopyInto(y, out);
}

void SoftmaxKernel(OpCall& c) {
  RunSoftmax(Contiguous(c.tensor(arg::softmax::self)), nullptr, c.outputs[0],
             c.get(arg::softmax::dim), false, "softmax");
}
void LogSoftmaxKernel(OpCall& c) {
  RunSoftmax(Contiguous(c.tensor(arg::log_softmax::self)), nullptr, c.outputs[0],
             c.get(arg::log_softmax::dim), true, "log_softmax");
}
void SoftmaxBackwardKernel(OpCall& c) {
  RunSoftmax(Contiguous(c.tensor(arg::_softmax_backward::output)),
             Contiguous(c.tensor(arg::_softmax_backward::grad_output)), c.outputs[0],
             c.get(arg::_softmax_backward::dim), false, "softmax_backward");
}
void LogSoftmaxBackwardKernel(OpCall& c) {
  RunSoftmax(Contiguous(c.tensor(arg::_log_softmax_backward::output)),
             Contiguous(c.tensor(arg::_log_softmax_backward::grad_output)), c.outputs[0],
             c.get(arg::_log_softmax_backward::dim), true, "log_softmax_backward");
}
OF_KERNEL("softmax", kCPU, kFloatingDTypes, &SoftmaxKernel);
OF_KERNEL("log_softmax", kCPU, kFloatingDTypes, &LogSoftmaxKernel);
OF_KERNEL("_softmax_backward", kCPU, kFloatingDTypes, &SoftmaxBackwardKernel);
OF_KERNEL("_log_softmax_backward", kCPU, kFloatingDTypes, &LogSoftmaxBackwardKernel);

}  // namespace
}  // namespace cpu
}  // namespace oneflow
