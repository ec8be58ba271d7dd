#ifndef OPS_CPU_LOSS_COMMON_H_
#define OPS_CPU_LOSS_COMMON_H_

// What the loss kernels (loss_kernels.cc, ctc_loss_kernels.cc) share.

#include <vector>

#include "core/runtime/view_ops.h"
#include "ops/cpu/loops.h"
#include "ops/defs/common.h"

namespace oneflow {
namespace cpu {

// The values of a floating tensor broadcast to `n` elements, as doubles.
inline std::vector<double> ReadDoubles(const TensorImplPtr& t, int64_t n) {
  TensorImplPtr d = Contiguous(t->numel() == n ? Reshape(t, {n}) : Expand(Reshape(t, {}), {n}));
  std::vector<double> out(n);
  DispatchFloating(d->dtype(), "loss", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = reinterpret_cast<const T*>(d->data());
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<double>(p[i]);
  });
  return out;
}

}  // namespace cpu
}  // namespace oneflow

#endif  // OPS_CPU_LOSS_COMMON_H_
