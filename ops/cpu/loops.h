#ifndef OPS_CPU_LOOPS_H_
#define OPS_CPU_LOOPS_H_

// Elementwise loops over strided, broadcast operands, and dtype dispatch over
// subsets of dtypes. 16-bit floats are computed in float (AccT).

#include <algorithm>
#include <array>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/framework/dispatch.h"
#include "core/runtime/error.h"
#include "core/runtime/parallel.h"

namespace oneflow {
namespace cpu {

template <typename T>
struct Acc {
  using type = T;
};
template <>
struct Acc<Half> {
  using type = float;
};
template <>
struct Acc<BFloat16> {
  using type = float;
};
template <typename T>
using AccT = typename Acc<T>::type;

template <typename T>
constexpr bool kIsFloating =
    std::is_floating_point_v<T> || std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

// Calls fn(TypeTag<T>{}) for dtypes in the named group; other dtypes throw.
template <typename Fn>
void DispatchFloating(DType d, const char* op, Fn&& fn) {
  switch (d) {
    case DType::kFloat16:
      return fn(TypeTag<Half>{});
    case DType::kBFloat16:
      return fn(TypeTag<BFloat16>{});
    case DType::kFloat32:
      return fn(TypeTag<float>{});
    case DType::kFloat64:
      return fn(TypeTag<double>{});
    default:
      OF_THROW(NotImplementedError, "\"", op, "\" not implemented for '", DTypeName(d), "'");
  }
}

template <typename Fn>
void DispatchIntegral(DType d, const char* op, Fn&& fn, bool with_bool = false) {
  switch (d) {
    case DType::kUInt8:
      return fn(TypeTag<uint8_t>{});
    case DType::kInt8:
      return fn(TypeTag<int8_t>{});
    case DType::kInt16:
      return fn(TypeTag<int16_t>{});
    case DType::kInt32:
      return fn(TypeTag<int32_t>{});
    case DType::kInt64:
      return fn(TypeTag<int64_t>{});
    case DType::kBool:
      if (with_bool) return fn(TypeTag<bool>{});
      [[fallthrough]];
    default:
      OF_THROW(NotImplementedError, "\"", op, "\" not implemented for '", DTypeName(d), "'");
  }
}

template <typename Fn>
void DispatchNumeric(DType d, const char* op, Fn&& fn) {
  if (IsFloatingPoint(d)) return DispatchFloating(d, op, fn);
  return DispatchIntegral(d, op, fn);
}

template <typename Fn>
void DispatchAll(DType d, const char* op, Fn&& fn) {
  if (d == DType::kBool) return fn(TypeTag<bool>{});
  return DispatchNumeric(d, op, fn);
}

// Strides (in elements) of `t` broadcast to `shape`.
inline DimVector BroadcastStrides(const TensorImpl& t, const DimVector& shape) {
  DimVector s(shape.size(), 0);
  size_t off = shape.size() - t.shape().size();
  for (size_t i = 0; i < t.shape().size(); ++i) {
    s[off + i] = t.shape()[i] == 1 ? 0 : t.stride()[i];
  }
  return s;
}

// True when `a` and `b` have the same shape and one dense layout (equal strides
// on every dim of size > 1: both contiguous, both channels_last, ...), so an
// element at flat memory offset i of one is at offset i of the other: the pair
// can be walked as two flat arrays.
inline bool SameDenseLayout(const TensorImpl& a, const TensorImpl& b) {
  if (a.shape() != b.shape()) return false;
  if (a.is_contiguous() && b.is_contiguous()) return true;
  const DimVector& shape = a.shape();
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] != 1 && a.stride()[d] != b.stride()[d]) return false;
  }
  return IsNonOverlappingAndDense(shape, a.stride());
}

// Runs f(out_ptr, in_ptrs...) once per element: out has `shape`; each input is
// broadcast to it. Pointers are typed. Elements are visited in the memory order
// of the output (operand 0), so a channels_last output is written sequentially.
template <size_t N, typename Fn>
void ForEachStrided(const DimVector& shape, const std::array<char*, N + 1>& base,
                    const std::array<DimVector, N + 1>& strides,
                    const std::array<int64_t, N + 1>& itemsize, Fn&& fn) {
  const int64_t numel = Numel(shape);
  if (numel == 0) return;
  // The dims outermost first by the output's strides (a stable sort: row-major
  // order wherever the output does not say otherwise).
  std::vector<size_t> order(shape.size());
  for (size_t d = 0; d < order.size(); ++d) order[d] = d;
  {
    const DimVector& os = strides[0];
    bool descending = true;
    int64_t prev = -1;
    for (size_t d = 0; d < shape.size() && descending; ++d) {
      if (shape[d] == 1) continue;
      descending = prev < 0 || os[d] <= prev;
      prev = os[d];
    }
    if (!descending) {
      std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
        const int64_t sx = shape[x] == 1 ? 0 : os[x], sy = shape[y] == 1 ? 0 : os[y];
        return sx > sy;
      });
    }
  }
  // Coalesce: merge dim i into the previous when every operand allows it.
  DimVector sizes;
  std::array<DimVector, N + 1> st;
  for (size_t d : order) {
    if (shape[d] == 1) continue;
    bool merge = !sizes.empty();
    for (size_t k = 0; merge && k <= N; ++k) {
      merge = st[k].back() == strides[k][d] * shape[d];
    }
    if (merge) {
      sizes.back() *= shape[d];
      for (size_t k = 0; k <= N; ++k) st[k].back() = strides[k][d];
    } else {
      sizes.push_back(shape[d]);
      for (size_t k = 0; k <= N; ++k) st[k].push_back(strides[k][d]);
    }
  }
  if (sizes.empty()) {
    sizes.push_back(1);
    for (size_t k = 0; k <= N; ++k) st[k].push_back(0);
  }
  const size_t nd = sizes.size();
  std::array<int64_t, N + 1> inner;
  for (size_t k = 0; k <= N; ++k) inner[k] = st[k][nd - 1] * itemsize[k];
  DimVector idx(nd, 0);
  std::array<char*, N + 1> ptr = base;
  const int64_t rows = numel / sizes[nd - 1];
  for (int64_t r = 0; r < rows; ++r) {
    std::array<char*, N + 1> p = ptr;
    for (int64_t i = 0; i < sizes[nd - 1]; ++i) {
      fn(p);
      for (size_t k = 0; k <= N; ++k) p[k] += inner[k];
    }
    for (int64_t d = static_cast<int64_t>(nd) - 2; d >= 0; --d) {
      for (size_t k = 0; k <= N; ++k) ptr[k] += st[k][d] * itemsize[k];
      if (++idx[d] < sizes[d]) break;
      for (size_t k = 0; k <= N; ++k) ptr[k] -= st[k][d] * itemsize[k] * sizes[d];
      idx[d] = 0;
    }
  }
}

template <typename T>
inline AccT<T> Load(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return static_cast<AccT<T>>(v);
}

template <typename T, typename V>
inline void Store(char* p, V v) {
  T t = static_cast<T>(v);
  std::memcpy(p, &t, sizeof(T));
}

// out = f(a) elementwise; In and Out are storage types, f works on AccT.
// Contiguous elementwise loops split across threads above this many elements.
inline constexpr int64_t kElementwiseGrain = 32768;

template <typename In, typename Out, typename F>
void UnaryLoop(const TensorImpl& a, TensorImpl& out, F f) {
  const int64_t n = out.numel();
  if (SameDenseLayout(a, out)) {
    const In* pa = reinterpret_cast<const In*>(a.data());
    Out* po = reinterpret_cast<Out*>(out.data());
    ParallelFor(n, kElementwiseGrain, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) po[i] = static_cast<Out>(f(static_cast<AccT<In>>(pa[i])));
    });
    return;
  }
  ForEachStrided<1>(out.shape(), {out.data(), a.data()},
                    {out.stride(), BroadcastStrides(a, out.shape())},
                    {static_cast<int64_t>(sizeof(Out)), static_cast<int64_t>(sizeof(In))},
                    [&](const std::array<char*, 2>& p) { Store<Out>(p[0], f(Load<In>(p[1]))); });
}

// out = f(a, b) elementwise with broadcasting.
template <typename In, typename Out, typename F>
void BinaryLoop(const TensorImpl& a, const TensorImpl& b, TensorImpl& out, F f) {
  const int64_t n = out.numel();
  // Flat loops where the operands share the output's dense layout (contiguous,
  // channels_last, ...) or are one value.
  if (out.is_contiguous() || IsNonOverlappingAndDense(out.shape(), out.stride())) {
    Out* po = reinterpret_cast<Out*>(out.data());
    const In* pa = reinterpret_cast<const In*>(a.data());
    const In* pb = reinterpret_cast<const In*>(b.data());
    bool ca = SameDenseLayout(a, out), cb = SameDenseLayout(b, out);
    if (ca && cb) {
      ParallelFor(n, kElementwiseGrain, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) {
          po[i] = static_cast<Out>(f(static_cast<AccT<In>>(pa[i]), static_cast<AccT<In>>(pb[i])));
        }
      });
      return;
    }
    if (ca && b.numel() == 1) {
      AccT<In> vb = static_cast<AccT<In>>(pb[0]);
      for (int64_t i = 0; i < n; ++i) po[i] = static_cast<Out>(f(static_cast<AccT<In>>(pa[i]), vb));
      return;
    }
    if (cb && a.numel() == 1) {
      AccT<In> va = static_cast<AccT<In>>(pa[0]);
      for (int64_t i = 0; i < n; ++i) po[i] = static_cast<Out>(f(va, static_cast<AccT<In>>(pb[i])));
      return;
    }
  }
  ForEachStrided<2>(
      out.shape(), {out.data(), a.data(), b.data()},
      {out.stride(), BroadcastStrides(a, out.shape()), BroadcastStrides(b, out.shape())},
      {static_cast<int64_t>(sizeof(Out)), static_cast<int64_t>(sizeof(In)),
       static_cast<int64_t>(sizeof(In))},
      [&](const std::array<char*, 3>& p) { Store<Out>(p[0], f(Load<In>(p[1]), Load<In>(p[2]))); });
}

// out = f(a, b, c) elementwise with broadcasting (where, addcmul, lerp, ...).
template <typename In, typename Out, typename InA = In, typename F>
void TernaryLoop(const TensorImpl& a, const TensorImpl& b, const TensorImpl& c, TensorImpl& out,
                 F f) {
  // Flat loops where every operand shares the output's dense layout or is one
  // value (e.g. where(mask, grad, 0) of relu's gradient).
  const int64_t n = out.numel();
  auto step = [&](const TensorImpl& t) -> int64_t {
    if (SameDenseLayout(t, out)) return 1;
    return t.numel() == 1 ? 0 : -1;
  };
  const int64_t sa = step(a), sb = step(b), sc = step(c);
  if (sa >= 0 && sb >= 0 && sc >= 0 && IsNonOverlappingAndDense(out.shape(), out.stride())) {
    const InA* pa = reinterpret_cast<const InA*>(a.data());
    const In* pb = reinterpret_cast<const In*>(b.data());
    const In* pc = reinterpret_cast<const In*>(c.data());
    Out* po = reinterpret_cast<Out*>(out.data());
    // The steps (0 or 1) as compile-time constants, so that the loop vectorizes.
    auto run = [&](auto ka, auto kb, auto kc) {
      constexpr int64_t ka_v = decltype(ka)::value, kb_v = decltype(kb)::value,
                        kc_v = decltype(kc)::value;
      ParallelFor(n, kElementwiseGrain, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
          po[i] = static_cast<Out>(f(static_cast<AccT<InA>>(pa[i * ka_v]),
                                     static_cast<AccT<In>>(pb[i * kb_v]),
                                     static_cast<AccT<In>>(pc[i * kc_v])));
        }
      });
    };
    using Zero = std::integral_constant<int64_t, 0>;
    using One = std::integral_constant<int64_t, 1>;
    auto pick = [](int64_t s, auto fn) { return s ? fn(One{}) : fn(Zero{}); };
    pick(sa,
         [&](auto ka) { pick(sb, [&](auto kb) { pick(sc, [&](auto kc) { run(ka, kb, kc); }); }); });
    return;
  }
  ForEachStrided<3>(out.shape(), {out.data(), a.data(), b.data(), c.data()},
                    {out.stride(), BroadcastStrides(a, out.shape()),
                     BroadcastStrides(b, out.shape()), BroadcastStrides(c, out.shape())},
                    {static_cast<int64_t>(sizeof(Out)), static_cast<int64_t>(sizeof(InA)),
                     static_cast<int64_t>(sizeof(In)), static_cast<int64_t>(sizeof(In))},
                    [&](const std::array<char*, 4>& p) {
                      Store<Out>(p[0], f(Load<InA>(p[1]), Load<In>(p[2]), Load<In>(p[3])));
                    });
}

// Calls f(index, offsets) for every element of `shape` in row-major order;
// offsets[k] is the element's offset (in elements) under strides[k].
template <size_t N, typename F>
void ForEachIndex(const DimVector& shape, const std::array<DimVector, N>& strides, F&& f) {
  const int64_t numel = Numel(shape);
  if (numel == 0) return;
  const int64_t nd = static_cast<int64_t>(shape.size());
  DimVector index(nd, 0);
  std::array<int64_t, N> off{};
  for (int64_t i = 0; i < numel; ++i) {
    f(static_cast<const DimVector&>(index), static_cast<const std::array<int64_t, N>&>(off));
    for (int64_t d = nd - 1; d >= 0; --d) {
      for (size_t k = 0; k < N; ++k) off[k] += strides[k][d];
      if (++index[d] < shape[d]) break;
      for (size_t k = 0; k < N; ++k) off[k] -= strides[k][d] * shape[d];
      index[d] = 0;
    }
  }
}

inline void CopyElem(char* dst, const char* src, int64_t itemsize) {
  switch (itemsize) {
    case 1:
      *dst = *src;
      return;
    case 2:
      std::memcpy(dst, src, 2);
      return;
    case 4:
      std::memcpy(dst, src, 4);
      return;
    case 8:
      std::memcpy(dst, src, 8);
      return;
    default:
      std::memcpy(dst, src, itemsize);
  }
}

}  // namespace cpu
}  // namespace oneflow

#endif  // OPS_CPU_LOOPS_H_
