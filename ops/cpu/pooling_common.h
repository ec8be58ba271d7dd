#ifndef OPS_CPU_POOLING_COMMON_H_
#define OPS_CPU_POOLING_COMMON_H_

// What the pooling kernels (pooling_kernels.cc, adaptive_pool_kernels.cc)
// share: plane geometry, window arithmetic helpers and the channels_last rule.

#include <cmath>
#include <limits>
#include <type_traits>
#include <utility>

#include "ops/cpu/loops.h"
#include "ops/defs/common.h"

namespace oneflow {
namespace cpu {

// Plane geometry with the spatial dims padded to 3 (leading ones of size 1).
struct PoolGeom {
  int64_t planes = 0;
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1};
  int64_t k[3] = {1, 1, 1}, s[3] = {1, 1, 1}, p[3] = {0, 0, 0}, d[3] = {1, 1, 1};
  int64_t in_plane() const { return in[0] * in[1] * in[2]; }
  int64_t out_plane() const { return out[0] * out[1] * out[2]; }
};

// Geometry of pooling `in_shape` to `out_shape` over the trailing `n` dims;
// window lists may be empty (adaptive pools, no dilation).
inline PoolGeom MakeGeom(const DimVector& in_shape, const DimVector& out_shape, int64_t n,
                         const DimVector& kernel = {}, const DimVector& stride = {},
                         const DimVector& padding = {}, const DimVector& dilation = {}) {
  PoolGeom g;
  const int64_t lead = static_cast<int64_t>(in_shape.size()) - n;
  g.planes = 1;
  for (int64_t i = 0; i < lead; ++i) g.planes *= in_shape[i];
  for (int64_t i = 0; i < n; ++i) {
    const int64_t j = 3 - n + i;
    g.in[j] = in_shape[lead + i];
    g.out[j] = out_shape[lead + i];
    if (!kernel.empty()) g.k[j] = kernel[i];
    if (!stride.empty()) g.s[j] = stride[i];
    if (!padding.empty()) g.p[j] = padding[i];
    if (!dilation.empty()) g.d[j] = dilation[i];
  }
  return g;
}

// Planes per ParallelFor chunk: about 32K inner iterations each.
inline int64_t PlaneGrain(int64_t work_per_plane) {
  return std::max<int64_t>(1, 32768 / std::max<int64_t>(1, work_per_plane));
}

template <typename T>
inline bool IsNan(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::isnan(v);
  } else {
    return false;
  }
}

template <typename A>
constexpr A LowestValue() {
  if constexpr (std::numeric_limits<A>::has_infinity) {
    return -std::numeric_limits<A>::infinity();
  } else {
    return std::numeric_limits<A>::lowest();
  }
}

// The sum of n consecutive elements in A, with independent partial sums (a
// single running sum is one long dependency chain; these vectorize).
template <typename A, typename T>
inline A SumSpan(const T* p, int64_t n) {
  A part[8] = {};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (int j = 0; j < 8; ++j) part[j] += static_cast<A>(p[i + j]);
  }
  for (; i < n; ++i) part[0] += static_cast<A>(p[i]);
  return ((part[0] + part[1]) + (part[2] + part[3])) + ((part[4] + part[5]) + (part[6] + part[7]));
}

// ---- channels_last -----------------------------------------------------------------
//
// A batched 2-d (3-d) input in channels_last gets channels_last outputs (see
// PoolStrides in ops/defs/pooling.cc). Max pooling and adaptive average
// pooling run on that layout directly: an (N, *spatial, C) array, whose
// windows are vectors of C channels. The other kernels compute in NCHW and
// copy into the outputs (RunContiguous).

// The channels_last format the (allocated) output `out` has over `n` spatial
// dims, or contiguous when it has not.
inline MemoryFormat ChannelsLastOut(const TensorImplPtr& out, int64_t n) {
  if (n < 2 || out->ndim() != n + 2 || out->is_contiguous()) return MemoryFormat::kContiguous;
  const MemoryFormat f = n == 2 ? MemoryFormat::kChannelsLast : MemoryFormat::kChannelsLast3d;
  return IsContiguousAs(out->shape(), out->stride(), f) ? f : MemoryFormat::kContiguous;
}

// Runs kernel(c) with contiguous outputs: any that is not is replaced by a
// contiguous buffer, copied into it afterwards.
template <typename Kernel>
void RunContiguous(OpCall& c, Kernel&& kernel) {
  TensorList given = c.outputs;
  bool any = false;
  for (auto& o : c.outputs) {
    if (o->is_contiguous()) continue;
    o = TensorImpl::Empty(o->shape(), o->dtype(), o->device());
    any = true;
  }
  kernel(c);
  if (!any) return;
  for (size_t i = 0; i < given.size(); ++i) {
    if (given[i] != c.outputs[i]) CopyInto(c.outputs[i], given[i]);
  }
  c.outputs = std::move(given);
}

}  // namespace cpu
}  // namespace oneflow

#endif  // OPS_CPU_POOLING_COMMON_H_
