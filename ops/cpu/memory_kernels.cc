// CPU implementations of the core's DeviceKernels: strided copy with dtype
// conversion, fill, and the arange/linspace ramps.

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "core/runtime/device_kernels.h"
#include "core/runtime/error.h"
#include "core/runtime/parallel.h"
#include "ops/cpu/isa.h"

namespace oneflow {
namespace {

// Walks all elements of `shape` for up to two operands with their own
// (element) strides, calling inner(offset_a, offset_b, n, stride_a, stride_b)
// once per innermost row. The dims are visited in b's memory order (largest
// stride outermost), whatever their logical order, and dims that are
// contiguous for both operands are merged, so a dense copy (also of a
// transposed or permuted tensor into the same layout) is one long row.
template <typename Inner>
void ForEachRow(const DimVector& shape, const DimVector& stride_a, const DimVector& stride_b,
                Inner inner) {
  std::vector<size_t> order(shape.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    return stride_b[x] != stride_b[y] ? stride_b[x] > stride_b[y] : stride_a[x] > stride_a[y];
  });
  DimVector s, sa, sb;  // coalesced, innermost last
  for (size_t i : order) {
    if (shape[i] == 1) continue;
    if (shape[i] == 0) return;
    if (!s.empty() && sa.back() == stride_a[i] * shape[i] && sb.back() == stride_b[i] * shape[i]) {
      s.back() *= shape[i];
      sa.back() = stride_a[i];
      sb.back() = stride_b[i];
      continue;
    }
    s.push_back(shape[i]);
    sa.push_back(stride_a[i]);
    sb.push_back(stride_b[i]);
  }
  if (s.empty()) {
    inner(0, 0, 1, 0, 0);
    return;
  }
  const size_t nd = s.size();
  const int64_t rows_inner = s[nd - 1];
  std::vector<int64_t> idx(nd, 0);
  int64_t off_a = 0, off_b = 0;
  while (true) {
    inner(off_a, off_b, rows_inner, sa[nd - 1], sb[nd - 1]);
    // Advance the odometer over the outer dims.
    int64_t d = static_cast<int64_t>(nd) - 2;
    for (; d >= 0; --d) {
      off_a += sa[d];
      off_b += sb[d];
      if (++idx[d] < s[d]) break;
      off_a -= sa[d] * s[d];
      off_b -= sb[d] * s[d];
      idx[d] = 0;
    }
    if (d < 0) return;
  }
}

// Conversions go through float for the 16-bit floats and follow C++ casts
// otherwise (float -> int truncates, as in PyTorch).
template <typename To, typename From>
inline To Convert(From v) {
  if constexpr (std::is_same_v<To, bool>) {
    if constexpr (std::is_same_v<From, Half> || std::is_same_v<From, BFloat16>) {
      return static_cast<float>(v) != 0.0f;
    } else {
      return v != From(0);
    }
  } else if constexpr (std::is_same_v<From, Half> || std::is_same_v<From, BFloat16>) {
    return static_cast<To>(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, Half> || std::is_same_v<To, BFloat16>) {
    return To(static_cast<float>(v));
  } else {
    return static_cast<To>(v);
  }
}

// float -> bfloat16 bits without branches (rounded to nearest even, NaN kept
// quiet, as BFloat16's constructor), so the loop vectorizes; compiled for
// each instruction set (RunForKernelIsa, ONEFLOW_VEC_ISA caps the choice).
OF_INLINE void FloatToBf16Loop(const uint32_t* __restrict s, uint16_t* __restrict d, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const uint32_t x = s[i];
    const uint32_t rounded = (x + 0x7fffu + ((x >> 16) & 1u)) >> 16;
    const uint32_t quiet_nan = (x >> 16) | 0x0040u;
    d[i] = static_cast<uint16_t>((x & 0x7fffffffu) > 0x7f800000u ? quiet_nan : rounded);
  }
}

// n dense elements converted (float -> bfloat16 vectorized, others per element).
template <typename From, typename To>
void ConvertDense(const From* s, To* d, int64_t n) {
  if constexpr (std::is_same_v<From, float> && std::is_same_v<To, BFloat16>) {
    const auto* u = reinterpret_cast<const uint32_t*>(s);
    auto* out = reinterpret_cast<uint16_t*>(d);
    cpu::RunForKernelIsa([&]() OF_INLINE_LAMBDA { FloatToBf16Loop(u, out, n); });
  } else {
    for (int64_t i = 0; i < n; ++i) d[i] = Convert<To>(s[i]);
  }
}

template <typename From, typename To>
void CopyTyped(const TensorImpl& src, TensorImpl& dst) {
  const From* s = reinterpret_cast<const From*>(src.data());
  To* d = reinterpret_cast<To*>(dst.data());
  ForEachRow(dst.shape(), src.stride(), dst.stride(),
             [&](int64_t oa, int64_t ob, int64_t n, int64_t sa, int64_t sb) {
               const From* ps = s + oa;
               To* pd = d + ob;
               if (sa == 0 && sb == 1) {
                 // A broadcast row (an expanded gradient made contiguous) is a fill.
                 const To v = Convert<To>(*ps);
                 ParallelFor(n, 1 << 18,
                             [&](int64_t b, int64_t e) { std::fill(pd + b, pd + e, v); });
                 return;
               }
               if constexpr (std::is_same_v<From, To>) {
                 if (sa == 1 && sb == 1) {
                   // Large dense copies (clone, contiguous) use every thread.
                   ParallelFor(n, 1 << 18, [&](int64_t b, int64_t e) {
                     std::memmove(pd + b, ps + b, (e - b) * sizeof(To));
                   });
                   return;
                 }
               } else if (sa == 1 && sb == 1) {
                 // Dense conversions (autocast's casts) too, vectorized.
                 ParallelFor(n, 1 << 16,
                             [&](int64_t b, int64_t e) { ConvertDense(ps + b, pd + b, e - b); });
                 return;
               }
               for (int64_t i = 0; i < n; ++i) pd[i * sb] = Convert<To>(ps[i * sa]);
             });
}

void CpuCopy(const TensorImpl& src, TensorImpl& dst) {
  DispatchDType(src.dtype(), [&](auto from) {
    DispatchDType(dst.dtype(), [&](auto to) {
      CopyTyped<typename decltype(from)::type, typename decltype(to)::type>(src, dst);
    });
  });
}

template <typename T>
void FillTyped(TensorImpl& dst, const Scalar& value) {
  T v = value.kind == Scalar::Kind::kFloat  ? Convert<T>(value.d)
        : value.kind == Scalar::Kind::kBool ? Convert<T>(value.b)
                                            : Convert<T>(value.i);
  T* d = reinterpret_cast<T*>(dst.data());
  ForEachRow(dst.shape(), dst.stride(), dst.stride(),
             [&](int64_t oa, int64_t, int64_t n, int64_t sa, int64_t) {
               for (int64_t i = 0; i < n; ++i) d[oa + i * sa] = v;
             });
}

void CpuFill(TensorImpl& dst, const Scalar& value) {
  DispatchDType(dst.dtype(), [&](auto t) { FillTyped<typename decltype(t)::type>(dst, value); });
}

template <typename T>
void ArangeTyped(TensorImpl& dst, const Scalar& start, const Scalar& step) {
  T* d = reinterpret_cast<T*>(dst.data());
  const int64_t n = dst.numel();
  const int64_t s = dst.stride().empty() ? 1 : dst.stride()[0];
  bool integral = std::is_integral_v<T> && start.kind != Scalar::Kind::kFloat &&
                  step.kind != Scalar::Kind::kFloat;
  for (int64_t i = 0; i < n; ++i) {
    if (integral) {
      d[i * s] = Convert<T>(start.i + i * step.i);
    } else {
      d[i * s] = Convert<T>(start.d + static_cast<double>(i) * step.d);
    }
  }
}

void CpuArange(TensorImpl& dst, const Scalar& start, const Scalar& step) {
  DispatchDType(dst.dtype(),
                [&](auto t) { ArangeTyped<typename decltype(t)::type>(dst, start, step); });
}

template <typename T>
void LinspaceTyped(TensorImpl& dst, double start, double end) {
  T* d = reinterpret_cast<T*>(dst.data());
  const int64_t n = dst.numel();
  const int64_t s = dst.stride().empty() ? 1 : dst.stride()[0];
  if (n == 1) {
    d[0] = Convert<T>(start);
    return;
  }
  // Fill from both ends so that the last element is exactly `end`.
  const double step = (end - start) / static_cast<double>(n - 1);
  const int64_t half = n / 2;
  for (int64_t i = 0; i < n; ++i) {
    double v = i < half ? start + step * static_cast<double>(i)
                        : end - step * static_cast<double>(n - 1 - i);
    d[i * s] = Convert<T>(v);
  }
}

void CpuLinspace(TensorImpl& dst, double start, double end) {
  DispatchDType(dst.dtype(),
                [&](auto t) { LinspaceTyped<typename decltype(t)::type>(dst, start, end); });
}

const DeviceKernels kCpuKernels = {&CpuCopy, &CpuFill, &CpuArange, &CpuLinspace};
const DeviceKernelsRegistrar registrar(DeviceType::kCPU, &kCpuKernels);

}  // namespace
}  // namespace oneflow
