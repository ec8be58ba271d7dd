#ifndef OPS_CPU_NORM_COMMON_H_
#define OPS_CPU_NORM_COMMON_H_

// What the normalization kernels (row_norm_kernels.cc, batch_norm_kernels.cc)
// share: reading and writing the small parameter and statistics tensors, and
// the moments of a span of values merged pairwise in double.

#include <algorithm>
#include <cstring>
#include <mutex>
#include <vector>

#include "core/runtime/tensor_ops.h"
#include "ops/cpu/isa.h"
#include "ops/cpu/loops.h"
#include "ops/defs/common.h"

namespace oneflow {
namespace cpu {

// Values of a small tensor (parameters, statistics) as a vector of A.
template <typename A>
std::vector<A> ToVector(const TensorImplPtr& t) {
  std::vector<A> v(t ? t->numel() : 0);
  if (v.empty()) return v;
  TensorImplPtr c = Contiguous(ToDType(t, DTypeOf<A>::value, false));
  std::memcpy(v.data(), c->data(), v.size() * sizeof(A));
  return v;
}

// Writes `v` into `out` (any floating dtype, any layout), converting.
template <typename A>
void StoreVector(const std::vector<A>& v, const TensorImplPtr& out) {
  if (v.empty() || out->numel() == 0) return;
  TensorImplPtr dst =
      out->is_contiguous() ? out : TensorImpl::Empty(out->shape(), out->dtype(), out->device());
  DispatchFloating(out->dtype(), "norm", [&](auto tag) {
    using S = typename decltype(tag)::type;
    S* p = reinterpret_cast<S*>(dst->data());
    for (size_t i = 0; i < v.size(); ++i) p[i] = static_cast<S>(v[i]);
  });
  if (dst != out) CopyInto(dst, out);
}

// An output the mask leaves out (shape [0]) is not computed.
inline TensorImplPtr Wanted(const OpCall& c, int i) {
  return c.outputs[i]->numel() > 0 ? c.outputs[i] : nullptr;
}

// Sums longer than this are finished in double (float lanes lose digits).
constexpr int64_t kBlock = 4096;

// Count, mean and sum of squared deviations of a set of values; two sets merge
// exactly (Chan, Golub and LeVeque's pairwise update), so statistics can be
// gathered from pieces that are each read once.
struct Moments {
  double n = 0, mean = 0, m2 = 0;
  void Merge(double nb, double mean_b, double m2_b) {
    if (nb == 0) return;
    const double total = n + nb, d = mean_b - mean;
    mean += d * nb / total;
    m2 += m2_b + d * d * n * nb / total;
    n = total;
  }
  void Merge(const Moments& o) { Merge(o.n, o.mean, o.m2); }
};

// Partial sums per reduction: kLanes independent accumulators (several vector
// registers on every instruction set), so consecutive adds do not wait on each
// other; with one accumulator an AVX2 reduction is bound by the add latency.
constexpr int kLanes = 32;

// sum(x[i]) and sum((x[i] - m)^2) over len values, in kLanes partial sums.
template <typename T, bool kSquaredDeviation>
OF_INLINE AccT<T> LaneSum(const T* x, int64_t len, AccT<T> m) {
  using A = AccT<T>;
  A acc[kLanes] = {};
  auto term = [m](A v) OF_INLINE_LAMBDA {
    if constexpr (kSquaredDeviation) {
      return (v - m) * (v - m);
    } else {
      return v;
    }
  };
  int64_t i = 0;
  for (; i + kLanes <= len; i += kLanes) {
#pragma omp simd
    for (int j = 0; j < kLanes; ++j) acc[j] += term(static_cast<A>(x[i + j]));
  }
  A s = 0;
  for (; i < len; ++i) s += term(static_cast<A>(x[i]));
  for (int j = 0; j < kLanes; ++j) s += acc[j];
  return s;
}

// Moments of n contiguous values: per block of kBlock values (in cache) the
// mean, then the squared deviations from it; blocks merge in double.
template <typename T>
OF_INLINE Moments SpanMoments(const T* x, int64_t n) {
  using A = AccT<T>;
  Moments mo;
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t len = std::min(kBlock, n - b);
    const A m = LaneSum<T, false>(x + b, len, A(0)) / static_cast<A>(len);
    mo.Merge(static_cast<double>(len), m, LaneSum<T, true>(x + b, len, m));
  }
  return mo;
}

// Adds a chunk's partial sums into the total under a lock.
template <typename A>
void Merge(std::mutex& mu, std::vector<A>& total, const std::vector<A>& part) {
  std::lock_guard<std::mutex> lock(mu);
  for (size_t i = 0; i < total.size(); ++i) total[i] += part[i];
}

}  // namespace cpu
}  // namespace oneflow

#endif  // OPS_CPU_NORM_COMMON_H_
