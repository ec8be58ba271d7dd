#ifndef OPS_CPU_VISION_COMMON_H_
#define OPS_CPU_VISION_COMMON_H_

// What the vision kernels (upsample_kernels.cc, grid_sampler_kernels.cc,
// im2col_kernels.cc) share: the work grain, the float path of 16-bit floats,
// typed pointers and the cubic convolution kernel.

#include <algorithm>
#include <string>

#include "ops/cpu/loops.h"
#include "ops/defs/common.h"

namespace oneflow {
namespace cpu {

// Work per ParallelFor chunk, in output elements times taps.
constexpr int64_t kWorkGrain = 16384;

inline int64_t Grain(int64_t work_per_item) {
  return std::max<int64_t>(1, kWorkGrain / std::max<int64_t>(1, work_per_item));
}

// Half and BFloat16 run the float kernel on float copies.
template <KernelFn kFn>
void ViaFloat(OpCall& c) {
  const DType d = c.compute_dtype;
  if (d != DType::kFloat16 && d != DType::kBFloat16) return kFn(c);
  OpCall f = c;
  for (Value& v : f.args) {
    if (v.is_tensor() && v.tensor() && v.tensor()->dtype() == d)
      v = Value(ToDType(v.tensor(), DType::kFloat32, false));
  }
  for (auto& o : f.outputs) o = TensorImpl::Empty(o->shape(), DType::kFloat32, o->device());
  f.compute_dtype = DType::kFloat32;
  kFn(f);
  for (size_t i = 0; i < c.outputs.size(); ++i) CopyInto(f.outputs[i], c.outputs[i]);
}

template <typename Fn>
void DispatchFloatDouble(DType d, const std::string& op, Fn&& fn) {
  if (d == DType::kFloat32) return fn(TypeTag<float>{});
  if (d == DType::kFloat64) return fn(TypeTag<double>{});
  OF_THROW(NotImplementedError, "\"", op, "\" not implemented for '", DTypeName(d), "'");
}

template <typename T>
const T* Ptr(const TensorImplPtr& t) {
  return reinterpret_cast<const T*>(t->data());
}
template <typename T>
T* MutPtr(const TensorImplPtr& t) {
  return reinterpret_cast<T*>(t->data());
}

// Keys' cubic convolution kernel with A = -0.75: weights of the 4 taps around
// a point at fraction t past the second.
template <typename T>
void CubicWeights(T t, T w[4]) {
  const T a = T(-0.75);
  auto near = [a](T x) { return ((a + 2) * x - (a + 3)) * x * x + 1; };       // |x| <= 1
  auto far = [a](T x) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; };  // 1 < |x| < 2
  w[0] = far(t + 1);
  w[1] = near(t);
  w[2] = near(1 - t);
  w[3] = far(2 - t);
}

// d w[i] / d t.
template <typename T>
void CubicWeightGrads(T t, T g[4]) {
  const T a = T(-0.75);
  auto near = [a](T x) { return (3 * (a + 2) * x - 2 * (a + 3)) * x; };
  auto far = [a](T x) { return (3 * a * x - 10 * a) * x + 8 * a; };
  g[0] = far(t + 1);
  g[1] = near(t);
  g[2] = -near(1 - t);
  g[3] = -far(2 - t);
}

}  // namespace cpu
}  // namespace oneflow

#endif  // OPS_CPU_VISION_COMMON_H_
