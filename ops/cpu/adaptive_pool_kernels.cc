// CPU kernels of adaptive average and max pooling (ops/defs/pooling.cc).
//
// Like the other pooling kernels (pooling_kernels.cc) they work on planes, one
// N-d loop nest per plane, split over threads with ParallelFor; adaptive
// average pooling of channels_last inputs runs on that layout directly.

#include <algorithm>
#include <vector>

#include "ops/cpu/loops.h"
#include "ops/cpu/pooling_common.h"
#include "ops/defs/common.h"

namespace oneflow {
namespace cpu {
namespace {

constexpr DeviceType kCPU = DeviceType::kCPU;

// PyTorch's adaptive window of output o along a dim: [floor(o * in / out),
// ceil((o + 1) * in / out)).
inline int64_t AdaptiveStart(int64_t o, int64_t out, int64_t in) { return (o * in) / out; }
inline int64_t AdaptiveEnd(int64_t o, int64_t out, int64_t in) {
  return ((o + 1) * in + out - 1) / out;
}

// Calls f(output offset, d0, d1, h0, h1, w0, w1) for every output of a plane.
template <typename F>
inline void ForEachAdaptiveWindow(const PoolGeom& g, F&& f) {
  for (int64_t od = 0; od < g.out[0]; ++od) {
    const int64_t d0 = AdaptiveStart(od, g.out[0], g.in[0]),
                  d1 = AdaptiveEnd(od, g.out[0], g.in[0]);
    for (int64_t oh = 0; oh < g.out[1]; ++oh) {
      const int64_t h0 = AdaptiveStart(oh, g.out[1], g.in[1]),
                    h1 = AdaptiveEnd(oh, g.out[1], g.in[1]);
      for (int64_t ow = 0; ow < g.out[2]; ++ow) {
        const int64_t w0 = AdaptiveStart(ow, g.out[2], g.in[2]),
                      w1 = AdaptiveEnd(ow, g.out[2], g.in[2]);
        f((od * g.out[1] + oh) * g.out[2] + ow, d0, d1, h0, h1, w0, w1);
      }
    }
  }
}

// Inner iterations per plane of an adaptive pool (windows overlap by at most
// one element per dim).
int64_t AdaptiveWork(const PoolGeom& g) {
  int64_t w = 1;
  for (int i = 0; i < 3; ++i) w *= std::max(g.in[i], g.out[i]) + g.out[i];
  return w;
}

// Adaptive average pooling of an (N, *spatial, C) array.
template <typename T>
void AdaptiveAvgCL(const T* x, T* y, const PoolGeom& g, int64_t N, int64_t C) {
  using A = AccT<T>;
  const int64_t ip = g.in_plane(), op = g.out_plane();
  ParallelFor(N, 1, [&](int64_t b, int64_t e) {
    std::vector<A> acc(C);
    A* sum = acc.data();
    for (int64_t nb = b; nb < e; ++nb) {
      const T* in = x + nb * ip * C;
      T* out = y + nb * op * C;
      ForEachAdaptiveWindow(g, [&](int64_t o, int64_t d0, int64_t d1, int64_t h0, int64_t h1,
                                   int64_t w0, int64_t w1) {
        std::fill(acc.begin(), acc.end(), A(0));
        for (int64_t id = d0; id < d1; ++id) {
          for (int64_t ih = h0; ih < h1; ++ih) {
            for (int64_t iw = w0; iw < w1; ++iw) {
              const T* v = in + ((id * g.in[1] + ih) * g.in[2] + iw) * C;
#pragma omp simd
              for (int64_t ch = 0; ch < C; ++ch) sum[ch] += static_cast<A>(v[ch]);
            }
          }
        }
        const A inv = A(1) / static_cast<A>((d1 - d0) * (h1 - h0) * (w1 - w0));
        T* dst = out + o * C;
        for (int64_t ch = 0; ch < C; ++ch) dst[ch] = static_cast<T>(sum[ch] * inv);
      });
    }
  });
}

// Its adjoint: each output's channel vector, divided by its window's size,
// added over the window.
template <typename T>
void AdaptiveAvgBackwardCL(const T* gy, T* gx, const PoolGeom& g, int64_t N, int64_t C) {
  using A = AccT<T>;
  const int64_t ip = g.in_plane(), op = g.out_plane();
  ParallelFor(N, 1, [&](int64_t b, int64_t e) {
    std::vector<A> val(C);
    A* v = val.data();
    for (int64_t nb = b; nb < e; ++nb) {
      T* in = gx + nb * ip * C;
      const T* out = gy + nb * op * C;
      std::fill(in, in + ip * C, T(0));
      ForEachAdaptiveWindow(g, [&](int64_t o, int64_t d0, int64_t d1, int64_t h0, int64_t h1,
                                   int64_t w0, int64_t w1) {
        const A inv = A(1) / static_cast<A>((d1 - d0) * (h1 - h0) * (w1 - w0));
        for (int64_t ch = 0; ch < C; ++ch) v[ch] = static_cast<A>(out[o * C + ch]) * inv;
        for (int64_t id = d0; id < d1; ++id) {
          for (int64_t ih = h0; ih < h1; ++ih) {
            for (int64_t iw = w0; iw < w1; ++iw) {
              T* dst = in + ((id * g.in[1] + ih) * g.in[2] + iw) * C;
#pragma omp simd
              for (int64_t ch = 0; ch < C; ++ch) {
                dst[ch] = static_cast<T>(static_cast<A>(dst[ch]) + v[ch]);
              }
            }
          }
        }
      });
    }
  });
}

// adaptive_avg_pool1d/2d/3d (adaptive_avg_pool1d's names).
void AdaptiveAvgKernel(OpCall& c) {
  namespace a = arg::adaptive_avg_pool1d;
  const TensorImplPtr& y = c.outputs[0];
  if (y->numel() == 0) return;
  const int64_t n = static_cast<int64_t>(c.args[a::output_size].int_list().size());
  const MemoryFormat cl = ChannelsLastOut(y, n);
  if (cl != MemoryFormat::kContiguous) {
    const TensorImplPtr x = ContiguousAs(c.tensor(a::input), cl);
    const PoolGeom g = MakeGeom(x->shape(), y->shape(), n);
    DispatchFloating(c.compute_dtype, c.name().c_str(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      AdaptiveAvgCL<T>(reinterpret_cast<const T*>(x->data()), reinterpret_cast<T*>(y->data()), g,
                       x->shape()[0], x->shape()[1]);
    });
    return;
  }
  if (!y->is_contiguous()) return RunContiguous(c, AdaptiveAvgKernel);
  const TensorImplPtr x = Contiguous(c.tensor(a::input));
  const PoolGeom g = MakeGeom(x->shape(), y->shape(), n);
  DispatchFloating(c.compute_dtype, c.name().c_str(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = AccT<T>;
    const T* xp = reinterpret_cast<const T*>(x->data());
    T* yp = reinterpret_cast<T*>(y->data());
    const int64_t ip = g.in_plane(), op = g.out_plane();
    if (op == 1) {  // global average pooling: a mean per plane
      ParallelFor(g.planes, PlaneGrain(ip), [&](int64_t b, int64_t e) {
        for (int64_t pl = b; pl < e; ++pl) {
          yp[pl] = static_cast<T>(SumSpan<A>(xp + pl * ip, ip) / static_cast<A>(ip));
        }
      });
      return;
    }
    ParallelFor(g.planes, PlaneGrain(AdaptiveWork(g)), [&](int64_t b, int64_t e) {
      for (int64_t pl = b; pl < e; ++pl) {
        const T* in = xp + pl * ip;
        T* out = yp + pl * op;
        ForEachAdaptiveWindow(g, [&](int64_t o, int64_t d0, int64_t d1, int64_t h0, int64_t h1,
                                     int64_t w0, int64_t w1) {
          A sum = A(0);
          for (int64_t id = d0; id < d1; ++id) {
            if (w1 - w0 == g.in[2]) {  // whole rows: one consecutive span
              sum += SumSpan<A>(in + (id * g.in[1] + h0) * g.in[2], (h1 - h0) * g.in[2]);
              continue;
            }
            for (int64_t ih = h0; ih < h1; ++ih) {
              sum += SumSpan<A>(in + (id * g.in[1] + ih) * g.in[2] + w0, w1 - w0);
            }
          }
          out[o] = static_cast<T>(sum / static_cast<A>((d1 - d0) * (h1 - h0) * (w1 - w0)));
        });
      }
    });
  });
}

void AdaptiveAvgBackwardKernel(OpCall& c) {
  namespace a = arg::adaptive_avg_pool_backward;
  const TensorImplPtr& gx = c.outputs[0];
  if (gx->numel() == 0) return;
  const int64_t n = static_cast<int64_t>(c.args[a::input_size].int_list().size());
  const MemoryFormat cl = ChannelsLastOut(gx, n);
  if (cl != MemoryFormat::kContiguous) {
    const TensorImplPtr gy = ContiguousAs(c.tensor(a::grad_output), cl);
    const PoolGeom g = MakeGeom(gx->shape(), gy->shape(), n);
    DispatchFloating(c.compute_dtype, c.name().c_str(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      AdaptiveAvgBackwardCL<T>(reinterpret_cast<const T*>(gy->data()),
                               reinterpret_cast<T*>(gx->data()), g, gx->shape()[0], gx->shape()[1]);
    });
    return;
  }
  if (!gx->is_contiguous()) return RunContiguous(c, AdaptiveAvgBackwardKernel);
  const TensorImplPtr gy = Contiguous(c.tensor(a::grad_output));
  const PoolGeom g = MakeGeom(gx->shape(), gy->shape(), n);
  DispatchFloating(c.compute_dtype, c.name().c_str(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = AccT<T>;
    const T* gyp = reinterpret_cast<const T*>(gy->data());
    T* gxp = reinterpret_cast<T*>(gx->data());
    const int64_t ip = g.in_plane(), op = g.out_plane();
    if (op == 1) {  // global average pooling: each plane gets its gradient / size
      ParallelFor(g.planes, PlaneGrain(ip), [&](int64_t b, int64_t e) {
        for (int64_t pl = b; pl < e; ++pl) {
          const T v = static_cast<T>(static_cast<A>(gyp[pl]) / static_cast<A>(ip));
          std::fill(gxp + pl * ip, gxp + (pl + 1) * ip, v);
        }
      });
      return;
    }
    ParallelFor(g.planes, PlaneGrain(AdaptiveWork(g)), [&](int64_t b, int64_t e) {
      for (int64_t pl = b; pl < e; ++pl) {
        T* in = gxp + pl * ip;
        const T* out = gyp + pl * op;
        std::fill(in, in + ip, T(0));
        ForEachAdaptiveWindow(g, [&](int64_t o, int64_t d0, int64_t d1, int64_t h0, int64_t h1,
                                     int64_t w0, int64_t w1) {
          const A v = static_cast<A>(out[o]) / static_cast<A>((d1 - d0) * (h1 - h0) * (w1 - w0));
          for (int64_t id = d0; id < d1; ++id) {
            for (int64_t ih = h0; ih < h1; ++ih) {
              T* row = in + (id * g.in[1] + ih) * g.in[2];
              for (int64_t iw = w0; iw < w1; ++iw)
                row[iw] = static_cast<T>(static_cast<A>(row[iw]) + v);
            }
          }
        });
      }
    });
  });
}

// adaptive_max_pool1d/2d/3d (adaptive_max_pool1d's names).
void AdaptiveMaxKernel(OpCall& c) {
  namespace a = arg::adaptive_max_pool1d;
  if (c.outputs[0]->numel() == 0) return;
  if (!c.outputs[0]->is_contiguous() || !c.outputs[1]->is_contiguous()) {
    return RunContiguous(c, AdaptiveMaxKernel);
  }
  const TensorImplPtr x = Contiguous(c.tensor(a::input));
  const TensorImplPtr &y = c.outputs[0], &idx = c.outputs[1];
  const int64_t n = static_cast<int64_t>(c.args[a::output_size].int_list().size());
  const PoolGeom g = MakeGeom(x->shape(), y->shape(), n);
  DispatchFloating(c.compute_dtype, c.name().c_str(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = AccT<T>;
    const T* xp = reinterpret_cast<const T*>(x->data());
    T* yp = reinterpret_cast<T*>(y->data());
    int64_t* ip_out = reinterpret_cast<int64_t*>(idx->data());
    const int64_t ip = g.in_plane(), op = g.out_plane();
    ParallelFor(g.planes, PlaneGrain(AdaptiveWork(g)), [&](int64_t b, int64_t e) {
      for (int64_t pl = b; pl < e; ++pl) {
        const T* in = xp + pl * ip;
        T* out = yp + pl * op;
        int64_t* ind = ip_out + pl * op;
        ForEachAdaptiveWindow(g, [&](int64_t o, int64_t d0, int64_t d1, int64_t h0, int64_t h1,
                                     int64_t w0, int64_t w1) {
          A maxval = LowestValue<A>();
          int64_t best = (d0 * g.in[1] + h0) * g.in[2] + w0;
          for (int64_t id = d0; id < d1; ++id) {
            for (int64_t ih = h0; ih < h1; ++ih) {
              const int64_t row = (id * g.in[1] + ih) * g.in[2];
              for (int64_t iw = w0; iw < w1; ++iw) {
                const A v = static_cast<A>(in[row + iw]);
                if (v > maxval || IsNan(v)) {
                  maxval = v;
                  best = row + iw;
                }
              }
            }
          }
          out[o] = static_cast<T>(maxval);
          ind[o] = best;
        });
      }
    });
  });
}

OF_KERNEL("adaptive_avg_pool1d", kCPU, kFloatingDTypes, &AdaptiveAvgKernel);
OF_KERNEL("adaptive_avg_pool2d", kCPU, kFloatingDTypes, &AdaptiveAvgKernel);
OF_KERNEL("adaptive_avg_pool3d", kCPU, kFloatingDTypes, &AdaptiveAvgKernel);
OF_KERNEL("adaptive_avg_pool_backward", kCPU, kFloatingDTypes, &AdaptiveAvgBackwardKernel);
OF_KERNEL("adaptive_max_pool1d", kCPU, kFloatingDTypes, &AdaptiveMaxKernel);
OF_KERNEL("adaptive_max_pool2d", kCPU, kFloatingDTypes, &AdaptiveMaxKernel);
OF_KERNEL("adaptive_max_pool3d", kCPU, kFloatingDTypes, &AdaptiveMaxKernel);

}  // namespace
}  // namespace cpu
}  // namespace oneflow
