// CPU kernels of the vision ops declared in ops/defs/vision.cc: interpolation
// (forward and backward), grid_sampler and im2col / col2im. Loops run over
// (batch * channels) planes, or over sampled positions, with ParallelFor; the
// input is made contiguous first. float and double are computed in their own
// type (as PyTorch does), Half and BFloat16 through float copies.
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
#include "ops/defs/common.h"

namespace oneflow {
namespace cpu {
namespace {

constexpr DeviceType kCPU = DeviceType::kCPU;

// Work per ParallelFor chunk, in output elements times taps.
constexpr int64_t kWorkGrain = 16384;

int64_t Grain(int64_t work_per_item) {
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

Geom ParseGeom(const OpCall& c, bool has_align) {
  Geom g;
  g.out = c.args[1].int_list();
  const DimVector& in = c.args[2].int_list();
  g.nd = static_cast<int>(g.out.size());
  g.planes = in[0] * in[1];
  g.in.assign(in.begin() + 2, in.end());
  size_t tail = 3;
  if (has_align) g.align = c.args[tail++].to_bool();
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
  const TensorImplPtr src = Contiguous(c.tensor(0));
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
  const TensorImplPtr src = Contiguous(c.tensor(0));
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

// ---- grid_sampler ------------------------------------------------------------------

enum SamplerMode { kBilinearMode = 0, kNearestMode = 1, kBicubicMode = 2 };
enum Padding { kZeros = 0, kBorder = 1, kReflection = 2 };

// Grid value in [-1, 1] -> pixel coordinate; *g = d(result) / d(coord).
template <typename T>
T Unnormalize(T coord, int64_t size, bool align, T* g) {
  if (align) {
    *g = static_cast<T>(size - 1) / 2;
    return (coord + 1) / 2 * static_cast<T>(size - 1);
  }
  *g = static_cast<T>(size) / 2;
  return ((coord + 1) * static_cast<T>(size) - 1) / 2;
}

// Clamped to [0, size - 1]; the gradient is 0 where clamped.
template <typename T>
T Clip(T in, int64_t size, T* g) {
  if (in <= T(0)) {
    *g = 0;
    return 0;
  }
  const T hi = static_cast<T>(size - 1);
  if (in >= hi) {
    *g = 0;
    return hi;
  }
  *g = 1;
  return in;
}

// Reflected into [twice_low / 2, twice_high / 2] as often as needed.
template <typename T>
T Reflect(T in, int64_t twice_low, int64_t twice_high, T* g) {
  if (twice_low == twice_high) {
    *g = 0;
    return 0;
  }
  const T lo = static_cast<T>(twice_low) / 2;
  const T span = static_cast<T>(twice_high - twice_low) / 2;
  in -= lo;
  T sign = 1;
  if (in < 0) {
    sign = -1;
    in = -in;
  }
  const T extra = std::fmod(in, span);
  const int64_t flips = static_cast<int64_t>(std::floor(in / span));
  if (flips % 2 == 0) {
    *g = sign;
    return extra + lo;
  }
  *g = -sign;
  return span - extra + lo;
}

// A pixel coordinate after the padding mode; *g as above.
template <typename T>
T Padded(T c, int64_t size, int padding, bool align, T* g) {
  if (padding == kBorder) return Clip(c, size, g);
  if (padding == kReflection) {
    T g1, g2;
    c = align ? Reflect(c, 0, 2 * (size - 1), &g1) : Reflect(c, -1, 2 * size - 1, &g1);
    c = Clip(c, size, &g2);
    *g = g1 * g2;
    return c;
  }
  *g = 1;
  return c;
}

struct SamplerArgs {
  int nd;             // 2 or 3 spatial dims
  int64_t n, ch;      // batch, channels
  int64_t size[3];    // input spatial sizes (D,) H, W
  int64_t positions;  // sampled points per batch element
  int mode, padding;
  bool align;
  int64_t in_plane() const { return nd == 3 ? size[0] * size[1] * size[2] : size[0] * size[1]; }
};

SamplerArgs ParseSampler(const TensorImplPtr& input, const TensorImplPtr& grid, const OpCall& c,
                         int first) {
  SamplerArgs a;
  a.nd = static_cast<int>(input->ndim()) - 2;
  a.n = input->shape()[0];
  a.ch = input->shape()[1];
  for (int d = 0; d < a.nd; ++d) a.size[d] = input->shape()[2 + d];
  a.positions = grid->numel() / std::max<int64_t>(1, a.n * a.nd);
  a.mode = static_cast<int>(c.args[first].to_int());
  a.padding = static_cast<int>(c.args[first + 1].to_int());
  a.align = c.args[first + 2].to_bool();
  return a;
}

// One sampled point: up to 8 corner taps (offset in the plane, weight, and
// the weight's derivative along each spatial dim), or 16 bicubic taps.
template <typename T>
struct Point {
  int count = 0;
  int64_t off[16];
  T w[16];
  T dw[16][3];  // d w / d (pixel coordinate of dim d), filled when grads are wanted
  T mult[3];    // d (pixel coordinate) / d (grid value), per spatial dim
};

// The taps of grid point `gp` (nd values: x, y[, z]). Dims are indexed
// (D,) H, W; grid component k is spatial dim nd - 1 - k.
template <typename T, bool kGrads>
void SamplePoint(const SamplerArgs& a, const T* gp, Point<T>* pt) {
  const int nd = a.nd;
  int64_t stride[3];
  stride[nd - 1] = 1;
  for (int d = nd - 2; d >= 0; --d) stride[d] = stride[d + 1] * a.size[d + 1];
  T v[3];
  pt->count = 0;
  if (a.mode == kBicubicMode) {
    // 2-D only: taps at floor - 1 .. floor + 2, each taken through the padding mode.
    T frac[2], wt[2][4], gw[2][4];
    int64_t base[2];
    for (int d = 0; d < 2; ++d) {
      v[d] = Unnormalize(gp[1 - d], a.size[d], a.align, &pt->mult[d]);
      base[d] = static_cast<int64_t>(std::floor(v[d]));
      frac[d] = v[d] - static_cast<T>(base[d]);
      CubicWeights(frac[d], wt[d]);
      if (kGrads) CubicWeightGrads(frac[d], gw[d]);
    }
    for (int j = 0; j < 4; ++j) {
      for (int i = 0; i < 4; ++i) {
        T unused;
        const T y = Padded(static_cast<T>(base[0] - 1 + j), a.size[0], a.padding, a.align, &unused);
        const T x = Padded(static_cast<T>(base[1] - 1 + i), a.size[1], a.padding, a.align, &unused);
        const int64_t iy = static_cast<int64_t>(y), ix = static_cast<int64_t>(x);
        if (iy < 0 || iy >= a.size[0] || ix < 0 || ix >= a.size[1] || y != y || x != x) continue;
        const int k = pt->count++;
        pt->off[k] = iy * stride[0] + ix;
        pt->w[k] = wt[1][i] * wt[0][j];
        if (kGrads) {
          pt->dw[k][0] = wt[1][i] * gw[0][j];
          pt->dw[k][1] = gw[1][i] * wt[0][j];
        }
      }
    }
    return;
  }
  for (int d = 0; d < nd; ++d) {
    T g1, g2;
    const T u = Unnormalize(gp[nd - 1 - d], a.size[d], a.align, &g1);
    v[d] = Padded(u, a.size[d], a.padding, a.align, &g2);
    pt->mult[d] = g1 * g2;
  }
  if (a.mode == kNearestMode) {
    int64_t off = 0;
    for (int d = 0; d < nd; ++d) {
      const T r = std::nearbyint(v[d]);
      if (!(r >= 0 && r < static_cast<T>(a.size[d]))) return;
      off += static_cast<int64_t>(r) * stride[d];
    }
    pt->count = 1;
    pt->off[0] = off;
    pt->w[0] = 1;
    if (kGrads) pt->dw[0][0] = pt->dw[0][1] = pt->dw[0][2] = 0;
    return;
  }
  // Bilinear / trilinear: corner bit d' (0 = W, 1 = H, 2 = D) picks floor or floor + 1.
  int64_t lo[3];
  T wlo[3], whi[3];
  for (int d = 0; d < nd; ++d) {
    const T f = std::floor(v[d]);
    lo[d] = static_cast<int64_t>(f);
    whi[d] = v[d] - f;
    wlo[d] = f + 1 - v[d];
  }
  for (int corner = 0; corner < (1 << nd); ++corner) {
    int64_t off = 0;
    bool inside = true;
    T w = 1;
    for (int bit = 0; bit < nd; ++bit) {
      const int d = nd - 1 - bit;
      const bool up = (corner >> bit) & 1;
      const int64_t i = lo[d] + up;
      inside = inside && i >= 0 && i < a.size[d];
      off += i * stride[d];
      w = bit == 0 ? (up ? whi[d] : wlo[d]) : w * (up ? whi[d] : wlo[d]);
    }
    if (!inside) continue;
    const int k = pt->count++;
    pt->off[k] = off;
    pt->w[k] = w;
    if (kGrads) {
      for (int d = 0; d < nd; ++d) {
        T p = 1;
        for (int e = 0; e < nd; ++e) {
          const bool up = (corner >> (nd - 1 - e)) & 1;
          p *= e == d ? (up ? T(1) : T(-1)) : (up ? whi[e] : wlo[e]);
        }
        pt->dw[k][d] = p;
      }
    }
  }
}

// The taps of a run of grid points, computed once and shared by every channel.
template <typename T>
struct TapChunk {
  int taps = 0;
  std::vector<int32_t> count;
  std::vector<int64_t> off;
  std::vector<T> w;

  void Build(const SamplerArgs& a, const T* grid, int64_t len) {
    taps = a.mode == kBicubicMode ? 16 : a.mode == kNearestMode ? 1 : (1 << a.nd);
    count.resize(len);
    off.resize(len * taps);
    w.resize(len * taps);
    ParallelFor(len, 256, [&](int64_t b, int64_t e) {
      Point<T> pt;
      for (int64_t q = b; q < e; ++q) {
        SamplePoint<T, false>(a, grid + q * a.nd, &pt);
        count[q] = pt.count;
        std::copy(pt.off, pt.off + pt.count, off.begin() + q * taps);
        std::copy(pt.w, pt.w + pt.count, w.begin() + q * taps);
      }
    });
  }
};

// Grid points per TapChunk (bounds its memory).
constexpr int64_t kSamplerChunk = 16384;

template <typename T>
void GridSamplerTyped(OpCall& c) {
  const TensorImplPtr input = Contiguous(c.tensor(0));
  const TensorImplPtr grid = Contiguous(c.tensor(1));
  const SamplerArgs a = ParseSampler(input, grid, c, 2);
  const T* x = Ptr<T>(input);
  const T* gp = Ptr<T>(grid);
  T* y = MutPtr<T>(c.outputs[0]);
  const int64_t in_plane = a.in_plane(), npos = a.positions;
  if (c.outputs[0]->numel() == 0) return;
  TapChunk<T> tc;
  for (int64_t n = 0; n < a.n; ++n) {
    for (int64_t p0 = 0; p0 < npos; p0 += kSamplerChunk) {
      const int64_t len = std::min(kSamplerChunk, npos - p0);
      tc.Build(a, gp + (n * npos + p0) * a.nd, len);
      // (channel, point) pairs: each channel's plane is read by consecutive points.
      ParallelFor(a.ch * len, Grain(tc.taps), [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) {
          const int64_t ch = i / len, q = i % len;
          const T* xp = x + (n * a.ch + ch) * in_plane;
          const int64_t* off = tc.off.data() + q * tc.taps;
          const T* w = tc.w.data() + q * tc.taps;
          T sum = 0;
          for (int k = 0; k < tc.count[q]; ++k) sum += xp[off[k]] * w[k];
          y[(n * a.ch + ch) * npos + p0 + q] = sum;
        }
      });
    }
  }
}

// grad_input: each (batch, channel) plane gathers its points' contributions
// (planes are disjoint, so they run in parallel); grad_grid: each point sums
// over channels.
template <typename T>
void GridSamplerBackwardTyped(OpCall& c) {
  const TensorImplPtr gy = Contiguous(c.tensor(0));
  const TensorImplPtr input = Contiguous(c.tensor(1));
  const TensorImplPtr grid = Contiguous(c.tensor(2));
  const SamplerArgs a = ParseSampler(input, grid, c, 3);
  const bool input_grad = c.args[6].to_bool();
  const T* x = Ptr<T>(input);
  const T* gp = Ptr<T>(grid);
  const T* go = Ptr<T>(gy);
  T* gx = MutPtr<T>(c.outputs[0]);
  T* gg = MutPtr<T>(c.outputs[1]);
  Fill(c.outputs[0], Scalar::Int(0));
  Fill(c.outputs[1], Scalar::Int(0));
  const int64_t in_plane = a.in_plane(), npos = a.positions;
  if (a.n * npos == 0 || a.ch == 0) return;
  if (input_grad) {
    TapChunk<T> tc;
    for (int64_t n = 0; n < a.n; ++n) {
      for (int64_t p0 = 0; p0 < npos; p0 += kSamplerChunk) {
        const int64_t len = std::min(kSamplerChunk, npos - p0);
        tc.Build(a, gp + (n * npos + p0) * a.nd, len);
        ParallelFor(a.ch, Grain(len * tc.taps), [&](int64_t b, int64_t e) {
          for (int64_t ch = b; ch < e; ++ch) {
            T* gxp = gx + (n * a.ch + ch) * in_plane;
            const T* gop = go + (n * a.ch + ch) * npos + p0;
            for (int64_t q = 0; q < len; ++q) {
              const int64_t* off = tc.off.data() + q * tc.taps;
              const T* w = tc.w.data() + q * tc.taps;
              for (int k = 0; k < tc.count[q]; ++k) gxp[off[k]] += gop[q] * w[k];
            }
          }
        });
      }
    }
  }
  if (a.mode == kNearestMode) return;
  ParallelFor(a.n * a.positions, Grain(a.ch * 8), [&](int64_t b, int64_t e) {
    Point<T> pt;
    for (int64_t q = b; q < e; ++q) {
      const int64_t n = q / a.positions, pos = q % a.positions;
      SamplePoint<T, true>(a, gp + q * a.nd, &pt);
      T acc[3] = {0, 0, 0};
      for (int64_t ch = 0; ch < a.ch; ++ch) {
        const T* xp = x + (n * a.ch + ch) * in_plane;
        const T g = go[(n * a.ch + ch) * a.positions + pos];
        for (int k = 0; k < pt.count; ++k) {
          const T vg = xp[pt.off[k]] * g;
          for (int d = 0; d < a.nd; ++d) acc[d] += vg * pt.dw[k][d];
        }
      }
      for (int d = 0; d < a.nd; ++d) gg[q * a.nd + (a.nd - 1 - d)] = acc[d] * pt.mult[d];
    }
  });
}

void GridSamplerKernel(OpCall& c) {
  DispatchFloatDouble(c.compute_dtype, "grid_sampler",
                      [&](auto tag) { GridSamplerTyped<typename decltype(tag)::type>(c); });
}
void GridSamplerBackwardKernel(OpCall& c) {
  DispatchFloatDouble(c.compute_dtype, "grid_sampler_backward",
                      [&](auto tag) { GridSamplerBackwardTyped<typename decltype(tag)::type>(c); });
}
OF_KERNEL("grid_sampler", kCPU, kFloatingDTypes, &ViaFloat<&GridSamplerKernel>);
OF_KERNEL("grid_sampler_backward", kCPU, kFloatingDTypes, &ViaFloat<&GridSamplerBackwardKernel>);

// ---- im2col / col2im ---------------------------------------------------------------

// Window arguments and sizes of one im2col / col2im call. The image side is
// (planes, h, w) with planes = N * C; the column side is (planes, kh * kw, L).
struct Cols {
  int64_t kh, kw, dh, dw, ph, pw, sh, sw;
  int64_t planes, h, w, oh, ow;
};

Cols ParseCols(const DimVector& image, const OpCall& c, int first) {
  Cols k;
  const DimVector ks = c.args[first].int_list(), di = c.args[first + 1].int_list(),
                  pa = c.args[first + 2].int_list(), st = c.args[first + 3].int_list();
  k.kh = ks[0], k.kw = ks[1], k.dh = di[0], k.dw = di[1];
  k.ph = pa[0], k.pw = pa[1], k.sh = st[0], k.sw = st[1];
  const int64_t nd = static_cast<int64_t>(image.size());
  k.h = image[nd - 2];
  k.w = image[nd - 1];
  k.planes = Numel(image) / std::max<int64_t>(1, k.h * k.w);
  k.oh = (k.h + 2 * k.ph - (k.dh * (k.kh - 1) + 1)) / k.sh + 1;
  k.ow = (k.w + 2 * k.pw - (k.dw * (k.kw - 1) + 1)) / k.sw + 1;
  return k;
}

// kToCols: cols[row][l] = image[...] (or 0 in the padding); else
// image[...] += cols[row][l].
template <bool kToCols, typename T>
void Im2colTyped(const Cols& k, const T* image, const T* cols_in, T* image_out, T* cols) {
  const int64_t l = k.oh * k.ow, rows = k.kh * k.kw;
  ParallelFor(k.planes, Grain(rows * l), [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) {
      const T* img = kToCols ? image + p * k.h * k.w : nullptr;
      T* img_out = kToCols ? nullptr : image_out + p * k.h * k.w;
      for (int64_t i = 0; i < k.kh; ++i) {
        for (int64_t j = 0; j < k.kw; ++j) {
          const int64_t row = (p * rows + i * k.kw + j) * l;
          for (int64_t y = 0; y < k.oh; ++y) {
            const int64_t iy = y * k.sh - k.ph + i * k.dh;
            const bool row_in = iy >= 0 && iy < k.h;
            for (int64_t x = 0; x < k.ow; ++x) {
              const int64_t ix = x * k.sw - k.pw + j * k.dw;
              const bool in = row_in && ix >= 0 && ix < k.w;
              if constexpr (kToCols) {
                cols[row + y * k.ow + x] = in ? img[iy * k.w + ix] : T(0);
              } else {
                if (in) img_out[iy * k.w + ix] += cols_in[row + y * k.ow + x];
              }
            }
          }
        }
      }
    }
  });
}

void Im2colKernel(OpCall& c) {
  const TensorImplPtr x = Contiguous(c.tensor(0));
  const Cols k = ParseCols(x->shape(), c, 1);
  if (c.outputs[0]->numel() == 0) return;
  DispatchFloatDouble(c.compute_dtype, "im2col", [&](auto tag) {
    using T = typename decltype(tag)::type;
    Im2colTyped<true, T>(k, Ptr<T>(x), nullptr, nullptr, MutPtr<T>(c.outputs[0]));
  });
}

void Col2imKernel(OpCall& c) {
  const TensorImplPtr cols = Contiguous(c.tensor(0));
  const TensorImplPtr& out = c.outputs[0];
  Fill(out, Scalar::Int(0));
  const Cols k = ParseCols(out->shape(), c, 2);
  if (out->numel() == 0) return;
  DispatchFloatDouble(c.compute_dtype, "col2im", [&](auto tag) {
    using T = typename decltype(tag)::type;
    Im2colTyped<false, T>(k, nullptr, Ptr<T>(cols), MutPtr<T>(out), nullptr);
  });
}
OF_KERNEL("_im2col", kCPU, kFloatingDTypes, &ViaFloat<&Im2colKernel>);
OF_KERNEL("_col2im", kCPU, kFloatingDTypes, &ViaFloat<&Col2imKernel>);

}  // namespace
}  // namespace cpu
}  // namespace oneflow
