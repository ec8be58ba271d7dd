// CPU kernels of the reductions declared in ops/defs/reduce.cc.

#include "ops/cpu/loops.h"
#include "ops/cpu/reduce.h"
#include "ops/defs/common.h"
#include "ops/defs/reduce.h"

namespace oneflow {
namespace cpu {
namespace {

constexpr DeviceType kCPU = DeviceType::kCPU;

// Floating sums accumulate in double, integer sums in int64.
template <typename T>
using SumAcc = std::conditional_t<kIsFloating<T>, double, int64_t>;

// Reduces each row of `plan` with f(acc, value) starting from init, then
// finish(acc, count) into out (contiguous, one element per row).
template <typename T, typename Acc, typename F, typename Finish>
void ReduceRows(const ReducePlan& plan, TensorImpl& out, Acc init, F f, Finish finish) {
  const T* in = reinterpret_cast<const T*>(plan.rows->data());
  T* o = reinterpret_cast<T*>(out.data());
  for (int64_t r = 0; r < plan.outer; ++r) {
    Acc acc = init;
    const T* row = in + r * plan.inner;
    for (int64_t i = 0; i < plan.inner; ++i) acc = f(acc, static_cast<AccT<T>>(row[i]));
    o[r] = static_cast<T>(finish(acc, plan.inner));
  }
}

std::vector<bool> AllDims(int64_t ndim) { return std::vector<bool>(ndim, true); }

template <bool kMean>
void SumKernel(OpCall& c, const std::vector<bool>& reduced) {
  ReducePlan plan = PlanReduce(c.tensor(0), reduced);
  DispatchNumeric(c.compute_dtype, kMean ? "mean" : "sum", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Acc = SumAcc<T>;
    ReduceRows<T, Acc>(
        plan, *c.outputs[0], Acc(0), [](Acc a, auto v) { return a + static_cast<Acc>(v); },
        [](Acc a, int64_t n) {
          if constexpr (kMean) {
            return static_cast<double>(a) / static_cast<double>(n);
          } else {
            return a;
          }
        });
  });
}

void SumAllKernel(OpCall& c) { SumKernel<false>(c, AllDims(c.tensor(0)->ndim())); }
void SumDimKernel(OpCall& c) {
  SumKernel<false>(c, defs::ReducedDims(c.args[1], c.tensor(0)->ndim(), "sum"));
}
void MeanAllKernel(OpCall& c) { SumKernel<true>(c, AllDims(c.tensor(0)->ndim())); }
void MeanDimKernel(OpCall& c) {
  SumKernel<true>(c, defs::ReducedDims(c.args[1], c.tensor(0)->ndim(), "mean"));
}

OF_KERNEL("sum", kCPU, kNumericDTypes, &SumAllKernel);
OF_KERNEL("sum.dim", kCPU, kNumericDTypes, &SumDimKernel);
OF_KERNEL("mean", kCPU, kFloatingDTypes, &MeanAllKernel);
OF_KERNEL("mean.dim", kCPU, kFloatingDTypes, &MeanDimKernel);

}  // namespace
}  // namespace cpu
}  // namespace oneflow
