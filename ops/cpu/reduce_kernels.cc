// CPU kernels of the reductions and scans declared in ops/defs/reduce.cc.
// Floating values accumulate in double, integer sums in int64 and integer
// products in uint64 (wrapping like PyTorch's int64 arithmetic, without
// signed overflow).
//
// Sums (sum, mean, nansum) and max/min/amax/amin/argmax/argmin read their
// input in place when its layout allows (see PlanReduce in reduce.h). A
// column reduction (cols > 1, e.g. sum(0) of [rows, n]) walks whole rows of a
// tile of columns, one lane per column, rather than each column down its
// stride; narrow columns regroup several rows into one wide row; dims reduced
// on both sides of the kept ones (a lead) become more rows or more columns.
// Sum lanes are float for float and the 16-bit floats, each adding at most
// kChunk values (a row sum then adds its four lane vectors in float) before
// joining double totals: float speed, close to double accuracy. The loops are
// plain C++ that GCC vectorizes, inlined into copies compiled for AVX-512,
// AVX2 and the baseline (target attributes); the widest the CPU has is picked
// once at load time (ops/cpu/isa.h).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "ops/api/ops.h"
#include "ops/cpu/isa.h"
#include "ops/cpu/loops.h"
#include "ops/cpu/reduce.h"
#include "ops/cpu/vec_types.h"
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
// The type of a sum's lanes: float for float and the 16-bit floats.
template <typename T>
using SumLane = std::conditional_t<std::is_same_v<T, double>, double,
                                   std::conditional_t<kIsFloating<T>, float, int64_t>>;

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

// A plan's elements, typed.
template <typename T>
const T* DataOf(const ReducePlan& plan) {
  return reinterpret_cast<const T*>(plan.data);
}

// Calls fn(row, n) for each row of `plan` (cols == 1) and stores its result in
// the (contiguous) output, converted to Out.
template <typename T, typename Out, typename Fn>
void ReduceRows(const ReducePlan& plan, TensorImpl& out, Fn fn) {
  const T* in = DataOf<T>(plan);
  Out* o = reinterpret_cast<Out*>(out.data());
  // Rows are independent: split them over threads when there is enough work.
  const int64_t grain = std::max<int64_t>(1, 65536 / std::max<int64_t>(plan.inner, 1));
  ParallelFor(plan.outer, grain, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) o[r] = static_cast<Out>(fn(in + r * plan.inner, plan.inner));
  });
}

// Runs fn(o, c0, w) over the column tiles of a plan with cols > 1: columns
// [c0, c0 + w) (w <= kTile) of outer index o, `inner` rows each. Tiles are
// split over threads when there is enough work.
template <int64_t kTile, typename Fn>
void ForEachColumnTile(const ReducePlan& plan, Fn fn) {
  const int64_t tiles = (plan.cols + kTile - 1) / kTile;
  const int64_t grain = std::max<int64_t>(1, 32768 / (plan.inner * kTile));
  ParallelFor(plan.outer * tiles, grain, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      const int64_t o = t / tiles, c0 = (t % tiles) * kTile;
      fn(o, c0, std::min(kTile, plan.cols - c0));
    }
  });
}

// ---- the vectorized sum loops ----------------------------------------------------

// Values per lane before a float lane joins its double total.
constexpr int64_t kChunk = 16;

template <typename L, bool kSkipNan, typename T>
OF_INLINE L LoadLane(const T& v) {
  L x = static_cast<L>(static_cast<AccT<T>>(v));
  if constexpr (kSkipNan && std::is_floating_point_v<L>) x = x == x ? x : L(0);
  return x;
}

template <typename T>
struct SumLoopTypes {
  using L = SumLane<T>;
  using A = SumAcc<T>;
  static constexpr int64_t kLanes = 256 / sizeof(L);     // a row sum's: four AVX-512 registers
  static constexpr int64_t kColLanes = 512 / sizeof(L);  // a column tile's: eight
};

// t[0] + ... + t[kW - 1], pairwise (kW a power of 2).
template <int64_t kW, typename A>
OF_INLINE A SumTree(A* t) {
  if constexpr (kW == 1) {
    return t[0];
  } else {
    for (int64_t j = 0; j < kW / 2; ++j) t[j] += t[j + kW / 2];
    return SumTree<kW / 2>(t);
  }
}

// The sum of p[0, n). Rows shorter than kLanes: four scalar totals (no fixed
// cost). Longer: blocks of at most kChunk values per lane, each block's four
// lane vectors added and joining a quarter as many totals; the rest, fewer
// than kLanes values, in one lane vector. `omp simd` keeps GCC from unrolling
// the lane loops into scalars before it vectorizes them.
template <typename T, bool kSkipNan>
OF_INLINE SumAcc<T> RowSumLoop(const T* p, int64_t n) {
  using L = typename SumLoopTypes<T>::L;
  using A = typename SumLoopTypes<T>::A;
  constexpr int64_t kLanes = SumLoopTypes<T>::kLanes, kTotals = kLanes / 4;
  if (n < kLanes) {
    A a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
      a0 += static_cast<A>(LoadLane<L, kSkipNan>(p[i]));
      a1 += static_cast<A>(LoadLane<L, kSkipNan>(p[i + 1]));
      a2 += static_cast<A>(LoadLane<L, kSkipNan>(p[i + 2]));
      a3 += static_cast<A>(LoadLane<L, kSkipNan>(p[i + 3]));
    }
    for (; i < n; ++i) a0 += static_cast<A>(LoadLane<L, kSkipNan>(p[i]));
    return (a0 + a1) + (a2 + a3);
  }
  A total[kTotals] = {}, rest[kTotals] = {};
  int64_t i = 0;
  while (n - i >= kLanes) {
    const int64_t end = i + std::min<int64_t>((n - i) / kLanes, kChunk) * kLanes;
    L lane[kLanes] = {};
    for (; i < end; i += kLanes) {
#pragma omp simd
      for (int64_t j = 0; j < kLanes; ++j) lane[j] += LoadLane<L, kSkipNan>(p[i + j]);
    }
#pragma omp simd
    for (int64_t j = 0; j < kTotals; ++j) {
      total[j] += static_cast<A>((lane[j] + lane[j + kTotals]) +
                                 (lane[j + 2 * kTotals] + lane[j + 3 * kTotals]));
    }
  }
  if (i < n) {
    L lane[kTotals] = {};
    for (; i + kTotals <= n; i += kTotals) {
#pragma omp simd
      for (int64_t j = 0; j < kTotals; ++j) lane[j] += LoadLane<L, kSkipNan>(p[i + j]);
    }
    const int64_t m = n - i;
#pragma omp simd
    for (int64_t j = 0; j < kTotals; ++j) lane[j] += j < m ? LoadLane<L, kSkipNan>(p[i + j]) : L(0);
#pragma omp simd
    for (int64_t j = 0; j < kTotals; ++j) rest[j] = static_cast<A>(lane[j]);
  }
#pragma omp simd
  for (int64_t j = 0; j < kTotals; ++j) total[j] += rest[j];
  return SumTree<kTotals>(total);
}

// Rows ahead that the column loop prefetches.
constexpr int64_t kPrefetchRows = 4;

// acc[j] += the sum over `rows` rows r of p[r * ld + j], for j < w <= kColLanes.
// A full tile prefetches its lines kPrefetchRows rows ahead, unless the row
// stride is a multiple of 4 KiB: those lines share the L1 sets of the rows
// being read, and are evicted before use.
template <typename T, bool kSkipNan>
OF_INLINE void ColumnSumLoop(const T* p, int64_t ld, int64_t rows, int64_t w, SumAcc<T>* acc) {
  using L = typename SumLoopTypes<T>::L;
  using A = typename SumLoopTypes<T>::A;
  constexpr int64_t kLanes = SumLoopTypes<T>::kColLanes;
  constexpr int64_t kLine = 64 / sizeof(T);
  const bool prefetch = (ld * sizeof(T)) % 4096 != 0;
  for (int64_t r0 = 0; r0 < rows; r0 += kChunk) {
    const int64_t r1 = std::min(rows, r0 + kChunk);
    L lane[kLanes] = {};
    if (w == kLanes) {  // a full tile: the fixed trip count keeps the lanes in registers
      for (int64_t r = r0; r < r1; ++r) {
        if (prefetch) {
          for (int64_t j = 0; j < kLanes; j += kLine) {
            __builtin_prefetch(p + (r + kPrefetchRows) * ld + j);
          }
        }
        for (int64_t j = 0; j < kLanes; ++j) lane[j] += LoadLane<L, kSkipNan>(p[r * ld + j]);
      }
      for (int64_t j = 0; j < kLanes; ++j) acc[j] += static_cast<A>(lane[j]);
    } else {
      for (int64_t r = r0; r < r1; ++r) {
        for (int64_t j = 0; j < w; ++j) lane[j] += LoadLane<L, kSkipNan>(p[r * ld + j]);
      }
      for (int64_t j = 0; j < w; ++j) acc[j] += static_cast<A>(lane[j]);
    }
  }
}

// The sum loops of one element type, one copy per instruction set (RunForKernelIsa).
template <typename T, bool kSkipNan>
struct SumLoops : SumLoopTypes<T> {
  using A = SumAcc<T>;
  // Only the dtypes that sums compute in (others reach here only as int64) get
  // a copy per instruction set.
  static constexpr bool kPerIsa = kIsFloating<T> || std::is_same_v<T, int64_t>;
  static A Row(const T* p, int64_t n) {
    if constexpr (!kPerIsa) {
      return RowSumLoop<T, kSkipNan>(p, n);
    } else {
      return RunForKernelIsa([&]() OF_INLINE_LAMBDA { return RowSumLoop<T, kSkipNan>(p, n); });
    }
  }
  static void Cols(const T* p, int64_t ld, int64_t rows, int64_t w, A* acc) {
    if constexpr (!kPerIsa) {
      return ColumnSumLoop<T, kSkipNan>(p, ld, rows, w, acc);
    } else {
      RunForKernelIsa([&]() OF_INLINE_LAMBDA { ColumnSumLoop<T, kSkipNan>(p, ld, rows, w, acc); });
    }
  }
};

// Every reduction here has its input (self) as argument 0 and its dim, when it
// has one, as argument 1: the kernels use the names of sum.dim (or
// prod.dim_int for one int dim) for all of them.
const TensorImplPtr& Input(const OpCall& c) { return c.tensor(arg::sum_dim::self); }

std::vector<bool> AllDims(const OpCall& c) { return std::vector<bool>(Input(c)->ndim(), true); }
// prod.dim_int, max.dim/min.dim, argmax/argmin (dim given), all.dim/any.dim.
std::vector<bool> OneDim(const OpCall& c) {
  return defs::ReducedDim(c.args[arg::prod_dim_int::dim].to_int(), Input(c)->ndim());
}
// sum.dim, mean.dim, nansum, amax/amin, std/var.correction, logsumexp.
std::vector<bool> ListedDims(const OpCall& c) {
  return defs::ReducedDims(c.args[arg::sum_dim::dim], Input(c)->ndim(), c.name().c_str());
}

// ---- sum, mean, nansum -------------------------------------------------------

// Column sums: element (o, r, c) at in + o * ostride + r * ld + c, for o <
// outer, r < rows, c < width; emit(o * width + c, total). Tiles of columns are
// split over threads; with too few tiles to share, the rows are split instead
// and the threads' totals added in order.
template <typename T, bool kSkipNan, typename Emit>
void ColumnSums(const T* in, int64_t outer, int64_t ostride, int64_t rows, int64_t ld,
                int64_t width, Emit emit) {
  using Loops = SumLoops<T, kSkipNan>;
  using A = SumAcc<T>;
  constexpr int64_t kTile = Loops::kColLanes;
  const int64_t tiles = (width + kTile - 1) / kTile;
  const int threads = GetNumThreads();
  if (threads > 1 && outer * tiles < 2 * threads && outer * rows * width >= 65536 &&
      rows >= threads * kChunk) {
    const int64_t per = (rows + threads - 1) / threads;
    std::vector<A> partial(static_cast<size_t>(threads) * outer * width, A(0));
    ParallelFor(threads, 1, [&](int64_t b, int64_t e) {
      for (int64_t t = b; t < e; ++t) {
        const int64_t r0 = std::min(rows, t * per), r1 = std::min(rows, r0 + per);
        A* part = partial.data() + t * outer * width;
        for (int64_t o = 0; o < outer; ++o) {
          for (int64_t c0 = 0; c0 < width; c0 += kTile) {
            Loops::Cols(in + o * ostride + r0 * ld + c0, ld, r1 - r0, std::min(kTile, width - c0),
                        part + o * width + c0);
          }
        }
      }
    });
    for (int64_t k = 0; k < outer * width; ++k) {
      A total = 0;
      for (int t = 0; t < threads; ++t) total += partial[t * outer * width + k];
      emit(k, total);
    }
    return;
  }
  const int64_t grain = std::max<int64_t>(1, 32768 / (rows * kTile));
  ParallelFor(outer * tiles, grain, [&](int64_t b, int64_t e) {
    A acc[kTile];
    for (int64_t t = b; t < e; ++t) {
      const int64_t o = t / tiles, c0 = (t % tiles) * kTile, w = std::min(kTile, width - c0);
      std::fill(acc, acc + w, A(0));
      Loops::Cols(in + o * ostride + c0, ld, rows, w, acc);
      for (int64_t j = 0; j < w; ++j) emit(o * width + c0 + j, acc[j]);
    }
  });
}

// The sums of [outer, n, cols] at `in`: emit(o * cols + c, total).
template <typename T, bool kSkipNan, typename Emit>
void SumSlices(const T* in, int64_t outer, int64_t n, int64_t cols, Emit emit) {
  using Loops = SumLoops<T, kSkipNan>;
  using A = SumAcc<T>;
  constexpr int64_t kTile = Loops::kColLanes;
  if (cols == 1 && outer == 1 && n > 65536) {
    // One long row: partial sums per thread, combined in order.
    const int threads = GetNumThreads();
    std::vector<A> partial(threads, A(0));
    const int64_t per = (n + threads - 1) / threads;
    ParallelFor(threads, 1, [&](int64_t b, int64_t e) {
      for (int64_t t = b; t < e; ++t) {
        int64_t lo = t * per, hi = std::min(n, lo + per);
        if (lo < hi) partial[t] = Loops::Row(in + lo, hi - lo);
      }
    });
    A acc = 0;
    for (A v : partial) acc += v;
    return emit(0, acc);
  }
  if (cols == 1) {
    const int64_t grain = std::max<int64_t>(1, 65536 / std::max<int64_t>(n, 1));
    return ParallelFor(outer, grain, [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) emit(r, Loops::Row(in + r * n, n));
    });
  }
  const int64_t group = kTile / cols;
  if (group < 2 || n < 4 * group)
    return ColumnSums<T, kSkipNan>(in, outer, n * cols, n, cols, cols, emit);
  // Narrow columns: `group` consecutive rows make one row of width group * cols,
  // summed as columns; the rows left over add into the first cols lanes, and
  // the lanes of each column fold at the end.
  const int64_t width = group * cols, rows = n / group, left = n - rows * group;
  std::vector<A> wide(outer * width, A(0));
  ColumnSums<T, kSkipNan>(in, outer, n * cols, rows, width, width,
                          [&](int64_t k, A total) { wide[k] = total; });
  for (int64_t o = 0; o < outer; ++o) {
    A* acc = wide.data() + o * width;
    if (left > 0) Loops::Cols(in + o * n * cols + rows * width, cols, left, cols, acc);
    for (int64_t c = 0; c < cols; ++c) {
      A total = 0;
      for (int64_t q = 0; q < group; ++q) total += acc[q * cols + c];
      emit(o * cols + c, total);
    }
  }
}

// The sums of a plan. With a lead, the smaller of two partial results: the
// lead's slices summed as more outer entries (lead * outer * cols totals),
// then added in order; or, for a lead longer than the rows, the lead summed
// first as columns (outer * inner * cols totals), then the rows of those.
template <bool kMean, bool kSkipNan = false>
void SumKernel(OpCall& c, const std::vector<bool>& reduced) {
  ReducePlan plan = PlanReduce(Input(c), reduced, kAllowCols | kAllowLead | kAnyOrder);
  if (plan.lead == 1 && plan.inner == 1 && plan.cols == 1 && plan.outer > 1) {
    // Nothing to add up (only size-1 dims reduced): one row of columns converts at vector speed.
    std::swap(plan.outer, plan.cols);
  }
  DispatchNumeric(c.compute_dtype, c.name().c_str(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = SumAcc<T>;
    T* o = reinterpret_cast<T*>(c.outputs[0]->data());
    const T* in = DataOf<T>(plan);
    const double count = static_cast<double>(plan.lead * plan.inner);
    auto finish = [count](A acc) -> T {
      if constexpr (kMean) {
        return static_cast<T>(static_cast<double>(acc) / count);
      } else {
        return static_cast<T>(acc);
      }
    };
    const int64_t lead = plan.lead, outer = plan.outer, n = plan.inner, cols = plan.cols;
    if (lead == 1) {
      return SumSlices<T, kSkipNan>(in, outer, n, cols,
                                    [&](int64_t k, A total) { o[k] = finish(total); });
    }
    const int64_t m = outer * cols;
    if (lead < n) {
      std::vector<A> slices(lead * m);
      SumSlices<T, kSkipNan>(in, lead * outer, n, cols,
                             [&](int64_t k, A total) { slices[k] = total; });
      return ParallelFor(m, 4096, [&](int64_t b, int64_t e) {
        for (int64_t k = b; k < e; ++k) {
          A total = 0;
          for (int64_t l = 0; l < lead; ++l) total += slices[l * m + k];
          o[k] = finish(total);
        }
      });
    }
    const int64_t width = outer * n * cols;
    std::unique_ptr<A[]> sums(new A[width]);  // every entry is written
    ColumnSums<T, kSkipNan>(in, 1, 0, lead, width, width,
                            [&](int64_t k, A total) { sums[k] = total; });
    ParallelFor(outer, std::max<int64_t>(1, 4096 / (n * cols)), [&](int64_t b, int64_t e) {
      std::vector<A> acc(cols);
      for (int64_t r = b; r < e; ++r) {
        std::fill(acc.begin(), acc.end(), A(0));
        for (int64_t i = 0; i < n; ++i) {
          const A* row = sums.get() + (r * n + i) * cols;
          for (int64_t j = 0; j < cols; ++j) acc[j] += row[j];
        }
        for (int64_t j = 0; j < cols; ++j) o[r * cols + j] = finish(acc[j]);
      }
    });
  });
}

void SumAllKernel(OpCall& c) { SumKernel<false>(c, AllDims(c)); }
void SumDimKernel(OpCall& c) { SumKernel<false>(c, ListedDims(c)); }
void MeanAllKernel(OpCall& c) { SumKernel<true>(c, AllDims(c)); }
void MeanDimKernel(OpCall& c) { SumKernel<true>(c, ListedDims(c)); }
void NansumKernel(OpCall& c) { SumKernel<false, true>(c, ListedDims(c)); }

OF_KERNEL("sum", kCPU, kNumericDTypes, &SumAllKernel);
OF_KERNEL("sum.dim", kCPU, kNumericDTypes, &SumDimKernel);
OF_KERNEL("mean", kCPU, kFloatingDTypes, &MeanAllKernel);
OF_KERNEL("mean.dim", kCPU, kFloatingDTypes, &MeanDimKernel);
OF_KERNEL("nansum", kCPU, kNumericDTypes, &NansumKernel);

// ---- prod ----------------------------------------------------------------------------

void ProdKernel(OpCall& c, const std::vector<bool>& reduced) {
  ReducePlan plan = PlanReduce(Input(c), reduced);
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

// Columns per tile of the extremes' column loop.
constexpr int64_t kExtremeTile = 64;

// The column version of ExtremeIndex: best[j] (and in where[j] its row) over
// rows [0, rows) of columns j < w <= kExtremeTile, row r at p + r * ld.
// Branch-free, so GCC vectorizes it across the columns; a full tile works on
// local copies that stay in registers.
template <bool kMax, bool kIndex, typename T>
OF_INLINE void ColumnExtremeLoop(const T* p, int64_t ld, int64_t rows, int64_t w, AccT<T>* best,
                                 int64_t* where) {
  using A = AccT<T>;
  auto run = [&](auto width, A* b, int64_t* at) OF_INLINE_LAMBDA {
    const int64_t kw = width;
    for (int64_t j = 0; j < kw; ++j) {
      b[j] = static_cast<A>(p[j]);
      if constexpr (kIndex) at[j] = 0;
    }
    for (int64_t r = 1; r < rows; ++r) {
      for (int64_t j = 0; j < kw; ++j) {
        const A v = static_cast<A>(p[r * ld + j]);
        bool take = kMax ? b[j] < v : v < b[j];
        if constexpr (std::is_floating_point_v<A>) take = take || (v != v && b[j] == b[j]);
        b[j] = take ? v : b[j];
        if constexpr (kIndex) at[j] = take ? r : at[j];
      }
    }
  };
  if (w == kExtremeTile) {
    A b[kExtremeTile];
    int64_t at[kExtremeTile];
    run(std::integral_constant<int64_t, kExtremeTile>(), b, at);
    for (int64_t j = 0; j < kExtremeTile; ++j) {
      best[j] = b[j];
      if constexpr (kIndex) where[j] = at[j];
    }
  } else {
    run(w, best, where);
  }
}

// The column loop of the extremes; float gets a copy per instruction set.
template <bool kMax, bool kIndex, typename T>
struct ExtremeLoops {
  using A = AccT<T>;
  static void Cols(const T* p, int64_t ld, int64_t rows, int64_t w, A* best, int64_t* where) {
    if constexpr (!std::is_same_v<T, float>) {
      return ColumnExtremeLoop<kMax, kIndex>(p, ld, rows, w, best, where);
    } else {
      RunForKernelIsa(
          [&]() OF_INLINE_LAMBDA { ColumnExtremeLoop<kMax, kIndex>(p, ld, rows, w, best, where); });
    }
  }
};

// values (and indices, when not null) of the extremes of `plan`'s columns.
template <bool kMax, typename T>
void ExtremeColumns(const ReducePlan& plan, T* values, int64_t* indices) {
  const T* in = DataOf<T>(plan);
  ForEachColumnTile<kExtremeTile>(plan, [&](int64_t o, int64_t c0, int64_t w) {
    AccT<T> best[kExtremeTile];
    int64_t where[kExtremeTile];
    const T* p = in + o * plan.inner * plan.cols + c0;
    const int64_t k = o * plan.cols + c0;
    if (indices) {
      ExtremeLoops<kMax, true, T>::Cols(p, plan.cols, plan.inner, w, best, where);
      for (int64_t j = 0; j < w; ++j) indices[k + j] = where[j];
    } else {
      ExtremeLoops<kMax, false, T>::Cols(p, plan.cols, plan.inner, w, best, where);
    }
    if (values) {
      for (int64_t j = 0; j < w; ++j) values[k + j] = static_cast<T>(best[j]);
    }
  });
}

template <bool kMax>
void ExtremeKernel(OpCall& c, const std::vector<bool>& reduced) {
  ReducePlan plan = PlanReduce(Input(c), reduced, kAllowCols | kAnyOrder);
  DispatchAll(c.compute_dtype, c.name().c_str(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (plan.cols > 1) {
      return ExtremeColumns<kMax>(plan, reinterpret_cast<T*>(c.outputs[0]->data()), nullptr);
    }
    ReduceRows<T, T>(plan, *c.outputs[0],
                     [](const T* row, int64_t n) { return row[ExtremeIndex<kMax>(row, n)]; });
  });
}

template <bool kMax>
void ExtremeDimKernel(OpCall& c) {
  ReducePlan plan = PlanReduce(Input(c), OneDim(c), kAllowCols);
  int64_t* indices = reinterpret_cast<int64_t*>(c.outputs[1]->data());
  DispatchAll(c.compute_dtype, c.name().c_str(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* values = reinterpret_cast<T*>(c.outputs[0]->data());
    if (plan.cols > 1) return ExtremeColumns<kMax>(plan, values, indices);
    const T* in = DataOf<T>(plan);
    const int64_t grain = std::max<int64_t>(1, 65536 / std::max<int64_t>(plan.inner, 1));
    ParallelFor(plan.outer, grain, [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        const T* row = in + r * plan.inner;
        int64_t i = ExtremeIndex<kMax>(row, plan.inner);
        values[r] = row[i];
        indices[r] = i;
      }
    });
  });
}

// With dim=None the index is into the flattened input: the reduced elements
// must be read in logical order.
template <bool kMax>
void ArgExtremeKernel(OpCall& c) {
  // (argmax and argmin have the same indices.)
  const bool all = !c.has(arg::argmax::dim);
  ReducePlan plan =
      PlanReduce(Input(c), all ? AllDims(c) : OneDim(c), all ? kRowsInOrder : kAllowCols);
  DispatchNumeric(c.compute_dtype, c.name().c_str(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (plan.cols > 1) {
      return ExtremeColumns<kMax, T>(plan, nullptr,
                                     reinterpret_cast<int64_t*>(c.outputs[0]->data()));
    }
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
  // (std.correction and var.correction have the same indices.)
  ReducePlan plan = PlanReduce(Input(c), ListedDims(c));
  const double correction = defs::VarCorrection(c.args[arg::std_correction::correction]);
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
  const TensorImplPtr& x = c.tensor(arg::norm::self);
  ReducePlan plan = PlanReduce(x, defs::ReducedDims(c.args[arg::norm::dim], x->ndim(), "norm"));
  const double p = defs::NormOrder(c.args[arg::norm::p]);
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
  ReducePlan plan = PlanReduce(Input(c), ListedDims(c));
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
  ReducePlan plan = PlanReduce(Input(c), reduced);
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
  // (all.dims and any.dims have the same indices.)
  AllAnyKernel<kAll>(c, defs::ReducedDims(c.args[arg::all_dims::dim],
                                          c.tensor(arg::all_dims::self)->ndim(), c.name().c_str(),
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
// down to) its position. cumsum, cumprod and cumsum_backward have the same
// indices (cumsum_backward's input is named grad).
template <Scan kScan>
void ScanKernel(OpCall& c) {
  const TensorImplPtr& x = c.tensor(arg::cumsum::self);
  const TensorImplPtr& out = c.outputs[0];
  ScanPlan plan = PlanScan(x, WrapDim(c.get(arg::cumsum::dim), x->ndim()), out);
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
