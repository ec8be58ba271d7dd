// CPU kernels of grid_sampler (ops/defs/vision.cc), forward and backward.
// Loops run over sampled positions with ParallelFor; the input is made
// contiguous first. float and double are computed in their own type (as
// PyTorch does), Half and BFloat16 through float copies.

#include <algorithm>
#include <cmath>
#include <vector>

#include "ops/cpu/loops.h"
#include "ops/cpu/vision_common.h"
#include "ops/defs/common.h"

namespace oneflow {
namespace cpu {
namespace {

constexpr DeviceType kCPU = DeviceType::kCPU;

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

SamplerArgs ParseSampler(const TensorImplPtr& input, const TensorImplPtr& grid,
                         int64_t interpolation_mode, int64_t padding_mode, bool align_corners) {
  SamplerArgs a;
  a.nd = static_cast<int>(input->ndim()) - 2;
  a.n = input->shape()[0];
  a.ch = input->shape()[1];
  for (int d = 0; d < a.nd; ++d) a.size[d] = input->shape()[2 + d];
  a.positions = grid->numel() / std::max<int64_t>(1, a.n * a.nd);
  a.mode = static_cast<int>(interpolation_mode);
  a.padding = static_cast<int>(padding_mode);
  a.align = align_corners;
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
  namespace names = arg::grid_sampler;
  const TensorImplPtr input = Contiguous(c.tensor(names::input));
  const TensorImplPtr grid = Contiguous(c.tensor(names::grid));
  const SamplerArgs a = ParseSampler(input, grid, c.get(names::interpolation_mode),
                                     c.get(names::padding_mode), c.get(names::align_corners));
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
  namespace names = arg::grid_sampler_backward;
  const TensorImplPtr gy = Contiguous(c.tensor(names::grad_output));
  const TensorImplPtr input = Contiguous(c.tensor(names::input));
  const TensorImplPtr grid = Contiguous(c.tensor(names::grid));
  const SamplerArgs a = ParseSampler(input, grid, c.get(names::interpolation_mode),
                                     c.get(names::padding_mode), c.get(names::align_corners));
  const bool input_grad = c.get(names::input_grad);
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

}  // namespace
}  // namespace cpu
}  // namespace oneflow
