// CPU kernels of the ops declared in ops/defs/sort.cc. A reduction or sort
// along `dim` works on rows: the input with dim moved last, made contiguous,
// one row per position of the other dims; rows are independent and split over
// threads. Values compare in their accumulation type (float for the 16-bit
// floats); NaN orders above every number.

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <utility>
#include <vector>

#include "core/runtime/view_ops.h"
#include "ops/cpu/loops.h"
#include "ops/defs/common.h"

namespace oneflow {
namespace cpu {
namespace {

constexpr DeviceType kCPU = DeviceType::kCPU;

template <typename A>
inline bool IsNaN(A v) {
  if constexpr (std::is_floating_point_v<A>) {
    return std::isnan(v);
  } else {
    return false;
  }
}

// a strictly before b in ascending order (NaN last) or descending (NaN first).
template <typename A>
inline bool Before(A a, A b, bool descending) {
  if (descending) return (IsNaN(a) && !IsNaN(b)) || a > b;
  return (!IsNaN(a) && IsNaN(b)) || a < b;
}

template <typename A>
using Keyed = std::pair<A, int64_t>;

// ---- rows ------------------------------------------------------------------------

DimVector MoveLastPerm(int64_t nd, int64_t dim) {
  DimVector p;
  for (int64_t d = 0; d < nd; ++d) {
    if (d != dim) p.push_back(d);
  }
  p.push_back(dim);
  return p;
}

// x with `dim` moved last, contiguous, seen as (count, n).
struct Rows {
  TensorImplPtr t;
  int64_t count = 1, n = 1;
};
Rows MakeRows(const TensorImplPtr& x, int64_t dim) {
  Rows r;
  if (x->ndim() == 0) {
    r.t = Contiguous(x);
    return r;
  }
  r.n = x->shape()[dim];
  r.count = 1;
  for (int64_t d = 0; d < x->ndim(); ++d) {
    if (d != dim) r.count *= x->shape()[d];
  }
  r.t = Contiguous(dim == x->ndim() - 1 ? x : Permute(x, MoveLastPerm(x->ndim(), dim)));
  return r;
}

// A contiguous (count, k) result buffer for `out` (whose `dim` holds k values
// per row, or was reduced away): `out` itself when its layout already fits.
TensorImplPtr RowBuffer(const TensorImplPtr& out, int64_t dim, bool has_dim) {
  const bool direct =
      out->is_contiguous() && (!has_dim || out->ndim() == 0 || dim == out->ndim() - 1);
  if (direct) return out;
  return TensorImpl::Empty(has_dim && out->ndim() > 0
                               ? Permute(out, MoveLastPerm(out->ndim(), dim))->shape()
                               : out->shape(),
                           out->dtype(), out->device());
}
void FinishRows(const TensorImplPtr& buf, const TensorImplPtr& out, int64_t dim, bool has_dim) {
  if (buf == out) return;
  if (has_dim && out->ndim() > 0) {
    CopyInto(buf, Permute(out, MoveLastPerm(out->ndim(), dim)));
  } else {
    CopyInto(buf, out);
  }
}

int64_t RowGrain(int64_t n) { return std::max<int64_t>(1, 32768 / std::max<int64_t>(n, 1)); }

// ---- sort -------------------------------------------------------------------------------

// A stable sort of `v` that splits a long vector over threads: chunks sorted
// in parallel, then merged pairwise (std::merge keeps the left run first on
// ties, so the result stays stable).
template <typename T, typename Cmp>
void ParallelStableSort(T* v, int64_t n, Cmp cmp) {
  const int threads = GetNumThreads();
  if (n < 65536 || threads <= 1 || omp_in_parallel()) {
    std::stable_sort(v, v + n, cmp);
    return;
  }
  int64_t chunks = 1;
  while (chunks < threads) chunks *= 2;
  const int64_t per = (n + chunks - 1) / chunks;
  ParallelFor(chunks, 1, [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) {
      const int64_t lo = std::min(n, k * per), hi = std::min(n, lo + per);
      std::stable_sort(v + lo, v + hi, cmp);
    }
  });
  std::vector<T> buf(n);
  T* src = v;
  T* dst = buf.data();
  for (int64_t width = per; width < n; width *= 2) {
    const int64_t pairs = (n + 2 * width - 1) / (2 * width);
    ParallelFor(pairs, 1, [&](int64_t b, int64_t e) {
      for (int64_t k = b; k < e; ++k) {
        const int64_t lo = k * 2 * width, mid = std::min(n, lo + width),
                      hi = std::min(n, lo + 2 * width);
        std::merge(src + lo, src + mid, src + mid, src + hi, dst + lo, cmp);
      }
    });
    std::swap(src, dst);
  }
  if (src != v) std::copy(src, src + n, v);
}

// A stable LSD radix sort of integer (value, position) pairs, one byte per
// pass; passes where every key has the same byte are skipped.
template <typename A>
void RadixSortPairs(Keyed<A>* v, int64_t n, bool desc) {
  using U = typename std::conditional_t<std::is_same_v<A, bool>, std::common_type<uint8_t>,
                                        std::make_unsigned<A>>::type;
  constexpr int kBytes = sizeof(U);
  auto key = [desc](A x) -> U {
    U k = static_cast<U>(x);
    if constexpr (std::is_signed_v<A>) k ^= static_cast<U>(U{1} << (8 * kBytes - 1));
    return desc ? static_cast<U>(~k) : k;
  };
  std::vector<Keyed<A>> buf(n);
  Keyed<A>* src = v;
  Keyed<A>* dst = buf.data();
  for (int pass = 0; pass < kBytes; ++pass) {
    const int shift = 8 * pass;
    int64_t count[257] = {0};
    for (int64_t i = 0; i < n; ++i) ++count[((key(src[i].first) >> shift) & 0xff) + 1];
    bool trivial = false;
    for (int b = 1; b <= 256; ++b) trivial = trivial || count[b] == n;
    if (trivial) continue;
    for (int b = 0; b < 256; ++b) count[b + 1] += count[b];
    for (int64_t i = 0; i < n; ++i) dst[count[(key(src[i].first) >> shift) & 0xff]++] = src[i];
    std::swap(src, dst);
  }
  if (src != v) std::copy(src, src + n, v);
}

// Fills `row` with (value, position) pairs of the n values at `in` in stable
// sorted order (NaN last, or first when descending). NaNs are set apart first
// so the sort itself compares with a plain < or >; integers are radix-sorted.
template <typename T, typename A = AccT<T>>
void SortRow(const T* in, int64_t n, bool desc, std::vector<Keyed<A>>& row) {
  int64_t m = 0;
  for (int64_t j = 0; j < n; ++j) {
    const A v = static_cast<A>(in[j]);
    if (!IsNaN(v)) row[m++] = {v, j};
  }
  if (m < n) {
    int64_t k = m;
    for (int64_t j = 0; j < n; ++j) {
      const A v = static_cast<A>(in[j]);
      if (IsNaN(v)) row[k++] = {v, j};
    }
  }
  if constexpr (std::is_integral_v<A>) {
    if (n >= 256) {
      RadixSortPairs(row.data(), n, desc);
      return;
    }
  }
  if (desc) {
    ParallelStableSort(row.data(), m,
                       [](const Keyed<A>& p, const Keyed<A>& q) { return p.first > q.first; });
    std::rotate(row.begin(), row.begin() + m, row.begin() + n);
  } else {
    ParallelStableSort(row.data(), m,
                       [](const Keyed<A>& p, const Keyed<A>& q) { return p.first < q.first; });
  }
}

// sort and sort.stable: self is argument 0 of both; dim and descending differ.
void SortKernel(OpCall& c) {
  const TensorImplPtr& x = c.tensor(arg::sort::self);
  const bool stable = c.op->schema().overload == "stable";
  const int64_t dim_arg = stable ? c.get(arg::sort_stable::dim) : c.get(arg::sort::dim);
  const int64_t dim = x->ndim() == 0 ? 0 : WrapDim(dim_arg, x->ndim());
  const bool desc = stable ? c.get(arg::sort_stable::descending) : c.get(arg::sort::descending);
  Rows r = MakeRows(x, dim);
  TensorImplPtr vb = RowBuffer(c.outputs[0], dim, true), ib = RowBuffer(c.outputs[1], dim, true);
  DispatchAll(x->dtype(), "sort", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = AccT<T>;
    const T* in = reinterpret_cast<const T*>(r.t->data());
    T* ov = reinterpret_cast<T*>(vb->data());
    int64_t* oi = reinterpret_cast<int64_t*>(ib->data());
    const int64_t n = r.n;
    auto sort_rows = [&](int64_t b, int64_t e) {
      std::vector<Keyed<A>> row(n);
      for (int64_t i = b; i < e; ++i) {
        SortRow(in + i * n, n, desc, row);
        for (int64_t j = 0; j < n; ++j) {
          ov[i * n + j] = in[i * n + row[j].second];
          oi[i * n + j] = row[j].second;
        }
      }
    };
    // Few long rows: each row's sort uses the threads; else rows are split.
    if (r.count < GetNumThreads()) {
      sort_rows(0, r.count);
    } else {
      ParallelFor(r.count, RowGrain(n * 8), sort_rows);
    }
  });
  FinishRows(vb, c.outputs[0], dim, true);
  FinishRows(ib, c.outputs[1], dim, true);
}
OF_KERNEL("sort", kCPU, kAllDTypes, &SortKernel);
OF_KERNEL("sort.stable", kCPU, kAllDTypes, &SortKernel);

// ---- topk / kthvalue / median / mode --------------------------------------------------------

// Orders (value, position) pairs: by value (NaN largest), then by position, so
// results are deterministic.
template <typename A>
struct PairOrder {
  bool descending;
  bool operator()(const Keyed<A>& p, const Keyed<A>& q) const {
    if (Before(p.first, q.first, descending)) return true;
    if (Before(q.first, p.first, descending)) return false;
    return p.second < q.second;
  }
};

void TopkKernel(OpCall& c) {
  const TensorImplPtr& x = c.tensor(arg::topk::self);
  const int64_t k = c.get(arg::topk::k);
  const int64_t dim = x->ndim() == 0 ? 0 : WrapDim(c.get(arg::topk::dim), x->ndim());
  const bool largest = c.get(arg::topk::largest);
  Rows r = MakeRows(x, dim);
  TensorImplPtr vb = RowBuffer(c.outputs[0], dim, true), ib = RowBuffer(c.outputs[1], dim, true);
  DispatchAll(x->dtype(), "topk", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = AccT<T>;
    const T* in = reinterpret_cast<const T*>(r.t->data());
    T* ov = reinterpret_cast<T*>(vb->data());
    int64_t* oi = reinterpret_cast<int64_t*>(ib->data());
    const int64_t n = r.n;
    ParallelFor(r.count, RowGrain(n * 4), [&](int64_t b, int64_t e) {
      std::vector<Keyed<A>> row(n);
      for (int64_t i = b; i < e; ++i) {
        for (int64_t j = 0; j < n; ++j) row[j] = {static_cast<A>(in[i * n + j]), j};
        std::partial_sort(row.begin(), row.begin() + k, row.end(), PairOrder<A>{largest});
        for (int64_t j = 0; j < k; ++j) {
          ov[i * k + j] = in[i * n + row[j].second];
          oi[i * k + j] = row[j].second;
        }
      }
    });
  });
  FinishRows(vb, c.outputs[0], dim, true);
  FinishRows(ib, c.outputs[1], dim, true);
}
OF_KERNEL("topk", kCPU, kAllDTypes, &TopkKernel);

enum class Pick { kKth, kMedian, kNanMedian, kMode };

// One value and its position per row. For kKth, `k` is 0-based.
template <typename A>
Keyed<A> PickInRow(std::vector<Keyed<A>>& row, Pick pick, int64_t k) {
  const int64_t n = static_cast<int64_t>(row.size());
  if (pick == Pick::kMode) {
    std::stable_sort(row.begin(), row.end(), [](const Keyed<A>& p, const Keyed<A>& q) {
      return Before(p.first, q.first, false);
    });
    Keyed<A> best = row[0];
    int64_t best_count = 0;
    for (int64_t i = 0; i < n;) {
      int64_t j = i;
      int64_t last = row[i].second;
      while (j < n && !Before(row[i].first, row[j].first, false)) {
        last = std::max(last, row[j].second);
        ++j;
      }
      if (j - i > best_count) {
        best_count = j - i;
        best = {row[i].first, last};
      }
      i = j;
    }
    return best;
  }
  int64_t nan_count = 0, first_nan = -1;
  if (pick != Pick::kKth) {
    for (int64_t i = 0; i < n; ++i) {
      if (IsNaN(row[i].first)) {
        if (first_nan < 0) first_nan = i;
        ++nan_count;
      }
    }
    if (nan_count > 0 && (pick == Pick::kMedian || nan_count == n)) return row[first_nan];
    k = (n - nan_count - 1) / 2;
  }
  std::nth_element(row.begin(), row.begin() + k, row.end(), PairOrder<A>{false});
  return row[k];
}

// kthvalue, median.dim, nanmedian.dim, mode: (self, [k,] dim, keepdim).
template <Pick kPick>
void PickDimKernel(OpCall& c) {
  // self is argument 0 of each; median.dim, nanmedian.dim and mode share dim
  // and keepdim, kthvalue has k before them.
  constexpr bool kKth = kPick == Pick::kKth;
  constexpr ArgRef<int64_t> kDim = kKth ? arg::kthvalue::dim : arg::median_dim::dim;
  constexpr ArgRef<bool> kKeepdim = kKth ? arg::kthvalue::keepdim : arg::median_dim::keepdim;
  const TensorImplPtr& x = c.tensor(arg::kthvalue::self);
  const int64_t dim = x->ndim() == 0 ? 0 : WrapDim(c.get(kDim), x->ndim());
  const int64_t k = kKth ? c.get(arg::kthvalue::k) - 1 : 0;
  const bool keepdim = c.get(kKeepdim);
  Rows r = MakeRows(x, dim);
  TensorImplPtr vb = RowBuffer(c.outputs[0], dim, keepdim);
  TensorImplPtr ib = RowBuffer(c.outputs[1], dim, keepdim);
  DispatchAll(x->dtype(), c.name().c_str(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = AccT<T>;
    const T* in = reinterpret_cast<const T*>(r.t->data());
    T* ov = reinterpret_cast<T*>(vb->data());
    int64_t* oi = reinterpret_cast<int64_t*>(ib->data());
    const int64_t n = r.n;
    ParallelFor(r.count, RowGrain(n * 4), [&](int64_t b, int64_t e) {
      std::vector<Keyed<A>> row(n);
      for (int64_t i = b; i < e; ++i) {
        for (int64_t j = 0; j < n; ++j) row[j] = {static_cast<A>(in[i * n + j]), j};
        Keyed<A> p = PickInRow(row, kPick, k);
        ov[i] = in[i * n + p.second];
        oi[i] = p.second;
      }
    });
  });
  FinishRows(vb, c.outputs[0], dim, keepdim);
  FinishRows(ib, c.outputs[1], dim, keepdim);
}
OF_KERNEL("kthvalue", kCPU, kAllDTypes, &PickDimKernel<Pick::kKth>);
OF_KERNEL("median.dim", kCPU, kAllDTypes, &PickDimKernel<Pick::kMedian>);
OF_KERNEL("nanmedian.dim", kCPU, kAllDTypes, &PickDimKernel<Pick::kNanMedian>);
OF_KERNEL("mode", kCPU, kAllDTypes, &PickDimKernel<Pick::kMode>);

// median()/nanmedian(): every element; NaN for an empty input.
template <Pick kPick>
void MedianAllKernel(OpCall& c) {
  TensorImplPtr x = Contiguous(c.tensor(arg::median::self));  // also nanmedian
  const TensorImplPtr& out = c.outputs[0];
  DispatchAll(x->dtype(), c.name().c_str(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = AccT<T>;
    const int64_t n = x->numel();
    if (n == 0) {
      OF_CHECK(kIsFloating<T>, RuntimeError, c.name(),
               "(): cannot compute the median of an empty integer tensor");
      Fill(out, Scalar::Float(std::numeric_limits<double>::quiet_NaN()));
      return;
    }
    const T* in = reinterpret_cast<const T*>(x->data());
    std::vector<Keyed<A>> row(n);
    for (int64_t j = 0; j < n; ++j) row[j] = {static_cast<A>(in[j]), j};
    Keyed<A> p = PickInRow(row, kPick, 0);
    *reinterpret_cast<T*>(out->data()) = in[p.second];
  });
}
OF_KERNEL("median", kCPU, kAllDTypes, &MedianAllKernel<Pick::kMedian>);
OF_KERNEL("nanmedian", kCPU, kAllDTypes, &MedianAllKernel<Pick::kNanMedian>);

// ---- cummax / cummin -------------------------------------------------------------------------

template <bool kMax>
void CumExtremeKernel(OpCall& c) {
  // cummax and cummin: the same arguments.
  const TensorImplPtr& x = c.tensor(arg::cummax::self);
  const int64_t dim = x->ndim() == 0 ? 0 : WrapDim(c.get(arg::cummax::dim), x->ndim());
  Rows r = MakeRows(x, dim);
  TensorImplPtr vb = RowBuffer(c.outputs[0], dim, true), ib = RowBuffer(c.outputs[1], dim, true);
  DispatchAll(x->dtype(), kMax ? "cummax" : "cummin", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = AccT<T>;
    const T* in = reinterpret_cast<const T*>(r.t->data());
    T* ov = reinterpret_cast<T*>(vb->data());
    int64_t* oi = reinterpret_cast<int64_t*>(ib->data());
    const int64_t n = r.n;
    ParallelFor(r.count, RowGrain(n), [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const T* row = in + i * n;
        A best = static_cast<A>(row[0]);
        int64_t at = 0;
        for (int64_t j = 0; j < n; ++j) {
          const A v = static_cast<A>(row[j]);
          // Ties move to the later position; NaN sticks once seen.
          if (IsNaN(v) || (!IsNaN(best) && (kMax ? v >= best : v <= best))) {
            best = v;
            at = j;
          }
          ov[i * n + j] = row[at];
          oi[i * n + j] = at;
        }
      }
    });
  });
  FinishRows(vb, c.outputs[0], dim, true);
  FinishRows(ib, c.outputs[1], dim, true);
}
OF_KERNEL("cummax", kCPU, kAllDTypes, &CumExtremeKernel<true>);
OF_KERNEL("cummin", kCPU, kAllDTypes, &CumExtremeKernel<false>);

// ---- unique --------------------------------------------------------------------------------

TensorImplPtr EmptyIndex(const Device& device) {
  return TensorImpl::Empty({0}, DType::kInt64, device);
}

// Groups `count` items (rows of `len` elements of `in`) into runs of equal
// items, sorted first (lexicographically, stable) unless `consecutive`.
// Returns the order of the items and the start of each run in it.
template <typename T>
void GroupItems(const T* in, int64_t count, int64_t len, bool consecutive,
                std::vector<int64_t>* order, std::vector<int64_t>* starts) {
  using A = AccT<T>;
  auto less = [&](int64_t a, int64_t b) {
    for (int64_t j = 0; j < len; ++j) {
      const A x = static_cast<A>(in[a * len + j]), y = static_cast<A>(in[b * len + j]);
      if (Before(x, y, false)) return true;
      if (Before(y, x, false)) return false;
    }
    return false;
  };
  // NaN equals nothing, so every NaN is its own group (as in PyTorch).
  auto equal = [&](int64_t a, int64_t b) {
    for (int64_t j = 0; j < len; ++j) {
      if (!(static_cast<A>(in[a * len + j]) == static_cast<A>(in[b * len + j]))) return false;
    }
    return true;
  };
  order->resize(count);
  if (len == 1 && !consecutive) {
    // Single elements: sort (value, position) pairs, which is faster than
    // sorting positions through the comparator.
    std::vector<Keyed<A>> items(count);
    SortRow(in, count, false, items);
    for (int64_t i = 0; i < count; ++i) (*order)[i] = items[i].second;
  } else {
    std::iota(order->begin(), order->end(), int64_t{0});
    if (!consecutive) std::stable_sort(order->begin(), order->end(), less);
  }
  starts->clear();
  for (int64_t i = 0; i < count; ++i) {
    if (i == 0 || !equal((*order)[i - 1], (*order)[i])) starts->push_back(i);
  }
}

// Unique items of `x` along `dim` (dim < 0: the elements of x flattened).
// Self is argument 0 of _unique2, _unique_dim and _unique_consecutive.
void UniqueImpl(OpCall& c, int64_t dim, bool consecutive, bool want_inverse, bool want_counts) {
  const TensorImplPtr& x = c.tensor(arg::_unique2::self);
  TensorImplPtr items;
  int64_t count, len;
  DimVector perm;
  if (dim < 0) {
    items = Contiguous(x);
    count = x->numel();
    len = 1;
  } else {
    const int64_t nd = x->ndim();
    perm.push_back(dim);
    for (int64_t d = 0; d < nd; ++d) {
      if (d != dim) perm.push_back(d);
    }
    count = x->shape()[dim];
    len = 1;
    for (int64_t d = 0; d < nd; ++d) {
      if (d != dim) len *= x->shape()[d];
    }
    OF_CHECK(len > 0 || count == 0, RuntimeError, c.name(),
             "(): There are 0 sized dimensions, and they aren't selected, so unique cannot be "
             "applied (shape ",
             ShapeToString(x->shape()), ", dim ", dim, ")");
    items = Contiguous(Permute(x, perm));
  }
  std::vector<int64_t> order, starts;
  DispatchAll(x->dtype(), c.name().c_str(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    GroupItems(reinterpret_cast<const T*>(items->data()), count, len, consecutive, &order, &starts);
  });
  const int64_t groups = static_cast<int64_t>(starts.size());
  // Values: the first item of each group.
  DimVector vshape = dim < 0 ? DimVector{groups} : items->shape();
  if (dim >= 0) vshape[0] = groups;
  TensorImplPtr values = TensorImpl::Empty(vshape, x->dtype(), c.device);
  const int64_t row_bytes = len * x->itemsize();
  for (int64_t g = 0; g < groups; ++g) {
    std::memcpy(values->data() + g * row_bytes, items->data() + order[starts[g]] * row_bytes,
                row_bytes);
  }
  if (dim >= 0) {
    DimVector inv(perm.size());
    for (size_t i = 0; i < perm.size(); ++i) inv[perm[i]] = static_cast<int64_t>(i);
    values = Contiguous(Permute(values, inv));
  }
  TensorImplPtr inverse = EmptyIndex(c.device), counts = EmptyIndex(c.device);
  if (want_inverse) {
    inverse = TensorImpl::Empty(dim < 0 ? x->shape() : DimVector{count}, DType::kInt64, c.device);
    int64_t* p = reinterpret_cast<int64_t*>(inverse->data());
    for (int64_t g = 0; g < groups; ++g) {
      const int64_t end = g + 1 < groups ? starts[g + 1] : count;
      for (int64_t i = starts[g]; i < end; ++i) p[order[i]] = g;
    }
  }
  if (want_counts) {
    counts = TensorImpl::Empty({groups}, DType::kInt64, c.device);
    int64_t* p = reinterpret_cast<int64_t*>(counts->data());
    for (int64_t g = 0; g < groups; ++g)
      p[g] = (g + 1 < groups ? starts[g + 1] : count) - starts[g];
  }
  c.outputs = {values, inverse, counts};
}

void Unique2Kernel(OpCall& c) {
  UniqueImpl(c, -1, false, c.get(arg::_unique2::return_inverse),
             c.get(arg::_unique2::return_counts));
}
void UniqueDimKernel(OpCall& c) {
  namespace A = arg::_unique_dim;
  UniqueImpl(c, WrapDim(c.get(A::dim), c.tensor(A::self)->ndim()), false, c.get(A::return_inverse),
             c.get(A::return_counts));
}
void UniqueConsecutiveKernel(OpCall& c) {
  namespace A = arg::_unique_consecutive;
  const int64_t dim = c.has(A::dim) ? WrapDim(*c.get(A::dim), c.tensor(A::self)->ndim()) : -1;
  UniqueImpl(c, dim, true, c.get(A::return_inverse), c.get(A::return_counts));
}
OF_KERNEL("_unique2", kCPU, kAllDTypes, &Unique2Kernel);
OF_KERNEL("_unique_dim", kCPU, kAllDTypes, &UniqueDimKernel);
OF_KERNEL("_unique_consecutive", kCPU, kAllDTypes, &UniqueConsecutiveKernel);

// ---- searchsorted --------------------------------------------------------------------------

// PyTorch's binary searches: a NaN on either side compares false, which moves
// the search right.
template <typename A, typename Get>
int64_t SearchRow(Get get, int64_t n, A v, bool right) {
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    const A m = get(mid);
    const bool go_right = right ? !(m > v) : !(m >= v);
    if (go_right) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

void SearchsortedKernel(OpCall& c) {
  TensorImplPtr seq = Contiguous(c.tensor(arg::searchsorted::sorted_sequence));
  TensorImplPtr v = Contiguous(c.tensor(arg::searchsorted::self));
  const bool right = c.get(arg::searchsorted::right) ||
                     (c.has(arg::searchsorted::side) && *c.get(arg::searchsorted::side) == "right");
  TensorImplPtr sorter =
      c.has(arg::searchsorted::sorter) ? Contiguous(c.tensor(arg::searchsorted::sorter)) : nullptr;
  const int64_t n = seq->shape().back();
  const int64_t per_row = seq->ndim() == 1 ? v->numel() : (v->ndim() ? v->shape().back() : 1);
  const TensorImplPtr& out = c.outputs[0];
  const bool int32 = out->dtype() == DType::kInt32;
  if (sorter) {
    const int64_t* s = reinterpret_cast<const int64_t*>(sorter->data());
    for (int64_t i = 0; i < sorter->numel(); ++i) {
      OF_CHECK(s[i] >= 0 && s[i] < n, RuntimeError,
               "torch.searchsorted(): sorter index out of range: ", s[i], " for a sequence of ", n,
               " elements");
    }
  }
  DispatchNumeric(seq->dtype(), "searchsorted", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = AccT<T>;
    const T* sp = reinterpret_cast<const T*>(seq->data());
    const T* vp = reinterpret_cast<const T*>(v->data());
    const int64_t* so = sorter ? reinterpret_cast<const int64_t*>(sorter->data()) : nullptr;
    ParallelFor(v->numel(), 4096, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const int64_t row = seq->ndim() == 1 ? 0 : i / per_row;
        const T* base = sp + row * n;
        const int64_t* sb = so ? so + row * n : nullptr;
        auto get = [&](int64_t j) { return static_cast<A>(sb ? base[sb[j]] : base[j]); };
        const int64_t pos = SearchRow<A>(get, n, static_cast<A>(vp[i]), right);
        if (int32) {
          reinterpret_cast<int32_t*>(out->data())[i] = static_cast<int32_t>(pos);
        } else {
          reinterpret_cast<int64_t*>(out->data())[i] = pos;
        }
      }
    });
  });
}
OF_KERNEL("searchsorted", kCPU, kNumericDTypes, &SearchsortedKernel);

// ---- bincount / histc ---------------------------------------------------------------------------

void BincountKernel(OpCall& c) {
  namespace A = arg::bincount;
  TensorImplPtr x = Contiguous(ToDType(c.tensor(A::self), DType::kInt64, false));
  const int64_t n = x->numel();
  const int64_t* p = reinterpret_cast<const int64_t*>(x->data());
  int64_t size = c.get(A::minlength);
  for (int64_t i = 0; i < n; ++i) {
    OF_CHECK(p[i] >= 0, RuntimeError,
             "bincount only supports 1-d non-negative integral inputs (got value ", p[i], ").");
    size = std::max(size, p[i] + 1);
  }
  if (!c.has(A::weights)) {
    TensorImplPtr out = Full({size}, Scalar::Int(0), DType::kInt64, c.device);
    int64_t* o = reinterpret_cast<int64_t*>(out->data());
    for (int64_t i = 0; i < n; ++i) ++o[p[i]];
    c.outputs = {out};
    return;
  }
  // float32 weights count in float32, all others in float64 (as in PyTorch).
  const DType wd =
      c.tensor(A::weights)->dtype() == DType::kFloat32 ? DType::kFloat32 : DType::kFloat64;
  TensorImplPtr w = Contiguous(ToDType(c.tensor(A::weights), DType::kFloat64, false));
  const double* wp = reinterpret_cast<const double*>(w->data());
  std::vector<double> acc(size, 0.0);
  for (int64_t i = 0; i < n; ++i) acc[p[i]] += wp[i];
  TensorImplPtr out = TensorImpl::Empty({size}, wd, c.device);
  for (int64_t i = 0; i < size; ++i) {
    if (wd == DType::kFloat32) {
      reinterpret_cast<float*>(out->data())[i] = static_cast<float>(acc[i]);
    } else {
      reinterpret_cast<double*>(out->data())[i] = acc[i];
    }
  }
  c.outputs = {out};
}
OF_KERNEL("bincount", kCPU, kIntegralDTypes, &BincountKernel);

// histc: `bins` equal bins over [min, max] (the data's range when min == max,
// widened by 1 on each side if that is still empty); values outside are
// dropped and max falls into the last bin.
void HistcKernel(OpCall& c) {
  TensorImplPtr x = Contiguous(c.tensor(arg::histc::self));
  const int64_t bins = c.get(arg::histc::bins);
  const TensorImplPtr& out = c.outputs[0];
  DispatchFloating(x->dtype(), "histc", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = AccT<T>;
    const T* p = reinterpret_cast<const T*>(x->data());
    const int64_t n = x->numel();
    A lo = static_cast<A>(c.args[arg::histc::min].scalar().d),
      hi = static_cast<A>(c.args[arg::histc::max].scalar().d);
    if (lo == hi && n > 0) {
      lo = hi = static_cast<A>(p[0]);
      for (int64_t i = 0; i < n; ++i) {
        const A v = static_cast<A>(p[i]);
        if (IsNaN(v)) {
          lo = hi = v;
          break;
        }
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
    }
    if (lo == hi) {
      lo -= 1;
      hi += 1;
    }
    OF_CHECK(std::isfinite(static_cast<double>(lo)) && std::isfinite(static_cast<double>(hi)),
             RuntimeError, "torch.histc: range of [", static_cast<double>(lo), ", ",
             static_cast<double>(hi), "] is not finite");
    std::vector<int64_t> counts(bins, 0);
    for (int64_t i = 0; i < n; ++i) {
      const A v = static_cast<A>(p[i]);
      if (!(v >= lo && v <= hi)) continue;
      int64_t pos = static_cast<int64_t>((v - lo) * static_cast<A>(bins) / (hi - lo));
      if (pos >= bins) pos = bins - 1;
      ++counts[pos];
    }
    T* o = reinterpret_cast<T*>(out->data());
    for (int64_t b = 0; b < bins; ++b) o[b] = static_cast<T>(static_cast<A>(counts[b]));
  });
}
OF_KERNEL("histc", kCPU, kFloatingDTypes, &HistcKernel);

}  // namespace
}  // namespace cpu
}  // namespace oneflow
