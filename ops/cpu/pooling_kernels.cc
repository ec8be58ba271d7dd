// CPU kernels of the pooling ops declared in ops/defs/pooling.cc: max and
// average pooling and max_unpool (adaptive pooling: adaptive_pool_kernels.cc).
//
// Every op works on planes: the leading (batch, channel) dims of a
// (N, C, *spatial) or (C, *spatial) tensor, each pooled independently, so the
// kernels run one N-d loop nest per plane (spatial dims padded to 3) and
// split the planes over threads with ParallelFor. Inputs are made contiguous
// first (a plane is then a dense block). Channels_last tensors: see
// pooling_common.h.
//
// Average pooling of float32 and bfloat16 runs on oneDNN's pooling primitive
// (forward and backward, cached like the convolutions) where its divisor
// rule matches PyTorch's: no divisor_override, and with count_include_pad no
// window reaching past the padding (ceil_mode can make PyTorch count only the
// part inside it). Max pooling stays native: PyTorch's indices (flat offsets
// into the input plane, first maximum, NaN wins) are part of its contract.

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "ops/cpu/loops.h"
#include "ops/cpu/onednn_cache.h"
#include "ops/cpu/pooling_common.h"
#include "ops/defs/common.h"

namespace oneflow {
namespace cpu {
namespace {

constexpr DeviceType kCPU = DeviceType::kCPU;

// ---- channels_last max pooling (see pooling_common.h) --------------------------

// The window of output o along padded dim i of a max pool: [start, end) with
// the start moved past the padding by whole dilation steps.
inline void MaxWindow(const PoolGeom& g, int i, int64_t o, int64_t* start, int64_t* end) {
  int64_t a = o * g.s[i] - g.p[i];
  *end = std::min(a + (g.k[i] - 1) * g.d[i] + 1, g.in[i]);
  while (a < 0) a += g.d[i];
  *start = a;
}

// Max pooling of an (N, *spatial, C) array: per output position, the channel
// vector of window maxima and their flat spatial offsets (PyTorch's indices).
template <typename T>
void MaxPoolForwardCL(const T* x, T* y, int64_t* idx, const PoolGeom& g, int64_t N, int64_t C) {
  using A = AccT<T>;
  const int64_t ip = g.in_plane(), op = g.out_plane();
  const int64_t kvol = g.k[0] * g.k[1] * g.k[2];
  ParallelFor(N * op, PlaneGrain(kvol * C), [&](int64_t b, int64_t e) {
    std::unique_ptr<A[]> best(new A[C]);  // (not vector: T may be bool)
    A* mv = best.get();
    for (int64_t pos = b; pos < e; ++pos) {
      const int64_t nb = pos / op, o = pos % op;
      const int64_t ow = o % g.out[2], oh = (o / g.out[2]) % g.out[1],
                    od = o / (g.out[2] * g.out[1]);
      int64_t d0, d1, h0, h1, w0, w1;
      MaxWindow(g, 0, od, &d0, &d1);
      MaxWindow(g, 1, oh, &h0, &h1);
      MaxWindow(g, 2, ow, &w0, &w1);
      const T* in = x + nb * ip * C;
      T* out = y + pos * C;
      int64_t* ind = idx + pos * C;
      const int64_t first = (d0 * g.in[1] + h0) * g.in[2] + w0;
      for (int64_t ch = 0; ch < C; ++ch) {
        mv[ch] = LowestValue<A>();
        ind[ch] = first;
      }
      for (int64_t id = d0; id < d1; id += g.d[0]) {
        for (int64_t ih = h0; ih < h1; ih += g.d[1]) {
          for (int64_t iw = w0; iw < w1; iw += g.d[2]) {
            const int64_t at = (id * g.in[1] + ih) * g.in[2] + iw;
            const T* v = in + at * C;
#pragma omp simd
            for (int64_t ch = 0; ch < C; ++ch) {
              const A val = static_cast<A>(v[ch]);
              const bool take = val > mv[ch] || IsNan(val);
              mv[ch] = take ? val : mv[ch];
              ind[ch] = take ? at : ind[ch];
            }
          }
        }
      }
      for (int64_t ch = 0; ch < C; ++ch) out[ch] = static_cast<T>(mv[ch]);
    }
  });
}

// ---- max pooling ------------------------------------------------------------------

// Per output: the first maximum of the (dilated) window and its flat offset in
// the input plane; NaN counts as the maximum (the last NaN wins), as in
// PyTorch.
template <typename T>
void MaxPoolForward(const T* x, T* y, int64_t* idx, const PoolGeom& g) {
  using A = AccT<T>;
  const int64_t ip = g.in_plane(), op = g.out_plane();
  ParallelFor(g.planes, PlaneGrain(op * g.k[0] * g.k[1] * g.k[2]), [&](int64_t b, int64_t e) {
    for (int64_t pl = b; pl < e; ++pl) {
      const T* in = x + pl * ip;
      T* out = y + pl * op;
      int64_t* ind = idx + pl * op;
      for (int64_t od = 0; od < g.out[0]; ++od) {
        int64_t d0 = od * g.s[0] - g.p[0];
        const int64_t d1 = std::min(d0 + (g.k[0] - 1) * g.d[0] + 1, g.in[0]);
        while (d0 < 0) d0 += g.d[0];
        for (int64_t oh = 0; oh < g.out[1]; ++oh) {
          int64_t h0 = oh * g.s[1] - g.p[1];
          const int64_t h1 = std::min(h0 + (g.k[1] - 1) * g.d[1] + 1, g.in[1]);
          while (h0 < 0) h0 += g.d[1];
          for (int64_t ow = 0; ow < g.out[2]; ++ow) {
            int64_t w0 = ow * g.s[2] - g.p[2];
            const int64_t w1 = std::min(w0 + (g.k[2] - 1) * g.d[2] + 1, g.in[2]);
            while (w0 < 0) w0 += g.d[2];
            int64_t best = (d0 * g.in[1] + h0) * g.in[2] + w0;
            A maxval = LowestValue<A>();
            for (int64_t id = d0; id < d1; id += g.d[0]) {
              for (int64_t ih = h0; ih < h1; ih += g.d[1]) {
                const int64_t row = (id * g.in[1] + ih) * g.in[2];
                for (int64_t iw = w0; iw < w1; iw += g.d[2]) {
                  const A v = static_cast<A>(in[row + iw]);
                  if (v > maxval || IsNan(v)) {
                    maxval = v;
                    best = row + iw;
                  }
                }
              }
            }
            const int64_t o = (od * g.out[1] + oh) * g.out[2] + ow;
            out[o] = static_cast<T>(maxval);
            ind[o] = best;
          }
        }
      }
    }
  });
}

// max_poolNd_with_indices(input, kernel_size, stride, padding, dilation,
// ceil_mode) -> (values, indices); the lists arrive normalized. (N = 1, 2, 3
// have their arguments at the same places: max_pool1d_with_indices's names.)
void MaxPoolKernel(OpCall& c) {
  namespace a = arg::max_pool1d_with_indices;
  const TensorImplPtr &y = c.outputs[0], &idx = c.outputs[1];
  if (y->numel() == 0) return;
  const DimVector& kernel = c.args[a::kernel_size].int_list();
  const DimVector& stride = c.args[a::stride].int_list();
  const DimVector& padding = c.args[a::padding].int_list();
  const DimVector& dilation = c.args[a::dilation].int_list();
  const int64_t n = static_cast<int64_t>(kernel.size());
  const MemoryFormat cl = ChannelsLastOut(y, n);
  if (cl != MemoryFormat::kContiguous && idx->stride() == y->stride()) {
    const TensorImplPtr x = ContiguousAs(c.tensor(a::input), cl);
    const PoolGeom g = MakeGeom(x->shape(), y->shape(), n, kernel, stride, padding, dilation);
    DispatchNumeric(c.compute_dtype, c.name().c_str(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      MaxPoolForwardCL<T>(reinterpret_cast<const T*>(x->data()), reinterpret_cast<T*>(y->data()),
                          reinterpret_cast<int64_t*>(idx->data()), g, x->shape()[0], x->shape()[1]);
    });
    return;
  }
  if (!y->is_contiguous() || !idx->is_contiguous()) return RunContiguous(c, MaxPoolKernel);
  const TensorImplPtr x = Contiguous(c.tensor(a::input));
  const PoolGeom g = MakeGeom(x->shape(), y->shape(), n, kernel, stride, padding, dilation);
  DispatchNumeric(c.compute_dtype, c.name().c_str(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    MaxPoolForward<T>(reinterpret_cast<const T*>(x->data()), reinterpret_cast<T*>(y->data()),
                      reinterpret_cast<int64_t*>(idx->data()), g);
  });
}

// grad_input[plane][indices[plane][j]] += grad_output[plane][j].
void MaxPoolBackwardKernel(OpCall& c) {
  namespace a = arg::max_pool_with_indices_backward;
  const TensorImplPtr& gi = c.outputs[0];
  if (gi->numel() == 0) return;
  const int64_t n = static_cast<int64_t>(c.args[a::input_size].int_list().size());
  const MemoryFormat cl = ChannelsLastOut(gi, n);
  if (cl != MemoryFormat::kContiguous) {
    // (N, *spatial, C): each sample's channel vectors scatter into its input.
    const TensorImplPtr go = ContiguousAs(c.tensor(a::grad_output), cl),
                        idx = ContiguousAs(c.tensor(a::indices), cl);
    Fill(gi, Scalar::Int(0));
    const PoolGeom g = MakeGeom(gi->shape(), go->shape(), n);
    const int64_t ip = g.in_plane(), op = g.out_plane(), N = gi->shape()[0], C = gi->shape()[1];
    DispatchFloating(c.compute_dtype, c.name().c_str(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      using A = AccT<T>;
      const T* gop = reinterpret_cast<const T*>(go->data());
      const int64_t* ind = reinterpret_cast<const int64_t*>(idx->data());
      T* gip = reinterpret_cast<T*>(gi->data());
      ParallelFor(N, 1, [&](int64_t b, int64_t e) {
        for (int64_t nb = b; nb < e; ++nb) {
          T* dst = gip + nb * ip * C;
          for (int64_t j = nb * op; j < (nb + 1) * op; ++j) {
            const T* src = gop + j * C;
            const int64_t* at = ind + j * C;
            for (int64_t ch = 0; ch < C; ++ch) {
              const int64_t i = at[ch];
              if (i < 0 || i >= ip) continue;
              T& d = dst[i * C + ch];
              d = static_cast<T>(static_cast<A>(d) + static_cast<A>(src[ch]));
            }
          }
        }
      });
    });
    return;
  }
  if (!gi->is_contiguous()) return RunContiguous(c, MaxPoolBackwardKernel);
  const TensorImplPtr go = Contiguous(c.tensor(a::grad_output)),
                      idx = Contiguous(c.tensor(a::indices));
  Fill(gi, Scalar::Int(0));
  const PoolGeom g = MakeGeom(gi->shape(), go->shape(), n);
  const int64_t ip = g.in_plane(), op = g.out_plane();
  DispatchFloating(c.compute_dtype, c.name().c_str(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = AccT<T>;
    const T* gop = reinterpret_cast<const T*>(go->data());
    const int64_t* ind = reinterpret_cast<const int64_t*>(idx->data());
    T* gip = reinterpret_cast<T*>(gi->data());
    ParallelFor(g.planes, PlaneGrain(op), [&](int64_t b, int64_t e) {
      for (int64_t pl = b; pl < e; ++pl) {
        T* dst = gip + pl * ip;
        for (int64_t j = 0; j < op; ++j) {
          const int64_t i = ind[pl * op + j];
          if (i < 0 || i >= ip) continue;
          dst[i] = static_cast<T>(static_cast<A>(dst[i]) + static_cast<A>(gop[pl * op + j]));
        }
      }
    });
  });
}

// ---- average pooling ----------------------------------------------------------------

// PyTorch's window of one output along one dim: [start, end) clipped to the
// input, and the extent counted by count_include_pad (clipped to the padded
// input only).
struct Span {
  int64_t start, end, padded;
};
inline Span AvgSpan(int64_t o, int64_t in, int64_t k, int64_t s, int64_t p) {
  int64_t start = o * s - p;
  int64_t end = std::min(start + k, in + p);
  const int64_t padded = end - start;
  start = std::max<int64_t>(start, 0);
  end = std::min(end, in);
  return {start, end, padded};
}

// The divisor of an output window (0 for an empty one).
inline int64_t AvgDivisor(const Span (&w)[3], bool count_include_pad, int64_t divisor_override) {
  if (divisor_override > 0) return divisor_override;
  if (count_include_pad) return w[0].padded * w[1].padded * w[2].padded;
  return (w[0].end - w[0].start) * (w[1].end - w[1].start) * (w[2].end - w[2].start);
}

template <typename T>
void AvgPoolForward(const T* x, T* y, const PoolGeom& g, bool include_pad, int64_t divisor) {
  // Integers sum in int64 and divide with truncation, as PyTorch does.
  using A = std::conditional_t<std::is_integral_v<T>, int64_t, AccT<T>>;
  const int64_t ip = g.in_plane(), op = g.out_plane();
  ParallelFor(g.planes, PlaneGrain(op * g.k[0] * g.k[1] * g.k[2]), [&](int64_t b, int64_t e) {
    for (int64_t pl = b; pl < e; ++pl) {
      const T* in = x + pl * ip;
      T* out = y + pl * op;
      for (int64_t od = 0; od < g.out[0]; ++od) {
        for (int64_t oh = 0; oh < g.out[1]; ++oh) {
          for (int64_t ow = 0; ow < g.out[2]; ++ow) {
            const Span w[3] = {AvgSpan(od, g.in[0], g.k[0], g.s[0], g.p[0]),
                               AvgSpan(oh, g.in[1], g.k[1], g.s[1], g.p[1]),
                               AvgSpan(ow, g.in[2], g.k[2], g.s[2], g.p[2])};
            const int64_t o = (od * g.out[1] + oh) * g.out[2] + ow;
            if (w[0].start >= w[0].end || w[1].start >= w[1].end || w[2].start >= w[2].end) {
              out[o] = T(0);
              continue;
            }
            A sum = A(0);
            for (int64_t id = w[0].start; id < w[0].end; ++id) {
              for (int64_t ih = w[1].start; ih < w[1].end; ++ih) {
                const T* row = in + (id * g.in[1] + ih) * g.in[2];
                sum += SumSpan<A>(row + w[2].start, w[2].end - w[2].start);
              }
            }
            out[o] = static_cast<T>(sum / static_cast<A>(AvgDivisor(w, include_pad, divisor)));
          }
        }
      }
    }
  });
}

template <typename T>
void AvgPoolBackward(const T* gy, T* gx, const PoolGeom& g, bool include_pad, int64_t divisor) {
  using A = AccT<T>;
  const int64_t ip = g.in_plane(), op = g.out_plane();
  ParallelFor(g.planes, PlaneGrain(op * g.k[0] * g.k[1] * g.k[2]), [&](int64_t b, int64_t e) {
    for (int64_t pl = b; pl < e; ++pl) {
      T* in = gx + pl * ip;
      const T* out = gy + pl * op;
      std::fill(in, in + ip, T(0));
      for (int64_t od = 0; od < g.out[0]; ++od) {
        for (int64_t oh = 0; oh < g.out[1]; ++oh) {
          for (int64_t ow = 0; ow < g.out[2]; ++ow) {
            const Span w[3] = {AvgSpan(od, g.in[0], g.k[0], g.s[0], g.p[0]),
                               AvgSpan(oh, g.in[1], g.k[1], g.s[1], g.p[1]),
                               AvgSpan(ow, g.in[2], g.k[2], g.s[2], g.p[2])};
            if (w[0].start >= w[0].end || w[1].start >= w[1].end || w[2].start >= w[2].end) {
              continue;
            }
            const A v = static_cast<A>(out[(od * g.out[1] + oh) * g.out[2] + ow]) /
                        static_cast<A>(AvgDivisor(w, include_pad, divisor));
            for (int64_t id = w[0].start; id < w[0].end; ++id) {
              for (int64_t ih = w[1].start; ih < w[1].end; ++ih) {
                T* row = in + (id * g.in[1] + ih) * g.in[2];
                for (int64_t iw = w[2].start; iw < w[2].end; ++iw) {
                  row[iw] = static_cast<T>(static_cast<A>(row[iw]) + v);
                }
              }
            }
          }
        }
      }
    }
  });
}

// ---- oneDNN average pooling ----------------------------------------------------------

namespace dn = onednn;
using dnnl::memory;

struct OnednnPool {
  bool ok = false;
  dnnl::primitive prim;
  memory::desc scratchpad;
};

dn::PrimitiveCache<OnednnPool>& PoolCache() {
  static auto* cache = new dn::PrimitiveCache<OnednnPool>();
  return *cache;
}

// True when oneDNN's avg_include_padding / avg_exclude_padding divides as
// PyTorch does for this geometry.
bool OnednnAvgFits(const PoolGeom& g, bool include_pad, int64_t divisor) {
  if (divisor > 0) return false;
  if (!include_pad) return true;
  for (int i = 0; i < 3; ++i) {
    if ((g.out[i] - 1) * g.s[i] + g.k[i] > g.in[i] + 2 * g.p[i]) return false;
  }
  return true;
}

// Runs avg pooling forward (x -> y) or backward (gy -> gx) on oneDNN over
// contiguous (planes, *spatial) buffers seen as (1, planes, *spatial) — each
// plane is a channel. False when oneDNN has no implementation.
bool OnednnAvgPool(bool forward, DType dtype, const PoolGeom& g, int64_t n, bool include_pad,
                   void* src, void* dst) {
  const memory::data_type dt = dn::ToDnnl(dtype);
  DimVector in_dims = {1, g.planes}, out_dims = {1, g.planes};
  memory::dims strides, kernel, pad_l, pad_r;
  for (int64_t i = 3 - n; i < 3; ++i) {
    in_dims.push_back(g.in[i]);
    out_dims.push_back(g.out[i]);
    strides.push_back(g.s[i]);
    kernel.push_back(g.k[i]);
    pad_l.push_back(g.p[i]);
    pad_r.push_back((g.out[i] - 1) * g.s[i] + g.k[i] - g.in[i] - g.p[i]);
  }
  dn::CacheKey key;
  key.Add(forward).Add(static_cast<int64_t>(dt)).Add(include_pad).Add(in_dims).Add(out_dims);
  for (const memory::dims* v : {&strides, &kernel, &pad_l}) {
    key.Add(DimVector(v->begin(), v->end()));
  }
  auto e = PoolCache().GetOrCreate(key, [&] {
    OnednnPool p;
    try {
      const auto algo = include_pad ? dnnl::algorithm::pooling_avg_include_padding
                                    : dnnl::algorithm::pooling_avg_exclude_padding;
      const memory::desc in_d = dn::UserDesc(in_dims, ContiguousStrides(in_dims), dt);
      const memory::desc out_d = dn::UserDesc(out_dims, ContiguousStrides(out_dims), dt);
      using Fwd = dnnl::pooling_forward;
      Fwd::desc fd(forward ? dnnl::prop_kind::forward_inference : dnnl::prop_kind::forward_training,
                   algo, in_d, out_d, strides, kernel, pad_l, pad_r);
      const dnnl::primitive_attr attr = dn::UserScratchpad();
      Fwd::primitive_desc fpd(fd, attr, dn::Engine());
      if (forward) {
        p.prim = Fwd(fpd);
        p.scratchpad = fpd.scratchpad_desc();
      } else {
        using Bwd = dnnl::pooling_backward;
        Bwd::desc bd(algo, in_d, out_d, strides, kernel, pad_l, pad_r);
        Bwd::primitive_desc bpd(bd, attr, dn::Engine(), fpd);
        p.prim = Bwd(bpd);
        p.scratchpad = bpd.scratchpad_desc();
      }
      p.ok = true;
    } catch (const dnnl::error&) {
      p = OnednnPool();
    }
    return p;
  });
  if (!e->ok) return false;
  const memory::desc in_d = dn::UserDesc(in_dims, ContiguousStrides(in_dims), dt);
  const memory::desc out_d = dn::UserDesc(out_dims, ContiguousStrides(out_dims), dt);
  if (forward) {
    dn::Execute(e->prim, e->scratchpad,
                {{DNNL_ARG_SRC, memory(in_d, dn::Engine(), src)},
                 {DNNL_ARG_DST, memory(out_d, dn::Engine(), dst)}});
  } else {
    dn::Execute(e->prim, e->scratchpad,
                {{DNNL_ARG_DIFF_DST, memory(out_d, dn::Engine(), src)},
                 {DNNL_ARG_DIFF_SRC, memory(in_d, dn::Engine(), dst)}});
  }
  dn::Stream().wait();
  return true;
}

bool UsesOnednn(DType d) { return d == DType::kFloat32 || d == DType::kBFloat16; }

// avg_poolNd(input, kernel_size, stride, padding, ceil_mode, count_include_pad
// [, divisor_override]); the lists arrive normalized. (N = 1, 2, 3 have their
// arguments at the same places: avg_pool2d's names; avg_pool1d has no
// divisor_override.)
void AvgPoolKernel(OpCall& c) {
  namespace a = arg::avg_pool2d;
  const TensorImplPtr& y = c.outputs[0];
  if (y->numel() == 0) return;
  if (!y->is_contiguous()) return RunContiguous(c, AvgPoolKernel);
  const TensorImplPtr x = Contiguous(c.tensor(a::input));
  const DimVector& kernel = c.args[a::kernel_size].int_list();
  const int64_t n = static_cast<int64_t>(kernel.size());
  const PoolGeom g = MakeGeom(x->shape(), y->shape(), n, kernel, c.args[a::stride].int_list(),
                              c.args[a::padding].int_list());
  const bool include_pad = c.get(a::count_include_pad);
  const int64_t divisor = static_cast<int>(c.args.size()) > a::divisor_override
                              ? c.get(a::divisor_override).value_or(0)
                              : 0;
  if (UsesOnednn(c.compute_dtype) && OnednnAvgFits(g, include_pad, divisor) &&
      OnednnAvgPool(true, c.compute_dtype, g, n, include_pad, x->data(), y->data())) {
    return;
  }
  DispatchNumeric(c.compute_dtype, c.name().c_str(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    AvgPoolForward<T>(reinterpret_cast<const T*>(x->data()), reinterpret_cast<T*>(y->data()), g,
                      include_pad, divisor);
  });
}

// avg_pool_backward(grad_output, input_size, kernel_size, stride, padding,
// ceil_mode, count_include_pad, divisor_override)
void AvgPoolBackwardKernel(OpCall& c) {
  namespace a = arg::avg_pool_backward;
  const TensorImplPtr& gx = c.outputs[0];
  if (gx->numel() == 0) return;
  if (!gx->is_contiguous()) return RunContiguous(c, AvgPoolBackwardKernel);
  const TensorImplPtr gy = Contiguous(c.tensor(a::grad_output));
  const int64_t n = static_cast<int64_t>(c.args[a::input_size].int_list().size());
  const PoolGeom g = MakeGeom(gx->shape(), gy->shape(), n, c.args[a::kernel_size].int_list(),
                              c.args[a::stride].int_list(), c.args[a::padding].int_list());
  const bool include_pad = c.get(a::count_include_pad);
  const int64_t divisor = c.get(a::divisor_override).value_or(0);
  if (gy->numel() == 0) {
    Fill(gx, Scalar::Int(0));
    return;
  }
  if (UsesOnednn(c.compute_dtype) && OnednnAvgFits(g, include_pad, divisor) &&
      OnednnAvgPool(false, c.compute_dtype, g, n, include_pad, gy->data(), gx->data())) {
    return;
  }
  DispatchFloating(c.compute_dtype, c.name().c_str(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    AvgPoolBackward<T>(reinterpret_cast<const T*>(gy->data()), reinterpret_cast<T*>(gx->data()), g,
                       include_pad, divisor);
  });
}

// ---- max_unpool ---------------------------------------------------------------------------

// out[plane][indices[plane][j]] = input[plane][j], zeros elsewhere; an index
// outside the output plane is an error (PyTorch's message). (max_unpool1d/2d/3d:
// input, indices and output_size at the same places, max_unpool1d's names.)
void MaxUnpoolKernel(OpCall& c) {
  namespace a = arg::max_unpool1d;
  const TensorImplPtr x = Contiguous(c.tensor(a::input)), idx = Contiguous(c.tensor(a::indices));
  const TensorImplPtr& y = c.outputs[0];
  if (y->numel() > 0) Fill(y, Scalar::Int(0));
  if (x->numel() == 0) return;
  const DimVector& size = c.args[a::output_size].int_list();

  const int64_t n = static_cast<int64_t>(size.size());
  const PoolGeom g = MakeGeom(x->shape(), y->shape(), n);
  // (input plane and output plane swap roles: the input is the pooled side.)
  const int64_t src_plane = g.in_plane(), dst_plane = g.out_plane();
  std::atomic<int64_t> bad{-1};
  const int64_t* ind = reinterpret_cast<const int64_t*>(idx->data());
  DispatchFloating(c.compute_dtype, c.name().c_str(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xp = reinterpret_cast<const T*>(x->data());
    T* yp = reinterpret_cast<T*>(y->data());
    ParallelFor(g.planes, PlaneGrain(src_plane), [&](int64_t b, int64_t e) {
      for (int64_t pl = b; pl < e; ++pl) {
        for (int64_t j = 0; j < src_plane; ++j) {
          const int64_t i = ind[pl * src_plane + j];
          if (i < 0 || i >= dst_plane) {
            bad.store(i);
            return;
          }
          yp[pl * dst_plane + i] = xp[pl * src_plane + j];
        }
      }
    });
  });
  std::string sizes;
  for (int64_t i = 0; i < n; ++i) sizes += (i ? "x" : "") + std::to_string(size[i]);
  OF_CHECK(bad.load() < 0, RuntimeError, c.name(), "(): Found an invalid max index: ", bad.load(),
           " (output volumes are of size ", sizes, ")");
}

OF_KERNEL("max_pool1d_with_indices", kCPU, kNumericDTypes, &MaxPoolKernel);
OF_KERNEL("max_pool2d_with_indices", kCPU, kNumericDTypes, &MaxPoolKernel);
OF_KERNEL("max_pool3d_with_indices", kCPU, kNumericDTypes, &MaxPoolKernel);
OF_KERNEL("max_pool_with_indices_backward", kCPU, kFloatingDTypes, &MaxPoolBackwardKernel);
OF_KERNEL("avg_pool1d", kCPU, kNumericDTypes, &AvgPoolKernel);
OF_KERNEL("avg_pool2d", kCPU, kNumericDTypes, &AvgPoolKernel);
OF_KERNEL("avg_pool3d", kCPU, kNumericDTypes, &AvgPoolKernel);
OF_KERNEL("avg_pool_backward", kCPU, kFloatingDTypes, &AvgPoolBackwardKernel);
OF_KERNEL("max_unpool1d", kCPU, kFloatingDTypes, &MaxUnpoolKernel);
OF_KERNEL("max_unpool2d", kCPU, kFloatingDTypes, &MaxUnpoolKernel);
OF_KERNEL("max_unpool3d", kCPU, kFloatingDTypes, &MaxUnpoolKernel);

}  // namespace
}  // namespace cpu
}  // namespace oneflow
