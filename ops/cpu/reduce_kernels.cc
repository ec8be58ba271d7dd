// CPU kernels of the reductions and scans declared in ops/defs/reduce.cc.
// Floating values accumulate in double, integer sums in int64 and integer
// products in uint64 (wrapping like PyTorch's int64 arithmetic, without
// signed overflow).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "ops/cpu/loops.h"
#include "ops/cpu/reduce.h"
#include "ops/defs/common.h"
#include "ops/defs/reduce.h"

namespace oneflow {
namespace cpu {
namespace {

constexpr DeviceType kCPU = DeviceType::kCPU;
constexpr double kInf = std::numeric_limits<double>::infinity();

template <typename T>
using SumAcc = std::conditional_t<kIsFloating<T>, double, int64_t>;
template <typename T>
using ProdAcc = std::conditional_t<kIsFloating<T>, double, uint64_t>;

template <typename A>
bool IsNan(A v) {
  if constexpr (std::is_floating_point_v<A>) {
    return std::isnan(v);
  } else {
    return false;
  }
}

// An element as a double (16-bit floats go through float).
template <typename T>
double AsDouble(T v) {
  return static_cast<double>(static_cast<AccT<T>>(v));
}

// Calls fn(row, n) for each row of `plan` and stores its result in the
// (contiguous) output, converted to Out.
template <typename T, typename Out, typename Fn>
void ReduceRows(const ReducePlan& plan, TensorImpl& out, Fn fn) {
  const T* in = reinterpret_cast<const T*>(plan.rows->data());
  Out* o = reinterpret_cast<Out*>(out.data());
  // Rows are independent: split them over threads when there is enough work.
  const int64_t grain = std::max<int64_t>(1, 65536 / std::max<int64_t>(plan.inner, 1));
  ParallelFor(plan.outer, grain, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) o[r] = static_cast<Out>(fn(in + r * plan.inner, plan.inner));
  });
}

// Sum of n values with four independent accumulators (no loop-carried
// dependency on one add, so it pipelines and vectorizes).
template <typename Acc, typename T, bool kSkipNan>
Acc SumRange(const T* p, int64_t n) {
  Acc a0 = 0, a1 = 0, a2 = 0, a3 = 0;
  auto load = [](const T* q) -> Acc {
    auto v = static_cast<AccT<T>>(*q);
    if constexpr (kSkipNan) {
      if (IsNan(v)) return Acc(0);
    }
    return static_cast<Acc>(v);
  };
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    a0 += load(p + i);
    a1 += load(p + i + 1);
    a2 += load(p + i + 2);
    a3 += load(p + i + 3);
  }
  for (; i < n; ++i) a0 += load(p + i);
  return (a0 + a1) + (a2 + a3);
}

std::vector<bool> AllDims(const OpCall& c) { return std::vector<bool>(c.tensor(0)->ndim(), true); }
std::vector<bool> OneDim(const OpCall& c) {
  return defs::ReducedDim(c.args[1].to_int(), c.tensor(0)->ndim());
}
std::vector<bool> ListedDims(const OpCall& c) {
  return defs::ReducedDims(c.args[1], c.tensor(0)->ndim(), c.name().c_str());
}

// ---- sum, mean, nansum, prod -------------------------------------------------------

template <bool kMean, bool kSkipNan = false>
void SumKernel(OpCall& c, const std::vector<bool>& reduced) {
  ReducePlan plan = PlanReduce(c.tensor(0), reduced);
  DispatchNumeric(c.compute_dtype, c.name().c_str(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Acc = SumAcc<T>;
    if (plan.outer == 1 && plan.inner > 65536) {
      // One long row: partial sums per thread, combined in order.
      const T* row = reinterpret_cast<const T*>(plan.rows->data());
      const int64_t n = plan.inner;
      const int threads = GetNumThreads();
      std::vector<Acc> partial(threads, Acc(0));
      const int64_t per = (n + threads - 1) / threads;
      ParallelFor(threads, 1, [&](int64_t b, int64_t e) {
        for (int64_t t = b; t < e; ++t) {
          int64_t lo = t * per, hi = std::min(n, lo + per);
          if (lo < hi) partial[t] = SumRange<Acc, T, kSkipNan>(row + lo, hi - lo);
        }
      });
      Acc acc = 0;
      for (Acc v : partial) acc += v;
      T* o = reinterpret_cast<T*>(c.outputs[0]->data());
      if constexpr (kMean) {
        o[0] = static_cast<T>(static_cast<double>(acc) / static_cast<double>(n));
      } else {
        o[0] = static_cast<T>(acc);
      }
      return;
    }
    ReduceRows<T, T>(plan, *c.outputs[0], [](const T* row, int64_t n) {
      Acc acc = SumRange<Acc, T, kSkipNan>(row, n);
      if constexpr (kMean) {
        return static_cast<double>(acc) / static_cast<double>(n);
      } else {
        return acc;
      }
    });
  });
}

void SumAllKernel(OpCall& c) { SumKernel<false>(c, AllDims(c)); }
void SumDimKernel(OpCall& c) { SumKernel<false>(c, ListedDims(c)); }
void MeanAllKernel(OpCall& c) { SumKernel<true>(c, AllDims(c)); }
void MeanDimKernel(OpCall& c) { SumKernel<true>(c, ListedDims(c)); }
void NansumKernel(OpCall& c) { SumKernel<false, true>(c, ListedDims(c)); }

void ProdKernel(OpCall& c, const std::vector<bool>& reduced) {
  ReducePlan plan = PlanReduce(c.tensor(0), reduced);
  DispatchNumeric(c.compute_dtype, "prod", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Acc = ProdAcc<T>;
    ReduceRows<T, T>(plan, *c.outputs[0], [](const T* row, int64_t n) {
      Acc acc = 1;
      for (int64_t i = 0; i < n; ++i) acc *= static_cast<Acc>(static_cast<AccT<T>>(row[i]));
      return acc;
    });
  });
}
void ProdAllKernel(OpCall& c) { ProdKernel(c, AllDims(c)); }
void ProdDimKernel(OpCall& c) { ProdKernel(c, OneDim(c)); }

OF_KERNEL("sum", kCPU, kNumericDTypes, &SumAllKernel);
OF_KERNEL("sum.dim", kCPU, kNumericDTypes, &SumDimKernel);
OF_KERNEL("mean", kCPU, kFloatingDTypes, &MeanAllKernel);
OF_KERNEL("mean.dim", kCPU, kFloatingDTypes, &MeanDimKernel);
OF_KERNEL("nansum", kCPU, kNumericDTypes, &NansumKernel);
OF_KERNEL("prod", kCPU, kNumericDTypes, &ProdAllKernel);
OF_KERNEL("prod.dim_int", kCPU, kNumericDTypes, &ProdDimKernel);

// ---- max, min, amax, amin, argmax, argmin ---------------------------------------------

// The index of the row's largest (kMax) or smallest element: the first one, or
// the first NaN (NaN propagates), as in PyTorch. Rows are never empty here.
template <bool kMax, typename T>
int64_t ExtremeIndex(const T* row, int64_t n) {
  using A = AccT<T>;
  int64_t best = 0;
  A best_value = static_cast<A>(row[0]);
  if (IsNan(best_value)) return 0;
  for (int64_t i = 1; i < n; ++i) {
    A v = static_cast<A>(row[i]);
    if (IsNan(v)) return i;
    if (kMax ? best_value < v : v < best_value) {
      best_value = v;
      best = i;
    }
  }
  return best;
}

template <bool kMax>
void ExtremeKernel(OpCall& c, const std::vector<bool>& reduced) {
  ReducePlan plan = PlanReduce(c.tensor(0), reduced);
  DispatchAll(c.compute_dtype, c.name().c_str(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    ReduceRows<T, T>(plan, *c.outputs[0],
                     [](const T* row, int64_t n) { return row[ExtremeIndex<kMax>(row, n)]; });
  });
}

template <bool kMax>
void ExtremeDimKernel(OpCall& c) {
  ReducePlan plan = PlanReduce(c.tensor(0), OneDim(c));
  int64_t* indices = reinterpret_cast<int64_t*>(c.outputs[1]->data());
  DispatchAll(c.compute_dtype, c.name().c_str(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = reinterpret_cast<const T*>(plan.rows->data());
    T* values = reinterpret_cast<T*>(c.outputs[0]->data());
    for (int64_t r = 0; r < plan.outer; ++r) {
      const T* row = in + r * plan.inner;
      int64_t i = ExtremeIndex<kMax>(row, plan.inner);
      values[r] = row[i];
      indices[r] = i;
    }
  });
}

template <bool kMax>
void ArgExtremeKernel(OpCall& c) {
  std::vector<bool> reduced = c.args[1].is_none() ? AllDims(c) : OneDim(c);
  ReducePlan plan = PlanReduce(c.tensor(0), reduced);
  DispatchNumeric(c.compute_dtype, c.name().c_str(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    ReduceRows<T, int64_t>(plan, *c.outputs[0],
                           [](const T* row, int64_t n) { return ExtremeIndex<kMax>(row, n); });
  });
}

void MaxAllKernel(OpCall& c) { ExtremeKernel<true>(c, AllDims(c)); }
void MinAllKernel(OpCall& c) { ExtremeKernel<false>(c, AllDims(c)); }
void AmaxKernel(OpCall& c) { ExtremeKernel<true>(c, ListedDims(c)); }
void AminKernel(OpCall& c) { ExtremeKernel<false>(c, ListedDims(c)); }

OF_KERNEL("max", kCPU, kAllDTypes, &MaxAllKernel);
OF_KERNEL("min", kCPU, kAllDTypes, &MinAllKernel);
OF_KERNEL("max.dim", kCPU, kAllDTypes, &ExtremeDimKernel<true>);
OF_KERNEL("min.dim", kCPU, kAllDTypes, &ExtremeDimKernel<false>);
OF_KERNEL("amax", kCPU, kAllDTypes, &AmaxKernel);
OF_KERNEL("amin", kCPU, kAllDTypes, &AminKernel);
OF_KERNEL("argmax", kCPU, kNumericDTypes, &ArgExtremeKernel<true>);
OF_KERNEL("argmin", kCPU, kNumericDTypes, &ArgExtremeKernel<false>);

// ---- std, var ----------------------------------------------------------------------

// Two passes in double: the mean, then the squared deviations, divided by
// max(0, n - correction) (so an empty row, or n <= correction, gives NaN or inf).
template <bool kStd>
void StdVarKernel(OpCall& c) {
  ReducePlan plan = PlanReduce(c.tensor(0), ListedDims(c));
  const double correction = defs::VarCorrection(c.args[2]);
  DispatchFloating(c.compute_dtype, c.name().c_str(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    ReduceRows<T, T>(plan, *c.outputs[0], [correction](const T* row, int64_t n) {
      double sum = 0;
      for (int64_t i = 0; i < n; ++i) sum += AsDouble(row[i]);
      const double mean = sum / static_cast<double>(n);
      double squares = 0;
      for (int64_t i = 0; i < n; ++i) {
        const double d = AsDouble(row[i]) - mean;
        squares += d * d;
      }
      const double var = squares / std::max(0.0, static_cast<double>(n) - correction);
      return kStd ? std::sqrt(var) : var;
    });
  });
}

OF_KERNEL("std.correction", kCPU, kFloatingDTypes, &StdVarKernel<true>);
OF_KERNEL("var.correction", kCPU, kFloatingDTypes, &StdVarKernel<false>);

// ---- norm -------------------------------------------------------------------------------

// The p-norm of a row: the count of nonzeros for p = 0, the largest (smallest)
// |x| for p = inf (-inf) with NaN propagating, else (sum |x|^p)^(1/p).
template <typename T>
double RowNorm(const T* row, int64_t n, double p) {
  if (p == 0) {
    double count = 0;
    for (int64_t i = 0; i < n; ++i) count += AsDouble(row[i]) != 0 ? 1 : 0;
    return count;
  }
  if (std::isinf(p)) {
    double best = p > 0 ? 0 : kInf;
    for (int64_t i = 0; i < n; ++i) {
      const double a = std::fabs(AsDouble(row[i]));
      if (std::isnan(a)) return a;
      best = p > 0 ? std::max(best, a) : std::min(best, a);
    }
    return best;
  }
  double acc = 0;
  if (p == 1) {
    for (int64_t i = 0; i < n; ++i) acc += std::fabs(AsDouble(row[i]));
    return acc;
  }
  if (p == 2) {
    for (int64_t i = 0; i < n; ++i) acc += AsDouble(row[i]) * AsDouble(row[i]);
    return std::sqrt(acc);
  }
  for (int64_t i = 0; i < n; ++i) acc += std::pow(std::fabs(AsDouble(row[i])), p);
  return std::pow(acc, 1.0 / p);
}

void NormKernel(OpCall& c) {
  ReducePlan plan =
      PlanReduce(c.tensor(0), defs::ReducedDims(c.args[2], c.tensor(0)->ndim(), "norm"));
  const double p = defs::NormOrder(c.args[1]);
  DispatchFloating(c.compute_dtype, "norm", [&](auto tag) {
    using T = typename decltype(tag)::type;
    ReduceRows<T, T>(plan, *c.outputs[0],
                     [p](const T* row, int64_t n) { return RowNorm(row, n, p); });
  });
}
OF_KERNEL("norm", kCPU, kFloatingDTypes, &NormKernel);

// ---- logsumexp ------------------------------------------------------------------------

// max + log(sum(exp(x - max))), so large inputs do not overflow. An infinite
// max is the result itself (exp(inf - inf) would be NaN), unless a NaN is
// present; an empty row gives -inf.
void LogsumexpKernel(OpCall& c) {
  ReducePlan plan = PlanReduce(c.tensor(0), ListedDims(c));
  DispatchFloating(c.compute_dtype, "logsumexp", [&](auto tag) {
    using T = typename decltype(tag)::type;
    ReduceRows<T, T>(plan, *c.outputs[0], [](const T* row, int64_t n) {
      double max = -kInf;
      bool nan = false;
      for (int64_t i = 0; i < n; ++i) {
        const double v = AsDouble(row[i]);
        nan = nan || std::isnan(v);
        if (v > max) max = v;
      }
      if (nan) return std::numeric_limits<double>::quiet_NaN();
      if (std::isinf(max)) return max;
      double sum = 0;
      for (int64_t i = 0; i < n; ++i) sum += std::exp(AsDouble(row[i]) - max);
      return max + std::log(sum);
    });
  });
}
OF_KERNEL("logsumexp", kCPU, kFloatingDTypes, &LogsumexpKernel);

// ---- all, any ------------------------------------------------------------------------------

// Whether every (kAll) or some element is nonzero; NaN counts as nonzero. The
// output is bool or uint8, both one byte holding 0 or 1.
template <bool kAll>
void AllAnyKernel(OpCall& c, const std::vector<bool>& reduced) {
  ReducePlan plan = PlanReduce(c.tensor(0), reduced);
  DispatchAll(c.compute_dtype, c.name().c_str(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    ReduceRows<T, uint8_t>(plan, *c.outputs[0], [](const T* row, int64_t n) {
      for (int64_t i = 0; i < n; ++i) {
        const bool nonzero = static_cast<AccT<T>>(row[i]) != AccT<T>(0);
        if (nonzero != kAll) return !kAll;
      }
      return kAll;
    });
  });
}
template <bool kAll>
void AllAnyAllKernel(OpCall& c) {
  AllAnyKernel<kAll>(c, AllDims(c));
}
template <bool kAll>
void AllAnyDimKernel(OpCall& c) {
  AllAnyKernel<kAll>(c, OneDim(c));
}
template <bool kAll>
void AllAnyDimsKernel(OpCall& c) {
  AllAnyKernel<kAll>(c, defs::ReducedDims(c.args[1], c.tensor(0)->ndim(), c.name().c_str(),
                                          /*empty_means_all=*/false));
}

OF_KERNEL("all", kCPU, kAllDTypes, &AllAnyAllKernel<true>);
OF_KERNEL("all.dim", kCPU, kAllDTypes, &AllAnyDimKernel<true>);
OF_KERNEL("all.dims", kCPU, kAllDTypes, &AllAnyDimsKernel<true>);
OF_KERNEL("any", kCPU, kAllDTypes, &AllAnyAllKernel<false>);
OF_KERNEL("any.dim", kCPU, kAllDTypes, &AllAnyDimKernel<false>);
OF_KERNEL("any.dims", kCPU, kAllDTypes, &AllAnyDimsKernel<false>);

// ---- cumsum, cumprod ----------------------------------------------------------------------

enum class Scan { kSum, kProd, kReverseSum };

// Each output element accumulates its row up to (kReverseSum: from the end
// down to) its position.
template <Scan kScan>
void ScanKernel(OpCall& c) {
  const TensorImplPtr& x = c.tensor(0);
  const TensorImplPtr& out = c.outputs[0];
  ScanPlan plan = PlanScan(x, WrapDim(c.args[1].to_int(), x->ndim()), out);
  DispatchNumeric(c.compute_dtype, c.name().c_str(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Acc = std::conditional_t<kScan == Scan::kProd, ProdAcc<T>, SumAcc<T>>;
    const T* in = reinterpret_cast<const T*>(plan.rows->data());
    T* o = reinterpret_cast<T*>(plan.result->data());
    const int64_t n = plan.inner;
    for (int64_t r = 0; r < plan.outer; ++r) {
      const T* row = in + r * n;
      T* orow = o + r * n;
      Acc acc = kScan == Scan::kProd ? 1 : 0;
      for (int64_t k = 0; k < n; ++k) {
        const int64_t i = kScan == Scan::kReverseSum ? n - 1 - k : k;
        const Acc v = static_cast<Acc>(static_cast<AccT<T>>(row[i]));
        acc = kScan == Scan::kProd ? acc * v : acc + v;
        orow[i] = static_cast<T>(acc);
      }
    }
  });
  FinishScan(plan, out);
}

OF_KERNEL("cumsum", kCPU, kNumericDTypes, &ScanKernel<Scan::kSum>);
OF_KERNEL("cumprod", kCPU, kNumericDTypes, &ScanKernel<Scan::kProd>);
OF_KERNEL("cumsum_backward", kCPU, kNumericDTypes, &ScanKernel<Scan::kReverseSum>);

}  // namespace
}  // namespace cpu
}  // namespace oneflow
