// CPU kernels of the convolution ops declared in ops/defs/conv.cc:
// convolution (plain and transposed, 1-3 spatial dims) and its two gradient
// ops.
//
//   float32, bfloat16:  oneDNN convolution / deconvolution primitives
//                       (forward with bias, backward data, backward weights
//                       with bias), cached by geometry and layouts (see
//                       onednn_cache.h). bfloat16 falls back to float32 when
//                       this CPU has no bfloat16 implementation.
//   float16:            computed in float32 and rounded once.
//   float64, integers:  im2col + the registry's batched matmul (col2im for
//                       the data gradient); also the fallback for shapes
//                       oneDNN rejects.
//
// Every kernel is written in terms of the convolution relation
//   D = conv(S, W),  W of shape (Cd, Cs / groups, *kernel)
// from a "source" S to a "destination" D. A plain convolution maps input to
// output (S = input); a transposed one is its adjoint, the convolution from
// its output to its input (S = output, D = input) with the same weight
// memory. So each op is one of three computations:
//   forward           D from (S, W)      plain forward, transposed input grad
//   backward data     S from (D, W)      plain input grad, transposed forward
//   backward weights  W from (S, D)      weight grads of both
// and the bias (on the output's channels) is added or summed alongside.
//
// Layouts: when S or D is channels_last (NHWC / NDHWC, see ops/defs/conv.cc
// for when outputs are), the oneDNN primitive is built for that layout, so
// channels_last activations and gradients are read and written in place; only
// the weights are reordered to the primitive's blocked layout. Otherwise it
// picks its own (blocked) activation layouts and reorders to and from the
// user's. A forward convolution's weights, used again unchanged (inference),
// keep their reordered copy (packed_weights.h) instead of being reordered per
// call.

#include <algorithm>
#include <cstring>
#include <memory>
#include <unordered_map>
#include <vector>

#include "core/framework/grad_mode.h"
#include "core/runtime/view_ops.h"
#include "ops/cpu/loops.h"
#include "ops/cpu/onednn_cache.h"
#include "ops/cpu/packed_weights.h"
#include "ops/defs/common.h"

namespace oneflow {
namespace cpu {
namespace {

constexpr DeviceType kCPU = DeviceType::kCPU;

enum class Prop : int { kForward = 0, kBackwardData = 1, kBackwardWeights = 2 };

// The convolution's geometry, in the conv relation's terms (see above).
struct ConvGeometry {
  int64_t ns = 0;  // spatial dims
  DimVector stride, padding, dilation;
  int64_t groups = 1;
  bool transposed = false;
  int64_t n = 0;               // batch
  int64_t cs = 0, cd = 0;      // channels of S and D
  DimVector s_sp, d_sp, k_sp;  // spatial sizes of S, D and the kernel
};

// Geometry from the tensors in the conv relation's roles (shapes only) and
// the op's stride, padding and dilation.
ConvGeometry MakeGeometry(const DimVector& s, const DimVector& d, const DimVector& w,
                          const DimVector& stride, const DimVector& padding,
                          const DimVector& dilation, bool transposed, int64_t groups) {
  ConvGeometry g;
  g.ns = static_cast<int64_t>(s.size()) - 2;
  g.stride = stride;
  g.padding = padding;
  g.dilation = dilation;
  g.transposed = transposed;
  g.groups = groups;
  g.n = s[0];
  g.cs = s[1];
  g.cd = d[1];
  g.s_sp.assign(s.begin() + 2, s.end());
  g.d_sp.assign(d.begin() + 2, d.end());
  g.k_sp.assign(w.begin() + 2, w.end());
  return g;
}

void FillZero(const TensorImplPtr& t) {
  if (t && t->numel() > 0) Fill(t, Scalar::Int(0));
}

// ---- bias ----------------------------------------------------------------------

// out[:, c, ...] += bias[c] for a contiguous out.
template <typename T>
void AddBias(const TensorImplPtr& out, const TensorImplPtr& bias_in) {
  const TensorImplPtr bias = Contiguous(bias_in);
  const int64_t n = out->shape()[0], c = out->shape()[1];
  const int64_t inner = c == 0 || n == 0 ? 0 : out->numel() / (n * c);
  T* o = reinterpret_cast<T*>(out->data());
  const T* b = reinterpret_cast<const T*>(bias->data());
  ParallelFor(n * c, std::max<int64_t>(1, 32768 / std::max<int64_t>(inner, 1)),
              [&](int64_t begin, int64_t end) {
                for (int64_t p = begin; p < end; ++p) {
                  const T v = b[p % c];
                  T* row = o + p * inner;
                  for (int64_t i = 0; i < inner; ++i) row[i] = static_cast<T>(row[i] + v);
                }
              });
}

// bias_grad[c] = sum of g[:, c, ...].
void SumForBias(const TensorImplPtr& g, const TensorImplPtr& out) {
  DimVector dims = {0};
  for (int64_t d = 2; d < g->ndim(); ++d) dims.push_back(d);
  GradModeGuard no_grad(false);
  CopyInto(ops::sum_dim(g->Detach(), dims, false), out);
}

// ---- native path: im2col + matmul ---------------------------------------------

// Spatial geometry padded to 3 dims (missing leading dims have size 1).
struct Geo3 {
  int64_t s[3], d[3], k[3], st[3], pad[3], dil[3];
};

Geo3 ToGeo3(const ConvGeometry& g) {
  Geo3 r;
  const int64_t off = 3 - g.ns;
  for (int i = 0; i < 3; ++i) {
    const bool real = i >= off;
    r.s[i] = real ? g.s_sp[i - off] : 1;
    r.d[i] = real ? g.d_sp[i - off] : 1;
    r.k[i] = real ? g.k_sp[i - off] : 1;
    r.st[i] = real ? g.stride[i - off] : 1;
    r.pad[i] = real ? g.padding[i - off] : 0;
    r.dil[i] = real ? g.dilation[i - off] : 1;
  }
  return r;
}

// Strides of a (N, C, *spatial) tensor padded to (N, C, D, H, W).
void Strides5(const TensorImpl& t, int64_t ns, int64_t out[5]) {
  const DimVector& st = t.stride();
  out[0] = st[0];
  out[1] = st[1];
  for (int i = 0; i < 3; ++i) {
    const int64_t src = i - (3 - ns);
    out[2 + i] = src >= 0 ? st[2 + src] : 0;
  }
}

// The column matrix of samples n0 .. n0 + nb of S: row (c, kd, kh, kw),
// column (n, od, oh, ow) holds S[n0 + n, c, od*s - p + kd*dil, ...] (0 in the
// padding); cols is (Cs * kvol, nb * L) row-major, L the positions of D. Its
// rows of one group are consecutive, so group g's block is (K, nb * L).
template <typename T>
void Im2Col(const TensorImpl& src, const ConvGeometry& g, int64_t n0, int64_t nb, T* cols) {
  const Geo3 q = ToGeo3(g);
  int64_t st[5];
  Strides5(src, g.ns, st);
  const int64_t kvol = q.k[0] * q.k[1] * q.k[2];
  const int64_t L = q.d[0] * q.d[1] * q.d[2];
  const int64_t tasks = g.cs * kvol * nb;  // one (row, sample) segment of L each
  const T* base = reinterpret_cast<const T*>(src.data());
  ParallelFor(tasks, std::max<int64_t>(1, 16384 / std::max<int64_t>(L, 1)),
              [&](int64_t begin, int64_t end) {
                for (int64_t t = begin; t < end; ++t) {
                  const int64_t n = n0 + t % nb;
                  int64_t rem = t / nb;
                  const int64_t kw = rem % q.k[2];
                  rem /= q.k[2];
                  const int64_t kh = rem % q.k[1];
                  rem /= q.k[1];
                  const int64_t kd = rem % q.k[0];
                  const int64_t c = rem / q.k[0];
                  const T* plane = base + n * st[0] + c * st[1];
                  T* out = cols + t * L;
                  for (int64_t od = 0; od < q.d[0]; ++od) {
                    const int64_t id = od * q.st[0] - q.pad[0] + kd * q.dil[0];
                    const bool dok = id >= 0 && id < q.s[0];
                    for (int64_t oh = 0; oh < q.d[1]; ++oh) {
                      const int64_t ih = oh * q.st[1] - q.pad[1] + kh * q.dil[1];
                      T* o = out + (od * q.d[1] + oh) * q.d[2];
                      if (!dok || ih < 0 || ih >= q.s[1]) {
                        std::fill(o, o + q.d[2], T(0));
                        continue;
                      }
                      const T* line = plane + id * st[2] + ih * st[3];
                      for (int64_t ow = 0; ow < q.d[2]; ++ow) {
                        const int64_t iw = ow * q.st[2] - q.pad[2] + kw * q.dil[2];
                        o[ow] = iw >= 0 && iw < q.s[2] ? line[iw * st[4]] : T(0);
                      }
                    }
                  }
                }
              });
}

// The adjoint of Im2Col: samples n0 .. n0 + nb of a contiguous S become the
// sums of the column entries that read them.
template <typename T>
void Col2Im(const T* cols, const ConvGeometry& g, int64_t n0, int64_t nb, const TensorImpl& dst) {
  const Geo3 q = ToGeo3(g);
  const int64_t kvol = q.k[0] * q.k[1] * q.k[2];
  const int64_t L = q.d[0] * q.d[1] * q.d[2];
  const int64_t plane_size = q.s[0] * q.s[1] * q.s[2];
  T* base = reinterpret_cast<T*>(dst.data());
  // One task per (sample, channel) plane: the planes are disjoint.
  ParallelFor(nb * g.cs, 1, [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p) {
      const int64_t n = p / g.cs, c = p % g.cs;
      T* plane = base + ((n0 + n) * g.cs + c) * plane_size;
      std::fill(plane, plane + plane_size, T(0));
      for (int64_t k = 0; k < kvol; ++k) {
        const int64_t kw = k % q.k[2], kh = (k / q.k[2]) % q.k[1], kd = k / (q.k[2] * q.k[1]);
        const T* col = cols + ((c * kvol + k) * nb + n) * L;
        for (int64_t od = 0; od < q.d[0]; ++od) {
          const int64_t id = od * q.st[0] - q.pad[0] + kd * q.dil[0];
          if (id < 0 || id >= q.s[0]) continue;
          for (int64_t oh = 0; oh < q.d[1]; ++oh) {
            const int64_t ih = oh * q.st[1] - q.pad[1] + kh * q.dil[1];
            if (ih < 0 || ih >= q.s[1]) continue;
            const T* cl = col + (od * q.d[1] + oh) * q.d[2];
            T* line = plane + (id * q.s[1] + ih) * q.s[2];
            for (int64_t ow = 0; ow < q.d[2]; ++ow) {
              const int64_t iw = ow * q.st[2] - q.pad[2] + kw * q.dil[2];
              if (iw >= 0 && iw < q.s[2]) line[iw] = static_cast<T>(line[iw] + cl[ow]);
            }
          }
        }
      }
    }
  });
}

// A detached view of `t`'s memory with another geometry (for matmul calls on
// kernel buffers).
TensorImplPtr ViewAs(const TensorImplPtr& t, const DimVector& shape, const DimVector& stride,
                     int64_t extra_offset = 0) {
  return t->AsStrided(shape, stride, t->storage_offset() + extra_offset);
}

// How many samples go through im2col at once: the column buffer stays under
// about 64 MB.
int64_t SamplesPerChunk(const ConvGeometry& g, int64_t kvol, int64_t L, int64_t itemsize) {
  const int64_t per_sample = std::max<int64_t>(1, g.cs * kvol * L * itemsize);
  return std::max<int64_t>(1, std::min<int64_t>(g.n, (int64_t{64} << 20) / per_sample));
}

int64_t Prod(const DimVector& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

// The three computations on the native path, one product per group over a
// chunk of samples (the samples side by side in the columns, so the products
// are large enough to split over threads). S, W, D are tensors in the conv
// relation's roles; the one computed is contiguous (allocated by the
// dispatcher), the others may have any dense strides.
template <typename T>
void NativeConv(Prop prop, const ConvGeometry& g, DType dtype, const TensorImplPtr& s_in,
                const TensorImplPtr& w_in, const TensorImplPtr& d_in) {
  GradModeGuard no_grad(false);
  const int64_t G = g.groups, cdg = g.cd / G;
  const int64_t kvol = Prod(g.k_sp), L = Prod(g.d_sp), K = g.cs / G * kvol;
  const int64_t chunk = SamplesPerChunk(g, kvol, L, sizeof(T));
  TensorImplPtr cols = TensorImpl::Empty({g.cs * kvol * chunk * L}, dtype, Device{});
  T* cols_data = reinterpret_cast<T*>(cols->data());
  // Samples n0 .. n0 + nb of D as (G, Cd/G, nb, L).
  auto d_block = [&](const TensorImplPtr& d, int64_t n0, int64_t nb) {
    return ViewAs(d, {G, cdg, nb, L}, {cdg * L, L, g.cd * L, 1}, n0 * g.cd * L);
  };
  // ... and as a contiguous (G, Cd/G, nb * L) matrix batch (a copy).
  auto d_matrix = [&](const TensorImplPtr& d, int64_t n0, int64_t nb) {
    TensorImplPtr m = TensorImpl::Empty({G, cdg, nb, L}, dtype, Device{});
    CopyInto(d_block(d, n0, nb), m);
    return ViewAs(m, {G, cdg, nb * L}, {cdg * nb * L, nb * L, 1});
  };
  auto cols_matrix = [&](int64_t nb) {
    return ViewAs(cols, {G, K, nb * L}, {K * nb * L, nb * L, 1});
  };
  if (prop == Prop::kForward) {
    // D (G, Cd/G, nb L) = W (G, Cd/G, K) @ cols (G, K, nb L).
    TensorImplPtr w = Contiguous(w_in->Detach());
    TensorImplPtr wmat = ViewAs(w, {G, cdg, K}, {cdg * K, K, 1});
    for (int64_t n0 = 0; n0 < g.n; n0 += chunk) {
      const int64_t nb = std::min(chunk, g.n - n0);
      Im2Col<T>(*s_in, g, n0, nb, cols_data);
      TensorImplPtr prod = ops::matmul(wmat, cols_matrix(nb));
      CopyInto(ViewAs(prod, {G, cdg, nb, L}, {cdg * nb * L, nb * L, L, 1}), d_block(d_in, n0, nb));
    }
  } else if (prop == Prop::kBackwardData) {
    // cols (G, K, nb L) = W^T (G, K, Cd/G) @ D (G, Cd/G, nb L); S = col2im(cols).
    TensorImplPtr w = Contiguous(w_in->Detach());
    TensorImplPtr wt = ViewAs(w, {G, K, cdg}, {cdg * K, 1, K});
    const TensorImplPtr d = Contiguous(d_in->Detach());
    for (int64_t n0 = 0; n0 < g.n; n0 += chunk) {
      const int64_t nb = std::min(chunk, g.n - n0);
      CopyInto(ops::matmul(wt, d_matrix(d, n0, nb)), cols_matrix(nb));
      Col2Im<T>(cols_data, g, n0, nb, *s_in);
    }
  } else {
    // W (G, Cd/G, K) = sum over chunks of D (G, Cd/G, nb L) @ cols^T (G, nb L, K).
    TensorImplPtr acc;
    const TensorImplPtr d = Contiguous(d_in->Detach());
    for (int64_t n0 = 0; n0 < g.n; n0 += chunk) {
      const int64_t nb = std::min(chunk, g.n - n0);
      Im2Col<T>(*s_in, g, n0, nb, cols_data);
      TensorImplPtr ct = ViewAs(cols, {G, nb * L, K}, {K * nb * L, 1, nb * L});
      TensorImplPtr part = ops::matmul(d_matrix(d, n0, nb), ct);
      acc = acc ? ops::add(acc, part) : part;
    }
    CopyInto(acc, ViewAs(w_in, {G, cdg, K}, {cdg * K, K, 1}));
  }
}

void RunNative(Prop prop, const ConvGeometry& g, DType dtype, const TensorImplPtr& s,
               const TensorImplPtr& w, const TensorImplPtr& d) {
  DispatchNumeric(dtype, "convolution", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
      OF_THROW(RuntimeError, "convolution: no native kernel for ", DTypeName(dtype));
    } else {
      NativeConv<T>(prop, g, dtype, s, w, d);
    }
  });
}

// ---- oneDNN path ---------------------------------------------------------------

namespace dn = onednn;
using dnnl::memory;

// A primitive with the reorders between the user's layouts and its own, for
// the three tensor roles (S, W, D); `ok` is false when oneDNN has no
// implementation (the caller falls back).
struct OnednnConv {
  bool ok = false;
  dnnl::primitive prim;
  memory::desc scratchpad;
  dn::Reorder s, w, d;
};

// User layouts of the three roles as oneDNN sees them: W is grouped
// (G, Cd/G, Cs/G, *k) in oneDNN's dims when groups > 1, and a transposed
// convolution is oneDNN's deconvolution from D (the op's input) to S (its
// output), whose weights are (out channels, in channels) = (Cs, Cd).
struct OnednnLayouts {
  DimVector s_dims, s_strides, w_dims, w_strides, d_dims, d_strides;
  // S or D is channels_last (NHWC / NDHWC): the primitive then computes in that
  // layout instead of a blocked one of its choice, so channels_last tensors go
  // in and out without reorders.
  bool channels_last = false;
};

// The channels_last format of a tensor of this rank (contiguous: none).
MemoryFormat ChannelsLastFormat(size_t ndim) {
  return ndim == 4   ? MemoryFormat::kChannelsLast
         : ndim == 5 ? MemoryFormat::kChannelsLast3d
                     : MemoryFormat::kContiguous;
}

bool IsChannelsLast(const DimVector& dims, const DimVector& strides) {
  const MemoryFormat f = ChannelsLastFormat(dims.size());
  return f != MemoryFormat::kContiguous && IsContiguousAs(dims, strides, f);
}

OnednnLayouts MakeLayouts(const ConvGeometry& g, const TensorImpl& s, const TensorImpl& w,
                          const TensorImpl& d) {
  OnednnLayouts l;
  l.s_dims = s.shape();
  l.s_strides = s.stride();
  l.d_dims = d.shape();
  l.d_strides = d.stride();
  const DimVector& ws = w.stride();
  const DimVector& wd = w.shape();
  DimVector k_dims(wd.begin() + 2, wd.end()), k_strides(ws.begin() + 2, ws.end());
  const int64_t G = g.groups;
  // Torch's weight is (Cd, Cs/G, *k) with strides (s0, s1, *sk).
  if (!g.transposed) {
    // Convolution S -> D: oneDNN weights (oc = Cd, ic = Cs).
    if (G == 1) {
      l.w_dims = {wd[0], wd[1]};
      l.w_strides = {ws[0], ws[1]};
    } else {
      l.w_dims = {G, wd[0] / G, wd[1]};
      l.w_strides = {wd[0] / G * ws[0], ws[0], ws[1]};
    }
  } else {
    // Deconvolution D -> S: oneDNN weights (oc = Cs, ic = Cd).
    if (G == 1) {
      l.w_dims = {wd[1], wd[0]};
      l.w_strides = {ws[1], ws[0]};
    } else {
      l.w_dims = {G, wd[1], wd[0] / G};
      l.w_strides = {wd[0] / G * ws[0], ws[1], ws[0]};
    }
  }
  l.w_dims.insert(l.w_dims.end(), k_dims.begin(), k_dims.end());
  l.w_strides.insert(l.w_strides.end(), k_strides.begin(), k_strides.end());
  // (Equal layouts give equal cache keys.) A channels_last tensor keeps its
  // exact NHWC strides, so that it matches the primitive's NHWC layout even
  // where a dim has size 1.
  auto canonical = [&](const DimVector& dims, const DimVector& strides) {
    const MemoryFormat f = ChannelsLastFormat(dims.size());
    if (f != MemoryFormat::kContiguous && IsContiguousAs(dims, strides, f)) {
      return MemoryFormatStrides(dims, f);
    }
    return dn::CanonicalStrides(dims, strides);
  };
  l.s_strides = canonical(l.s_dims, l.s_strides);
  l.d_strides = canonical(l.d_dims, l.d_strides);
  l.w_strides = dn::CanonicalStrides(l.w_dims, l.w_strides);
  l.channels_last = IsChannelsLast(l.s_dims, l.s_strides) || IsChannelsLast(l.d_dims, l.d_strides);
  return l;
}

dn::PrimitiveCache<OnednnConv>& ConvCache() {
  static auto* cache = new dn::PrimitiveCache<OnednnConv>();
  return *cache;
}

// Tensors with fewer channels than this are kept in the user's plain layout:
// blocked layouts pad channels to 16, which makes e.g. the data gradient of a
// 3-channel first layer several times slower. (Grouped convolutions count all
// channels: depthwise kernels block the groups.)
constexpr int64_t kSmallChannels = 8;

// Builds the primitive for `prop` (the descriptors of oneDNN's conv/deconv
// APIs take the source side first: src = S for a convolution, D for a
// deconvolution).
OnednnConv BuildOnednn(Prop prop, const ConvGeometry& g, memory::data_type dt,
                       const OnednnLayouts& l, bool bias) {
  using tag = memory::format_tag;
  const memory::desc s_user(dn::ToDims(l.s_dims), dt, dn::ToDims(l.s_strides));
  const memory::desc w_user(dn::ToDims(l.w_dims), dt, dn::ToDims(l.w_strides));
  const memory::desc d_user(dn::ToDims(l.d_dims), dt, dn::ToDims(l.d_strides));
  // Layout requests: channels_last when the user's tensors are; else oneDNN's
  // choice ('any'), except for thin channel dims.
  auto want = [&](const DimVector& dims, int64_t channels) {
    if (l.channels_last) {
      return memory::desc(dn::ToDims(dims), dt,
                          dn::ToDims(MemoryFormatStrides(dims, ChannelsLastFormat(dims.size()))));
    }
    return channels < kSmallChannels ? dn::UserDesc(dims, ContiguousStrides(dims), dt)
                                     : memory::desc(dn::ToDims(dims), dt, tag::any);
  };
  const memory::desc s_want = want(l.s_dims, g.cs);
  const memory::desc d_want = want(l.d_dims, g.cd);
  const memory::desc w_want(dn::ToDims(l.w_dims), dt, tag::any);
  const int64_t bias_channels = g.transposed ? g.cs : g.cd;
  const memory::desc b_desc = bias ? memory::desc({bias_channels}, dt, tag::a) : memory::desc();
  // oneDNN's dilation counts the gaps (0 = dense); the right padding is what
  // makes its size relation exact (PyTorch's floor drops the remainder).
  memory::dims strides, dil, pad_l, pad_r;
  for (int64_t i = 0; i < g.ns; ++i) {
    strides.push_back(g.stride[i]);
    dil.push_back(g.dilation[i] - 1);
    pad_l.push_back(g.padding[i]);
    const int64_t ext = g.dilation[i] * (g.k_sp[i] - 1) + 1;
    pad_r.push_back((g.d_sp[i] - 1) * g.stride[i] + ext - g.s_sp[i] - g.padding[i]);
  }
  const dnnl::engine& eng = dn::Engine();
  const auto algo =
      g.transposed ? dnnl::algorithm::deconvolution_direct : dnnl::algorithm::convolution_direct;
  const dnnl::primitive_attr attr = dn::UserScratchpad();
  OnednnConv e;
  try {
    if (!g.transposed) {
      using Fwd = dnnl::convolution_forward;
      Fwd::desc fd(dnnl::prop_kind::forward_training, algo, s_want, w_want, b_desc, d_want, strides,
                   dil, pad_l, pad_r);
      Fwd::primitive_desc fpd(fd, attr, eng);
      if (prop == Prop::kForward) {
        e.prim = Fwd(fpd);
        e.scratchpad = fpd.scratchpad_desc();
        e.s = dn::Reorder(s_user, fpd.src_desc());
        e.w = dn::Reorder(w_user, fpd.weights_desc());
        e.d = dn::Reorder(fpd.dst_desc(), d_user);
      } else if (prop == Prop::kBackwardData) {
        using Bwd = dnnl::convolution_backward_data;
        Bwd::desc bd(algo, s_want, w_want, d_want, strides, dil, pad_l, pad_r);
        Bwd::primitive_desc bpd(bd, attr, eng, fpd);
        e.prim = Bwd(bpd);
        e.scratchpad = bpd.scratchpad_desc();
        e.s = dn::Reorder(bpd.diff_src_desc(), s_user);
        e.w = dn::Reorder(w_user, bpd.weights_desc());
        e.d = dn::Reorder(d_user, bpd.diff_dst_desc());
      } else {
        using Bwd = dnnl::convolution_backward_weights;
        Bwd::desc bd(algo, s_want, w_want, b_desc, d_want, strides, dil, pad_l, pad_r);
        Bwd::primitive_desc bpd(bd, attr, eng, fpd);
        e.prim = Bwd(bpd);
        e.scratchpad = bpd.scratchpad_desc();
        e.s = dn::Reorder(s_user, bpd.src_desc());
        e.w = dn::Reorder(bpd.diff_weights_desc(), w_user);
        e.d = dn::Reorder(d_user, bpd.diff_dst_desc());
      }
    } else {
      // Deconvolution from D (src) to S (dst); the forward of the transposed
      // op is this forward, its input gradient this backward data.
      using Fwd = dnnl::deconvolution_forward;
      Fwd::desc fd(dnnl::prop_kind::forward_training, algo, d_want, w_want, b_desc, s_want, strides,
                   dil, pad_l, pad_r);
      Fwd::primitive_desc fpd(fd, attr, eng);
      if (prop == Prop::kBackwardData) {  // S from (D, W): the deconvolution's forward
        e.prim = Fwd(fpd);
        e.scratchpad = fpd.scratchpad_desc();
        e.d = dn::Reorder(d_user, fpd.src_desc());
        e.w = dn::Reorder(w_user, fpd.weights_desc());
        e.s = dn::Reorder(fpd.dst_desc(), s_user);
      } else if (prop == Prop::kForward) {  // D from (S, W): its backward data
        using Bwd = dnnl::deconvolution_backward_data;
        Bwd::desc bd(algo, d_want, w_want, s_want, strides, dil, pad_l, pad_r);
        Bwd::primitive_desc bpd(bd, attr, eng, fpd);
        e.prim = Bwd(bpd);
        e.scratchpad = bpd.scratchpad_desc();
        e.s = dn::Reorder(s_user, bpd.diff_dst_desc());
        e.w = dn::Reorder(w_user, bpd.weights_desc());
        e.d = dn::Reorder(bpd.diff_src_desc(), d_user);
      } else {
        using Bwd = dnnl::deconvolution_backward_weights;
        Bwd::desc bd(algo, d_want, w_want, b_desc, s_want, strides, dil, pad_l, pad_r);
        Bwd::primitive_desc bpd(bd, attr, eng, fpd);
        e.prim = Bwd(bpd);
        e.scratchpad = bpd.scratchpad_desc();
        e.d = dn::Reorder(d_user, bpd.src_desc());
        e.w = dn::Reorder(bpd.diff_weights_desc(), w_user);
        e.s = dn::Reorder(s_user, bpd.diff_dst_desc());
      }
    }
    e.ok = true;
  } catch (const dnnl::error&) {
    e = OnednnConv();  // no implementation: the caller falls back
  }
  return e;
}

// Runs `prop` with oneDNN; false when oneDNN has no implementation for it.
// The computed role (D, S or W) and `bias` (the bias for a forward, the bias
// gradient for backward weights; may be null) are contiguous.
bool RunOnednn(Prop prop, const ConvGeometry& g, DType dtype, const TensorImplPtr& s,
               const TensorImplPtr& w, const TensorImplPtr& d, const TensorImplPtr& bias) {
  const memory::data_type dt = dn::ToDnnl(dtype);
  const OnednnLayouts l = MakeLayouts(g, *s, *w, *d);
  // Whether the primitive takes the bias: forward of a plain convolution,
  // backward data of a transposed one (its forward), backward weights of both.
  const bool bias_arg = bias && (prop == Prop::kBackwardWeights ||
                                 prop == (g.transposed ? Prop::kBackwardData : Prop::kForward));
  dn::CacheKey key;
  key.Add(static_cast<int64_t>(prop))
      .Add(g.transposed)
      .Add(static_cast<int64_t>(dt))
      .Add(g.groups)
      .Add(bias_arg)
      .Add(g.stride)
      .Add(g.padding)
      .Add(g.dilation);
  dn::AddLayout(key, l.s_dims, l.s_strides);
  dn::AddLayout(key, l.w_dims, l.w_strides);
  dn::AddLayout(key, l.d_dims, l.d_strides);
  std::shared_ptr<const OnednnConv> e =
      ConvCache().GetOrCreate(key, [&] { return BuildOnednn(prop, g, dt, l, bias_arg); });
  if (!e->ok) return false;
  // Inputs and outputs of the primitive per role.
  const bool s_in = prop != Prop::kBackwardData;
  const bool w_in = prop != Prop::kBackwardWeights;
  const bool d_in = prop != Prop::kForward;
  // A plain forward convolution's filters are reordered once and reused while
  // the weight is unchanged (inference; see packed_weights.h).
  std::shared_ptr<const PackedWeights::Packed> packed_w;
  if (prop == Prop::kForward && !g.transposed && e->w.needed()) {
    dn::CacheKey layout;
    layout.Add(static_cast<int64_t>(dt)).Add(g.groups);
    dn::AddLayout(layout, l.w_dims, l.w_strides);
    packed_w = PackedWeightCache().Get(w->storage(), w->data(), layout, e->w.from, e->w.to);
  }
  dn::ArgMemory sm(e->s, s->data(), s_in), dm(e->d, d->data(), d_in);
  dn::ArgMemory wm = packed_w
                         ? dn::ArgMemory(e->w, packed_w->buffer->data(), dn::ArgMemory::Ready{})
                         : dn::ArgMemory(e->w, w->data(), w_in);
  sm.In();
  wm.In();
  dm.In();
  std::unordered_map<int, memory> args;
  // Argument names: a convolution's src side is S, a deconvolution's is D.
  const memory& src_side = g.transposed ? dm.mem() : sm.mem();
  const memory& dst_side = g.transposed ? sm.mem() : dm.mem();
  // Which oneDNN propagation this is (deconvolution swaps forward and
  // backward data).
  Prop p = prop;
  if (g.transposed && prop != Prop::kBackwardWeights) {
    p = prop == Prop::kForward ? Prop::kBackwardData : Prop::kForward;
  }
  memory bias_mem;
  if (bias_arg) {
    bias_mem = memory(memory::desc({bias->numel()}, dt, memory::format_tag::a), dn::Engine(),
                      bias->data());
  }
  switch (p) {
    case Prop::kForward:
      args = {{DNNL_ARG_SRC, src_side}, {DNNL_ARG_WEIGHTS, wm.mem()}, {DNNL_ARG_DST, dst_side}};
      if (bias_arg) args[DNNL_ARG_BIAS] = bias_mem;
      break;
    case Prop::kBackwardData:
      args = {{DNNL_ARG_DIFF_SRC, src_side},
              {DNNL_ARG_WEIGHTS, wm.mem()},
              {DNNL_ARG_DIFF_DST, dst_side}};
      break;
    case Prop::kBackwardWeights:
      args = {{DNNL_ARG_SRC, src_side},
              {DNNL_ARG_DIFF_WEIGHTS, wm.mem()},
              {DNNL_ARG_DIFF_DST, dst_side}};
      if (bias_arg) args[DNNL_ARG_DIFF_BIAS] = bias_mem;
      break;
  }
  dn::Execute(e->prim, e->scratchpad, std::move(args));
  sm.Out();
  wm.Out();
  dm.Out();
  dn::Stream().wait();
  return true;
}

// ---- dispatch -------------------------------------------------------------------

// Computes `prop` into the (allocated, dense) output role; `bias` is
// added to the output (forward of either kind) or receives the bias gradient
// (backward weights), or is null.
void RunConv(Prop prop, const ConvGeometry& g, DType dtype, TensorImplPtr s, TensorImplPtr w,
             TensorImplPtr d, const TensorImplPtr& bias) {
  const TensorImplPtr out = prop == Prop::kForward ? d : prop == Prop::kBackwardData ? s : w;
  // The bias belongs to the op's output: D of a plain convolution, S of a
  // transposed one.
  const bool adds_bias = bias && prop != Prop::kBackwardWeights;
  const bool sums_bias = bias && prop == Prop::kBackwardWeights;
  // Empty: nothing to accumulate (zeros, plus the bias where it is added).
  const bool empty = g.n == 0 || g.cs == 0 || g.cd == 0 || Prod(g.s_sp) == 0 || Prod(g.d_sp) == 0;
  if (out->numel() == 0 && !sums_bias) return;
  // oneDNN writes any dense layout of the output (channels_last included); the
  // other paths compute into a contiguous buffer.
  if (!out->is_contiguous()) {
    if (!empty && (dtype == DType::kFloat32 || dtype == DType::kBFloat16) &&
        RunOnednn(prop, g, dtype, s, w, d, adds_bias ? Contiguous(bias) : bias)) {
      return;
    }
    const TensorImplPtr tmp = TensorImpl::Empty(out->shape(), out->dtype(), out->device());
    RunConv(prop, g, dtype, prop == Prop::kBackwardData ? tmp : s,
            prop == Prop::kBackwardWeights ? tmp : w, prop == Prop::kForward ? tmp : d, bias);
    CopyInto(tmp, out);
    return;
  }
  if (empty) {
    FillZero(out);
    if (sums_bias) FillZero(bias);
    if (adds_bias && out->numel() > 0) {
      DispatchNumeric(dtype, "convolution", [&](auto tag) {
        using T = typename decltype(tag)::type;
        AddBias<T>(out, bias);
      });
    }
    return;
  }
  // The computed role is contiguous here; the others are
  // read by their strides, whatever they are (oneDNN's reorders read any
  // strides, zero included, so the expanded gradient of a sum() is never
  // materialized; the native path copies what its products need).
  const TensorImplPtr b = adds_bias ? Contiguous(bias) : bias;

  if (dtype == DType::kFloat32 || dtype == DType::kBFloat16) {
    if (RunOnednn(prop, g, dtype, s, w, d, b)) return;
  }
  if (dtype == DType::kFloat16 || dtype == DType::kBFloat16) {
    // Through float32: the inputs converted, the output rounded once.
    auto f32 = [](const TensorImplPtr& t) { return ToDType(t, DType::kFloat32, false); };
    auto fresh = [](const TensorImplPtr& t) {
      return TensorImpl::Empty(t->shape(), DType::kFloat32, t->device());
    };
    TensorImplPtr s32 = prop == Prop::kBackwardData ? fresh(s) : f32(s);
    TensorImplPtr w32 = prop == Prop::kBackwardWeights ? fresh(w) : f32(w);
    TensorImplPtr d32 = prop == Prop::kForward ? fresh(d) : f32(d);
    TensorImplPtr b32 = !b ? nullptr : sums_bias ? fresh(b) : f32(b);
    RunConv(prop, g, DType::kFloat32, s32, w32, d32, b32);
    CopyInto(prop == Prop::kForward ? d32 : prop == Prop::kBackwardData ? s32 : w32, out);
    if (sums_bias) CopyInto(b32, b);
    return;
  }
  RunNative(prop, g, dtype, s, w, d);
  if (adds_bias) {
    DispatchNumeric(dtype, "convolution", [&](auto tag) {
      using T = typename decltype(tag)::type;
      AddBias<T>(out, b);
    });
  }
  if (sums_bias) SumForBias(g.transposed ? s : d, b);
}

// convolution(input, weight, bias, stride, padding, dilation, transposed,
//             output_padding, groups)
void ConvolutionKernel(OpCall& c) {
  namespace a = arg::convolution;
  const TensorImplPtr &x = c.tensor(a::input), &w = c.tensor(a::weight), &y = c.outputs[0];
  const TensorImplPtr bias = c.get(a::bias);
  const bool transposed = c.get(a::transposed);
  const int64_t groups = c.get(a::groups);
  const DimVector &stride = c.args[a::stride].int_list(), &padding = c.args[a::padding].int_list(),
                  &dilation = c.args[a::dilation].int_list();
  if (!transposed) {
    ConvGeometry g =
        MakeGeometry(x->shape(), y->shape(), w->shape(), stride, padding, dilation, false, groups);
    RunConv(Prop::kForward, g, c.compute_dtype, x, w, y, bias);
  } else {
    ConvGeometry g =
        MakeGeometry(y->shape(), x->shape(), w->shape(), stride, padding, dilation, true, groups);
    RunConv(Prop::kBackwardData, g, c.compute_dtype, y, w, x, bias);
  }
}

// convolution_input_backward(grad_output, weight, input_size, stride, padding,
//                            dilation, transposed, groups)
void InputBackwardKernel(OpCall& c) {
  namespace a = arg::convolution_input_backward;
  const TensorImplPtr &gy = c.tensor(a::grad_output), &w = c.tensor(a::weight), &gx = c.outputs[0];
  const bool transposed = c.get(a::transposed);
  const int64_t groups = c.get(a::groups);
  const DimVector &stride = c.args[a::stride].int_list(), &padding = c.args[a::padding].int_list(),
                  &dilation = c.args[a::dilation].int_list();
  if (!transposed) {
    ConvGeometry g = MakeGeometry(gx->shape(), gy->shape(), w->shape(), stride, padding, dilation,
                                  false, groups);
    RunConv(Prop::kBackwardData, g, c.compute_dtype, gx, w, gy, nullptr);
  } else {
    ConvGeometry g =
        MakeGeometry(gy->shape(), gx->shape(), w->shape(), stride, padding, dilation, true, groups);
    RunConv(Prop::kForward, g, c.compute_dtype, gy, w, gx, nullptr);
  }
}

// convolution_weight_backward(grad_output, input, weight_size, stride, padding,
//                             dilation, transposed, groups, bias)
void WeightBackwardKernel(OpCall& c) {
  namespace a = arg::convolution_weight_backward;
  const TensorImplPtr &gy = c.tensor(a::grad_output), &x = c.tensor(a::input), &gw = c.outputs[0];
  const TensorImplPtr gb = c.get(a::bias) ? c.outputs[1] : nullptr;
  const bool transposed = c.get(a::transposed);
  const int64_t groups = c.get(a::groups);
  const DimVector &stride = c.args[a::stride].int_list(), &padding = c.args[a::padding].int_list(),
                  &dilation = c.args[a::dilation].int_list();
  if (!transposed) {
    ConvGeometry g = MakeGeometry(x->shape(), gy->shape(), gw->shape(), stride, padding, dilation,
                                  false, groups);
    RunConv(Prop::kBackwardWeights, g, c.compute_dtype, x, gw, gy, gb);
  } else {
    ConvGeometry g =
        MakeGeometry(gy->shape(), x->shape(), gw->shape(), stride, padding, dilation, true, groups);

    RunConv(Prop::kBackwardWeights, g, c.compute_dtype, gy, gw, x, gb);
  }
}

constexpr DTypeSet kConvDTypes = kNumericDTypes;
OF_KERNEL("convolution", kCPU, kConvDTypes, &ConvolutionKernel);
OF_KERNEL("convolution_input_backward", kCPU, kConvDTypes, &InputBackwardKernel);
OF_KERNEL("convolution_weight_backward", kCPU, kConvDTypes, &WeightBackwardKernel);

}  // namespace
}  // namespace cpu
}  // namespace oneflow
