// CPU kernels of interpolation (upsample, forward and backward, area included)
// declared in ops/defs/vision.cc. Loops run over (batch * channels) planes
// with ParallelFor; the input is made contiguous first. float and double are
// computed in their own type (as PyTorch does), Half and BFloat16 through float
// copies.
//
// The source-index arithmetic follows PyTorch's exactly (which precision each
// step uses included), since a different rounding picks a different source
// pixel near integer coordinates:
//  - scale: 1 / scale_factor when one was given (> 0), else in / out;
//    align_corners: (in - 1) / (out - 1);
//  - linear / cubic: src = scale * (dst + 0.5) - 0.5 (half-pixel centers),
//    clamped at 0 for linear; or scale * dst with align_corners;
//  - nearest: floor(dst * scale); nearest-exact: floor((dst + 0.5) * scale)
//    (see NearestTable for how PyTorch's backward differs).

#include <algorithm>
#include <cmath>
#include <optional>
#include <type_traits>
#include <vector>

#include "ops/cpu/loops.h"
#include "ops/cpu/vision_common.h"
#include "ops/defs/common.h"

namespace oneflow {
namespace cpu {
namespace {

constexpr DeviceType kCPU = DeviceType::kCPU;

// ---- interpolation geometry --------------------------------------------------------

// Arguments shared by every interpolation op, forward and backward:
// (tensor, output_size, input_size, [align_corners,] scales...).
struct Geom {
  int nd = 0;
  int64_t planes = 0;
  DimVector in, out;  // spatial sizes
  std::vector<std::optional<double>> scale;
  bool align = false;
  int64_t in_plane() const { return Numel(in); }
  int64_t out_plane() const { return Numel(out); }
};

// The indices are those of every interpolation op (align_corners: of the
// linear and cubic ones); the scales, one per spatial dim, come last.
Geom ParseGeom(const OpCall& c, bool has_align) {
  namespace a = arg::_upsample_linear1d;
  Geom g;
  g.out = c.get(a::output_size);
  const DimVector in = c.get(a::input_size);
  g.nd = static_cast<int>(g.out.size());
  g.planes = in[0] * in[1];
  g.in.assign(in.begin() + 2, in.end());
  size_t tail = a::input_size + 1;
  if (has_align) {
    g.align = c.get(a::align_corners);
    tail = a::align_corners + 1;
  }
  g.scale.resize(g.nd);
  for (int k = 0; k < g.nd; ++k) {
    if (tail + k < c.args.size() && !c.args[tail + k].is_none())
      g.scale[k] = c.args[tail + k].to_double();
  }
  return g;
}

template <typename T>
T ScaleValue(std::optional<double> s, int64_t in, int64_t out) {
  return s && *s > 0 ? static_cast<T>(1.0 / *s) : static_cast<T>(in) / static_cast<T>(out);
}

template <typename T>
T AreaScale(int64_t in, int64_t out, bool align, std::optional<double> s) {
  if (align) return out > 1 ? static_cast<T>(in - 1) / static_cast<T>(out - 1) : T(0);
  return ScaleValue<T>(s, in, out);
}

template <typename T>
T SourceIndex(T scale, int64_t dst, bool align, bool cubic) {
  if (align) return scale * static_cast<T>(dst);
  const T src = scale * (static_cast<T>(dst) + T(0.5)) - T(0.5);
  return (!cubic && src < T(0)) ? T(0) : src;
}

// The floor of a source coordinate, taken in float like PyTorch's.
template <typename T>
int64_t FloorIndex(T real) {
  return static_cast<int64_t>(std::floor(static_cast<float>(real)));
}

// One output index's source taps along one dim: element offsets (index times
// the dim's stride) and weights.
template <typename T, int kTaps>
struct Taps {
  int64_t off[kTaps];
  T w[kTaps];
};

// PyTorch's forward and backward nearest kernels pick sources differently:
// the forward computes in T without shortcuts, the backward in float, with
// out == in read as a copy and out == 2 * in as a halving. Both are kept, so
// gradients land where PyTorch's do.
// I: the type the forward computes indices in (float for uint8 images).
template <typename T, typename I = std::conditional_t<std::is_floating_point_v<T>, T, float>>
std::vector<Taps<T, 1>> NearestTable(int64_t in, int64_t out, std::optional<double> s, bool exact,
                                     bool backward, int64_t stride) {
  std::vector<Taps<T, 1>> t(out);
  const I scale = ScaleValue<I>(s, in, out);
  const float fscale = ScaleValue<float>(s, in, out);
  for (int64_t o = 0; o < out; ++o) {
    int64_t i;
    if (!backward) {
      const I real =
          exact ? SourceIndex<I>(scale, o, false, false) + I(0.5) : scale * static_cast<I>(o);
      i = std::min(FloorIndex(real), in - 1);
    } else if (exact) {
      i = std::min(static_cast<int64_t>(std::floor(static_cast<float>((o + 0.5) * fscale))),
                   in - 1);
    } else if (out == in) {
      i = o;
    } else if (out == 2 * in) {
      i = o >> 1;
    } else {
      i = std::min(static_cast<int64_t>(std::floor(static_cast<float>(o) * fscale)), in - 1);
    }
    t[o] = {{i * stride}, {T(1)}};
  }
  return t;
}

template <typename T>
std::vector<Taps<T, 2>> LinearTable(int64_t in, int64_t out, bool align, std::optional<double> s,
                                    int64_t stride) {
  std::vector<Taps<T, 2>> t(out);
  const T scale = AreaScale<T>(in, out, align, s);
  for (int64_t o = 0; o < out; ++o) {
    if (in == out) {
      t[o] = {{o * stride, o * stride}, {T(1), T(0)}};
      continue;
    }
    const T real = SourceIndex<T>(scale, o, align, false);
    const int64_t i0 = std::min(FloorIndex(real), in - 1);
    const T l1 = std::min(std::max(real - static_cast<T>(i0), T(0)), T(1));
    const int64_t i1 = i0 + (i0 < in - 1 ? 1 : 0);
    t[o] = {{i0 * stride, i1 * stride}, {T(1) - l1, l1}};
  }
  return t;
}

template <typename T>
std::vector<Taps<T, 4>> CubicTable(int64_t in, int64_t out, bool align, std::optional<double> s,
                                   int64_t stride) {
  std::vector<Taps<T, 4>> t(out);
  const T scale = AreaScale<T>(in, out, align, s);
  for (int64_t o = 0; o < out; ++o) {
    const T real = SourceIndex<T>(scale, o, align, true);
    const int64_t i = std::min(FloorIndex(real), in - 1);
    const T frac = std::min(std::max(real - static_cast<T>(i), T(0)), T(1));
    CubicWeights(frac, t[o].w);
    for (int j = 0; j < 4; ++j) t[o].off[j] = std::clamp<int64_t>(i - 1 + j, 0, in - 1) * stride;
  }
  return t;
}

// Interpolates along K dims: the weighted sum over dim 0's taps of the
// interpolation along the remaining dims (PyTorch's nesting, hence rounding).
template <int K, typename T, int kTaps>
inline T Interp(const T* x, const Taps<T, kTaps>* const* t) {
  if constexpr (K == 0) {
    return *x;
  } else {
    T s = Interp<K - 1>(x + t[0]->off[0], t + 1) * t[0]->w[0];
    for (int j = 1; j < kTaps; ++j) s += Interp<K - 1>(x + t[0]->off[j], t + 1) * t[0]->w[j];
    return s;
  }
}

// The adjoint of Interp: g spread over the taps.
template <int K, typename T, int kTaps>
inline void Scatter(T* gx, const Taps<T, kTaps>* const* t, T g) {
  if constexpr (K == 0) {
    *gx += g;
  } else {
    for (int j = 0; j < kTaps; ++j) Scatter<K - 1>(gx + t[0]->off[j], t + 1, t[0]->w[j] * g);
  }
}

// Runs every plane: forward reads `src` (input) and writes `dst` (output);
// backward reads `src` (grad_output) and accumulates into `dst` (grad_input,
// zeroed). tabs[d] holds the taps of spatial dim d per output index.
template <int ND, bool kBackward, typename T, int kTaps>
void RunPlanes(const Geom& g, const std::vector<Taps<T, kTaps>>* tabs, const T* src, T* dst) {
  const int64_t in_plane = g.in_plane(), out_plane = g.out_plane();
  const int64_t o0 = ND == 3 ? g.out[0] : 1, o1 = ND >= 2 ? g.out[ND - 2] : 1, o2 = g.out[ND - 1];
  int64_t taps = 1;
  for (int d = 0; d < ND; ++d) taps *= kTaps;
  ParallelFor(g.planes, Grain(out_plane * taps), [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) {
      const T* s = src + p * (kBackward ? out_plane : in_plane);
      T* d = dst + p * (kBackward ? in_plane : out_plane);
      int64_t o = 0;
      const Taps<T, kTaps>* t[3];
      for (int64_t i0 = 0; i0 < o0; ++i0) {
        if constexpr (ND == 3) t[0] = &tabs[0][i0];
        for (int64_t i1 = 0; i1 < o1; ++i1) {
          if constexpr (ND >= 2) t[ND - 2] = &tabs[ND - 2][i1];
          for (int64_t i2 = 0; i2 < o2; ++i2, ++o) {
            t[ND - 1] = &tabs[ND - 1][i2];
            if constexpr (kBackward) {
              Scatter<ND>(d, t, s[o]);
            } else {
              d[o] = Interp<ND>(s, t);
            }
          }
        }
      }
    }
  });
}

enum class Mode { kNearest, kNearestExact, kLinear, kCubic };

template <Mode kMode, bool kBackward, typename T>
void UpsampleTyped(OpCall& c) {
  constexpr bool kAlign = kMode == Mode::kLinear || kMode == Mode::kCubic;
  const Geom g = ParseGeom(c, kAlign);
  // self (grad_output in the backward ops): the same index in every op.
  const TensorImplPtr src = Contiguous(c.tensor(arg::_upsample_nearest1d::self));
  const TensorImplPtr& dst = c.outputs[0];
  if (kBackward) Fill(dst, Scalar::Int(0));
  if (dst->numel() == 0 || src->numel() == 0) return;
  constexpr int kTaps = kMode == Mode::kLinear ? 2 : kMode == Mode::kCubic ? 4 : 1;
  std::vector<Taps<T, kTaps>> tabs[3];
  int64_t stride = 1;
  for (int d = g.nd - 1; d >= 0; --d) {
    if constexpr (kMode == Mode::kLinear) {
      tabs[d] = LinearTable<T>(g.in[d], g.out[d], g.align, g.scale[d], stride);
    } else if constexpr (kMode == Mode::kCubic) {
      tabs[d] = CubicTable<T>(g.in[d], g.out[d], g.align, g.scale[d], stride);
    } else {
      tabs[d] = NearestTable<T>(g.in[d], g.out[d], g.scale[d], kMode == Mode::kNearestExact,
                                kBackward, stride);
    }
    stride *= g.in[d];
  }
  const T* s = Ptr<T>(src);
  T* o = MutPtr<T>(dst);
  switch (g.nd) {
    case 1:
      return RunPlanes<1, kBackward>(g, tabs, s, o);
    case 2:
      return RunPlanes<2, kBackward>(g, tabs, s, o);
    default:
      return RunPlanes<3, kBackward>(g, tabs, s, o);
  }
}

template <Mode kMode, bool kBackward>
void UpsampleKernel(OpCall& c) {
  // Nearest sampling only moves elements: images as bytes too, as in PyTorch.
  constexpr bool kNearest = kMode == Mode::kNearest || kMode == Mode::kNearestExact;
  if constexpr (kNearest && !kBackward) {
    if (c.compute_dtype == DType::kUInt8) return UpsampleTyped<kMode, false, uint8_t>(c);
  }
  DispatchFloatDouble(c.compute_dtype, c.name(), [&](auto tag) {
    UpsampleTyped<kMode, kBackward, typename decltype(tag)::type>(c);
  });
}

// Nearest forward kernels also take uint8.
constexpr DTypeSet kNearestDTypes = kFloatingDTypes | DTypeBit(DType::kUInt8);

#define OF_UPSAMPLE_KERNELS(name, mode, dtypes)                             \
  OF_KERNEL(name, kCPU, dtypes, (&ViaFloat<&UpsampleKernel<mode, false>>)); \
  OF_KERNEL(name "_backward", kCPU, kFloatingDTypes, (&ViaFloat<&UpsampleKernel<mode, true>>))

OF_UPSAMPLE_KERNELS("_upsample_nearest1d", Mode::kNearest, kNearestDTypes);
OF_UPSAMPLE_KERNELS("_upsample_nearest2d", Mode::kNearest, kNearestDTypes);
OF_UPSAMPLE_KERNELS("_upsample_nearest3d", Mode::kNearest, kNearestDTypes);
OF_UPSAMPLE_KERNELS("_upsample_nearest_exact1d", Mode::kNearestExact, kNearestDTypes);
OF_UPSAMPLE_KERNELS("_upsample_nearest_exact2d", Mode::kNearestExact, kNearestDTypes);
OF_UPSAMPLE_KERNELS("_upsample_nearest_exact3d", Mode::kNearestExact, kNearestDTypes);
OF_UPSAMPLE_KERNELS("_upsample_linear1d", Mode::kLinear, kFloatingDTypes);
OF_UPSAMPLE_KERNELS("_upsample_bilinear2d", Mode::kLinear, kFloatingDTypes);
OF_UPSAMPLE_KERNELS("_upsample_trilinear3d", Mode::kLinear, kFloatingDTypes);
OF_UPSAMPLE_KERNELS("_upsample_bicubic2d", Mode::kCubic, kFloatingDTypes);

// ---- area (adaptive average pooling) ---------------------------------------------

// Output index o of `out` averages input [floor(o * in / out), ceil((o + 1) * in / out)).
struct Window1d {
  int64_t begin, end;
};
std::vector<Window1d> AdaptiveWindows(int64_t in, int64_t out) {
  std::vector<Window1d> w(out);
  for (int64_t o = 0; o < out; ++o) w[o] = {(o * in) / out, ((o + 1) * in + out - 1) / out};
  return w;
}

template <bool kBackward, typename T>
void AreaTyped(OpCall& c) {
  const Geom g = ParseGeom(c, false);
  // self (grad_output in the backward op): the same index.
  const TensorImplPtr src = Contiguous(c.tensor(arg::_upsample_area::self));
  const TensorImplPtr& dst = c.outputs[0];
  if (kBackward) Fill(dst, Scalar::Int(0));
  if (dst->numel() == 0 || src->numel() == 0) return;
  // Three dims, leading ones of size 1.
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1};
  for (int d = 0; d < g.nd; ++d) {
    in[3 - g.nd + d] = g.in[d];
    out[3 - g.nd + d] = g.out[d];
  }
  std::vector<Window1d> w[3];
  for (int d = 0; d < 3; ++d) w[d] = AdaptiveWindows(in[d], out[d]);
  const int64_t in_plane = g.in_plane(), out_plane = g.out_plane();
  const T* s = Ptr<T>(src);
  T* o = MutPtr<T>(dst);
  const int64_t per_out = std::max<int64_t>(1, in_plane / std::max<int64_t>(1, out_plane));
  ParallelFor(g.planes, Grain(out_plane * per_out), [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) {
      const T* x = kBackward ? nullptr : s + p * in_plane;
      T* gx = kBackward ? o + p * in_plane : nullptr;
      int64_t k = 0;
      for (int64_t od = 0; od < out[0]; ++od) {
        const Window1d wd = w[0][od];
        for (int64_t oh = 0; oh < out[1]; ++oh) {
          const Window1d wh = w[1][oh];
          for (int64_t ow = 0; ow < out[2]; ++ow, ++k) {
            const Window1d ww = w[2][ow];
            const T kd = static_cast<T>(wd.end - wd.begin), kh = static_cast<T>(wh.end - wh.begin),
                    kw = static_cast<T>(ww.end - ww.begin);
            if constexpr (kBackward) {
              const T delta = s[p * out_plane + k] / kd / kh / kw;
              for (int64_t id = wd.begin; id < wd.end; ++id)
                for (int64_t ih = wh.begin; ih < wh.end; ++ih)
                  for (int64_t iw = ww.begin; iw < ww.end; ++iw)
                    gx[(id * in[1] + ih) * in[2] + iw] += delta;
            } else {
              T sum = 0;
              for (int64_t id = wd.begin; id < wd.end; ++id)
                for (int64_t ih = wh.begin; ih < wh.end; ++ih)
                  for (int64_t iw = ww.begin; iw < ww.end; ++iw)
                    sum += x[(id * in[1] + ih) * in[2] + iw];
              o[p * out_plane + k] = sum / kd / kh / kw;
            }
          }
        }
      }
    }
  });
}

template <bool kBackward>
void AreaKernel(OpCall& c) {
  DispatchFloatDouble(c.compute_dtype, c.name(),
                      [&](auto tag) { AreaTyped<kBackward, typename decltype(tag)::type>(c); });
}
OF_KERNEL("_upsample_area", kCPU, kFloatingDTypes, &ViaFloat<&AreaKernel<false>>);
OF_KERNEL("_upsample_area_backward", kCPU, kFloatingDTypes, &ViaFloat<&AreaKernel<true>>);

}  // namespace
}  // namespace cpu
}  // namespace oneflow
