// CPU kernels of the row normalizations declared in ops/defs/norm.cc:
// layer_norm, rms_norm and group_norm.
//
// Every kernel reads its input as [rows, n] (layer_norm, rms_norm, and
// group_norm's (sample, group) rows). A row is read from memory once for its
// statistics and once to normalize: the statistics come from blocks of up to
// kBlock values, each summed for its mean and then for its squared deviations
// while it is in cache (two-pass, so no cancellation), and blocks merge
// pairwise in double (norm_common.h). Rows are split over threads
// (ParallelFor); per-chunk parameter gradients are merged at the end. Inner
// loops are `omp simd` loops; the layer_norm / rms_norm row kernels are built
// for AVX-512, AVX2 and baseline x86-64 and picked at run time. 16-bit floats
// compute in float.

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <optional>
#include <vector>

#include "core/runtime/tensor_ops.h"
#include "ops/cpu/isa.h"
#include "ops/cpu/loops.h"
#include "ops/cpu/norm_common.h"
#include "ops/defs/common.h"

namespace oneflow {
namespace cpu {
namespace {

constexpr DeviceType kCPU = DeviceType::kCPU;

// sum(x^2) over n values, in A lanes per block.
template <typename T>
OF_INLINE double SquareSum(const T* x, int64_t n) {
  using A = AccT<T>;
  double total = 0;
  for (int64_t b = 0; b < n; b += kBlock) {
    total += LaneSum<T, /*kSquaredDeviation=*/true>(x + b, std::min(kBlock, n - b), A(0));
  }
  return total;
}

// Mean (0 without centering) and 1 / sqrt(var + eps) of one row.
template <typename T>
OF_INLINE void RowStats(const T* x, int64_t n, bool center, double eps, AccT<T>* mean,
                        AccT<T>* rstd) {
  using A = AccT<T>;
  if (center) {
    const Moments mo = SpanMoments(x, n);
    *mean = static_cast<A>(mo.mean);
    *rstd = static_cast<A>(1.0 / std::sqrt(mo.m2 / n + eps));
    return;
  }
  *mean = A(0);
  *rstd = static_cast<A>(1.0 / std::sqrt(SquareSum(x, n) / n + eps));
}

// ---- layer_norm / rms_norm rows ------------------------------------------------------

template <typename T>
struct RowNormFwd {
  const T* x;
  T* y;
  const AccT<T>* w;  // n values or null
  const AccT<T>* b;
  AccT<T>* mean;  // one per row
  AccT<T>* rstd;
  int64_t n;
  bool center;
  double eps;
};

template <typename T, bool kW, bool kB>
OF_INLINE void NormalizeRow(const T* x, T* y, const AccT<T>* w, const AccT<T>* b, int64_t n,
                            AccT<T> m, AccT<T> a) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) {
    AccT<T> v = (static_cast<AccT<T>>(x[i]) - m) * a;
    if constexpr (kW) v = v * w[i];
    if constexpr (kB) v = v + b[i];
    y[i] = static_cast<T>(v);
  }
}

template <typename T>
OF_INLINE void RowNormFwdImpl(const RowNormFwd<T>& p, int64_t r0, int64_t r1) {
  using A = AccT<T>;
  for (int64_t r = r0; r < r1; ++r) {
    const T* x = p.x + r * p.n;
    T* y = p.y + r * p.n;
    A m, a;
    RowStats(x, p.n, p.center, p.eps, &m, &a);
    p.mean[r] = m;
    p.rstd[r] = a;
    if (p.w && p.b) {
      NormalizeRow<T, true, true>(x, y, p.w, p.b, p.n, m, a);
    } else if (p.w) {
      NormalizeRow<T, true, false>(x, y, p.w, p.b, p.n, m, a);
    } else if (p.b) {
      NormalizeRow<T, false, true>(x, y, p.w, p.b, p.n, m, a);
    } else {
      NormalizeRow<T, false, false>(x, y, p.w, p.b, p.n, m, a);
    }
  }
}

template <typename T>
struct RowNormBwd {
  const T* g;
  int64_t g_rs;  // row stride of g: n, or 0 when every row has the same gradient
  const T* x;
  const AccT<T>* mean;  // null without centering
  const AccT<T>* rstd;
  const AccT<T>* grstd;  // gradient flowing into rstd (rms_norm), or null
  const AccT<T>* w;
  T* dx;        // null: not wanted
  AccT<T>* dw;  // partial sums of this chunk, or null
  AccT<T>* db;
  int64_t n;
};

// With gw = g * w and xc = x - mean: dx = rstd * gw + k1 * x + k0, where
// k1 = -rstd^3 * sum(gw * xc) / n and k0 = -k1 * mean - rstd * sum(gw) / n (the
// last term only with centering). The parameter gradients (dw += g * xc * rstd,
// db += g) accumulate in the same pass as dx.
template <typename T, bool kW>
OF_INLINE void RowCoefficients(const RowNormBwd<T>& p, int64_t r, AccT<T>* k1, AccT<T>* k0) {
  using A = AccT<T>;
  const int64_t n = p.n;
  const T* g = p.g + r * p.g_rs;
  const T* x = p.x + r * n;
  const A m = p.mean ? p.mean[r] : A(0);
  const A a = p.rstd[r];
  double s1 = 0, s2 = 0;
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t e = std::min(n, b + kBlock);
    A p1 = 0, p2 = 0;
#pragma omp simd reduction(+ : p1, p2)
    for (int64_t i = b; i < e; ++i) {
      A gw = static_cast<A>(g[i]);
      if constexpr (kW) gw = gw * p.w[i];
      p1 += gw;
      p2 += gw * (static_cast<A>(x[i]) - m);
    }
    s1 += p1;
    s2 += p2;
  }
  // A gradient into rstd adds grstd * d rstd / dx = grstd * -rstd^3 * xc / n.
  const double gr = p.grstd ? static_cast<double>(p.grstd[r]) : 0.0;
  *k1 = static_cast<A>(-(s2 + gr) * a * a * a / n);
  *k0 = static_cast<A>(p.mean ? -*k1 * m - s1 * a / n : 0.0);
}

// dx of one row and its contribution to the parameter gradients, in one pass.
template <typename T, bool kW, bool kDx, bool kParams>
OF_INLINE void RowNormBwdRow(const RowNormBwd<T>& p, int64_t r) {
  using A = AccT<T>;
  const int64_t n = p.n;
  const T* g = p.g + r * p.g_rs;
  const T* x = p.x + r * n;
  const A m = p.mean ? p.mean[r] : A(0);
  const A a = p.rstd[r];
  A k1 = 0, k0 = 0;
  if constexpr (kDx) RowCoefficients<T, kW>(p, r, &k1, &k0);
  T* dx = kDx ? p.dx + r * n : nullptr;
  A* dw = p.dw;
  A* db = p.db;
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) {
    const A gv = static_cast<A>(g[i]);
    const A xv = static_cast<A>(x[i]);
    if constexpr (kDx) {
      A gw = gv;
      if constexpr (kW) gw = gw * p.w[i];
      dx[i] = static_cast<T>(a * gw + k1 * xv + k0);
    }
    if constexpr (kParams) {
      dw[i] += gv * ((xv - m) * a);
      db[i] += gv;
    }
  }
}

template <typename T, bool kW, bool kDx, bool kParams>
OF_INLINE void RowNormBwdRange(const RowNormBwd<T>& p, int64_t r0, int64_t r1) {
  for (int64_t r = r0; r < r1; ++r) RowNormBwdRow<T, kW, kDx, kParams>(p, r);
}

template <typename T, bool kW>
OF_INLINE void RowNormBwdRows(const RowNormBwd<T>& p, int64_t r0, int64_t r1) {
  const bool params = p.dw != nullptr;
  if (p.dx && params) {
    RowNormBwdRange<T, kW, true, true>(p, r0, r1);
  } else if (p.dx) {
    RowNormBwdRange<T, kW, true, false>(p, r0, r1);
  } else if (params) {
    RowNormBwdRange<T, kW, false, true>(p, r0, r1);
  }
}

template <typename T>
OF_INLINE void RowNormBwdImpl(const RowNormBwd<T>& p, int64_t r0, int64_t r1) {
  if (p.w) {
    RowNormBwdRows<T, true>(p, r0, r1);
  } else {
    RowNormBwdRows<T, false>(p, r0, r1);
  }
}

// The row kernels, run with the instruction set KernelIsa() picked.
template <typename T>
void RowNormFwdRows(const RowNormFwd<T>& p, int64_t r0, int64_t r1) {
  RunForKernelIsa([&]() OF_INLINE_LAMBDA { RowNormFwdImpl(p, r0, r1); });
}
template <typename T>
void RowNormBwdKernel(const RowNormBwd<T>& p, int64_t r0, int64_t r1) {
  RunForKernelIsa([&]() OF_INLINE_LAMBDA { RowNormBwdImpl(p, r0, r1); });
}

// Rows per ParallelFor chunk: enough elements that a thread is worth starting.
int64_t RowGrain(int64_t n) { return std::max<int64_t>(1, 16384 / std::max<int64_t>(n, 1)); }

// [rows, n] normalization: layer_norm (center) and rms_norm.
void RowNormForward(const TensorImplPtr& input, const TensorImplPtr& weight,
                    const TensorImplPtr& bias, int64_t n, bool center, double eps,
                    const TensorImplPtr& out, const TensorImplPtr& mean_out,
                    const TensorImplPtr& rstd_out, const char* op) {
  TensorImplPtr x = Contiguous(input);
  const int64_t rows = rstd_out->numel();
  DispatchFloating(x->dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = AccT<T>;
    std::vector<A> w = ToVector<A>(weight), b = ToVector<A>(bias);
    // Empty rows (n == 0): mean 0 and rstd NaN, as PyTorch.
    std::vector<A> mean(rows), rstd(rows, std::numeric_limits<A>::quiet_NaN());
    if (n == 0) {
      if (mean_out) StoreVector(mean, mean_out);
      StoreVector(rstd, rstd_out);
      return;
    }
    RowNormFwd<T> p{reinterpret_cast<const T*>(x->data()),
                    reinterpret_cast<T*>(out->data()),
                    weight ? w.data() : nullptr,
                    bias ? b.data() : nullptr,
                    mean.data(),
                    rstd.data(),
                    n,
                    center,
                    eps};
    ParallelFor(rows, RowGrain(n), [&](int64_t r0, int64_t r1) { RowNormFwdRows(p, r0, r1); });
    if (mean_out) StoreVector(mean, mean_out);
    StoreVector(rstd, rstd_out);
  });
}

// Gradients of a [rows, n] normalization; a null output is not computed.
void RowNormBackward(const TensorImplPtr& grad, const TensorImplPtr& input,
                     const TensorImplPtr& mean_in, const TensorImplPtr& rstd_in,
                     const TensorImplPtr& grstd_in, const TensorImplPtr& weight, int64_t n,
                     const TensorImplPtr& dx_out, const TensorImplPtr& dw_out,
                     const TensorImplPtr& db_out, const char* op) {
  TensorImplPtr x = Contiguous(input);
  const int64_t rows = n == 0 ? 0 : x->numel() / n;
  // A gradient broadcast from one value (the backward of a sum) is read as one
  // row repeated, instead of being materialized.
  bool same_rows = true;
  for (int64_t s : grad->stride()) same_rows = same_rows && s == 0;
  TensorImplPtr g = same_rows && grad->numel() > 0
                        ? Contiguous(grad->AsStrided({n}, {0}, grad->storage_offset()))
                        : Contiguous(grad);
  const int64_t g_rs = same_rows && grad->numel() > 0 ? 0 : n;
  DispatchFloating(x->dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = AccT<T>;
    std::vector<A> w = ToVector<A>(weight), mean = ToVector<A>(mean_in),
                   rstd = ToVector<A>(rstd_in), grstd = ToVector<A>(grstd_in);
    // Both parameter gradients are summed when either is wanted.
    const bool params = dw_out || db_out;
    std::vector<A> dw(params ? n : 0), db(params ? n : 0);
    std::mutex mu;
    ParallelFor(rows, RowGrain(n), [&](int64_t r0, int64_t r1) {
      std::vector<A> pw(dw.size()), pb(db.size());
      RowNormBwd<T> p{reinterpret_cast<const T*>(g->data()),
                      g_rs,
                      reinterpret_cast<const T*>(x->data()),
                      mean_in ? mean.data() : nullptr,
                      rstd.data(),
                      grstd_in ? grstd.data() : nullptr,
                      weight ? w.data() : nullptr,
                      dx_out ? reinterpret_cast<T*>(dx_out->data()) : nullptr,
                      params ? pw.data() : nullptr,
                      params ? pb.data() : nullptr,
                      n};
      RowNormBwdKernel(p, r0, r1);
      if (params) {
        Merge(mu, dw, pw);
        Merge(mu, db, pb);
      }
    });
    if (dw_out) StoreVector(dw, dw_out);
    if (db_out) StoreVector(db, db_out);
  });
}

int64_t NumelOf(const DimVector& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

void NativeLayerNormKernel(OpCall& c) {
  namespace P = arg::native_layer_norm;
  RowNormForward(c.tensor(P::input), c.get(P::weight), c.get(P::bias),
                 NumelOf(c.get(P::normalized_shape)), true, c.get(P::eps), c.outputs[0],
                 c.outputs[1], c.outputs[2], "layer_norm");
}
OF_KERNEL("native_layer_norm", kCPU, kFloatingDTypes, &NativeLayerNormKernel);

void NativeLayerNormBackwardKernel(OpCall& c) {
  namespace P = arg::native_layer_norm_backward;
  const DimVector mask = c.get(P::output_mask);
  RowNormBackward(c.tensor(P::grad_out), c.tensor(P::input), c.tensor(P::mean), c.tensor(P::rstd),
                  nullptr, c.get(P::weight), NumelOf(c.get(P::normalized_shape)),
                  mask[0] ? Wanted(c, 0) : nullptr, mask[1] ? Wanted(c, 1) : nullptr,
                  mask[2] ? Wanted(c, 2) : nullptr, "layer_norm_backward");
}
OF_KERNEL("native_layer_norm_backward", kCPU, kFloatingDTypes, &NativeLayerNormBackwardKernel);

double RmsEps(const std::optional<double>& eps, DType d) {
  if (eps) return *eps;
  return d == DType::kFloat64 ? std::numeric_limits<double>::epsilon()
                              : std::numeric_limits<float>::epsilon();
}

void FusedRmsNormKernel(OpCall& c) {
  namespace P = arg::_fused_rms_norm;
  const TensorImplPtr& input = c.tensor(P::input);
  RowNormForward(input, c.get(P::weight), nullptr, NumelOf(c.get(P::normalized_shape)), false,
                 RmsEps(c.get(P::eps), input->dtype()), c.outputs[0], nullptr, c.outputs[1],
                 "rms_norm");
}
OF_KERNEL("_fused_rms_norm", kCPU, kFloatingDTypes, &FusedRmsNormKernel);

void FusedRmsNormBackwardKernel(OpCall& c) {
  namespace P = arg::_fused_rms_norm_backward;
  const DimVector mask = c.get(P::output_mask);
  RowNormBackward(c.tensor(P::grad_out), c.tensor(P::input), nullptr, c.tensor(P::rstd),
                  c.get(P::grad_rstd), c.get(P::weight), NumelOf(c.get(P::normalized_shape)),
                  mask[0] ? Wanted(c, 0) : nullptr, mask[1] ? Wanted(c, 1) : nullptr, nullptr,
                  "rms_norm_backward");
}
OF_KERNEL("_fused_rms_norm_backward", kCPU, kFloatingDTypes, &FusedRmsNormBackwardKernel);

// ---- group_norm ----------------------------------------------------------------------
//
// Rows are (sample, group): D = C / group channels of HxW values each, all
// contiguous. A row's statistics and its normalization run back to back, so
// the row is read from memory once.

void NativeGroupNormKernel(OpCall& c) {
  namespace P = arg::native_group_norm;
  TensorImplPtr x = Contiguous(c.tensor(P::input));
  const TensorImplPtr weight = c.get(P::weight), bias = c.get(P::bias);
  const int64_t N = c.get(P::N), C = c.get(P::C), HW = c.get(P::HxW);
  const int64_t G = c.get(P::group);
  const double eps = c.get(P::eps);
  const int64_t D = C / G, len = D * HW;
  DispatchFloating(x->dtype(), "group_norm", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = AccT<T>;
    std::vector<A> w = ToVector<A>(weight), b = ToVector<A>(bias);
    const bool has_w = weight != nullptr, has_b = bias != nullptr;
    std::vector<A> mean(N * G), rstd(N * G);
    const T* px = reinterpret_cast<const T*>(x->data());
    T* py = reinterpret_cast<T*>(c.outputs[0]->data());
    ParallelFor(N * G, RowGrain(len), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        if (len == 0) {
          mean[r] = A(0);
          rstd[r] = static_cast<A>(1.0 / std::sqrt(eps));
          continue;
        }
        A m, a;
        RowStats(px + r * len, len, true, eps, &m, &a);
        mean[r] = m;
        rstd[r] = a;
        for (int64_t d = 0; d < D; ++d) {
          const int64_t ch = (r % G) * D + d;
          const A scale = has_w ? a * w[ch] : a;
          const A shift = has_b ? b[ch] : A(0);
          const T* xr = px + r * len + d * HW;
          T* yr = py + r * len + d * HW;
#pragma omp simd
          for (int64_t i = 0; i < HW; ++i) {
            yr[i] = static_cast<T>((static_cast<A>(xr[i]) - m) * scale + shift);
          }
        }
      }
    });
    StoreVector(mean, c.outputs[1]);
    StoreVector(rstd, c.outputs[2]);
  });
}
OF_KERNEL("native_group_norm", kCPU, kFloatingDTypes, &NativeGroupNormKernel);

// Per (sample, channel): sg = sum(g), sgc = sum(g * (x - mean)). With w the
// channel weights of a row, gw = g * w, and the row's mean m and rstd a:
// dx = a * w * g + k1 * x + k0 as in RowNormBwdRow, where sum(gw) = sum(w * sg)
// and sum(gw * xc) = sum(w * sgc); dweight = sum_n a * sgc, dbias = sum_n sg.
void NativeGroupNormBackwardKernel(OpCall& c) {
  namespace P = arg::native_group_norm_backward;
  TensorImplPtr g = Contiguous(c.tensor(P::grad_out)), x = Contiguous(c.tensor(P::input));
  const TensorImplPtr weight = c.get(P::weight);
  const int64_t N = c.get(P::N), C = c.get(P::C), HW = c.get(P::HxW);
  const int64_t G = c.get(P::group);
  const DimVector mask = c.get(P::output_mask);
  const int64_t D = C / G, len = D * HW;
  TensorImplPtr dx_out = mask[0] ? Wanted(c, 0) : nullptr;
  TensorImplPtr dw_out = mask[1] ? Wanted(c, 1) : nullptr;
  TensorImplPtr db_out = mask[2] ? Wanted(c, 2) : nullptr;
  DispatchFloating(x->dtype(), "group_norm_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = AccT<T>;
    std::vector<A> w = ToVector<A>(weight), mean = ToVector<A>(c.tensor(P::mean)),
                   rstd = ToVector<A>(c.tensor(P::rstd));
    std::vector<A> gmean = ToVector<A>(c.get(P::grad_mean)),
                   grstd = ToVector<A>(c.get(P::grad_rstd));
    const bool has_w = weight != nullptr;
    std::vector<double> sg(N * C), sgc(N * C);
    const T* pg = reinterpret_cast<const T*>(g->data());
    const T* px = reinterpret_cast<const T*>(x->data());
    T* pdx = dx_out ? reinterpret_cast<T*>(dx_out->data()) : nullptr;
    ParallelFor(N * G, RowGrain(len), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const A m = mean[r], a = rstd[r];
        double swg = 0, swgc = 0;
        for (int64_t d = 0; d < D; ++d) {
          const int64_t nc = r * D + d;  // = n * C + channel
          const T* gr = pg + nc * HW;
          const T* xr = px + nc * HW;
          double s1 = 0, s2 = 0;
          for (int64_t b0 = 0; b0 < HW; b0 += kBlock) {
            const int64_t e = std::min(HW, b0 + kBlock);
            A p1 = 0, p2 = 0;
#pragma omp simd reduction(+ : p1, p2)
            for (int64_t i = b0; i < e; ++i) {
              const A gv = static_cast<A>(gr[i]);
              p1 += gv;
              p2 += gv * (static_cast<A>(xr[i]) - m);
            }
            s1 += p1;
            s2 += p2;
          }
          sg[nc] = s1;
          sgc[nc] = s2;
          const double wc = has_w ? static_cast<double>(w[(r % G) * D + d]) : 1.0;
          swg += wc * s1;
          swgc += wc * s2;
        }
        if (!pdx || len == 0) continue;
        double k1d = -swgc * a * a * a / len, k0d = -k1d * m - swg * a / len;
        // Gradients flowing into the mean and rstd outputs:
        // d mean / dx = 1 / len, d rstd / dx = -rstd^3 * (x - mean) / len.
        if (!gmean.empty()) k0d += static_cast<double>(gmean[r]) / len;
        if (!grstd.empty()) {
          const double t = static_cast<double>(grstd[r]) * a * a * a / len;
          k1d -= t;
          k0d += t * m;
        }
        const A k1 = static_cast<A>(k1d), k0 = static_cast<A>(k0d);
        for (int64_t d = 0; d < D; ++d) {
          const int64_t nc = r * D + d;
          const A ka = has_w ? a * w[(r % G) * D + d] : a;
          const T* gr = pg + nc * HW;
          const T* xr = px + nc * HW;
          T* dxr = pdx + nc * HW;
#pragma omp simd
          for (int64_t i = 0; i < HW; ++i) {
            dxr[i] = static_cast<T>(ka * static_cast<A>(gr[i]) + k1 * static_cast<A>(xr[i]) + k0);
          }
        }
      }
    });
    if (dw_out || db_out) {
      std::vector<double> dw(C, 0.0), db(C, 0.0);
      for (int64_t n = 0; n < N; ++n) {
        for (int64_t ch = 0; ch < C; ++ch) {
          const int64_t r = n * G + ch / D;
          dw[ch] += static_cast<double>(rstd[r]) * sgc[n * C + ch];
          db[ch] += sg[n * C + ch];
        }
      }
      if (dw_out) StoreVector(dw, dw_out);
      if (db_out) StoreVector(db, db_out);
    }
  });
}
OF_KERNEL("native_group_norm_backward", kCPU, kFloatingDTypes, &NativeGroupNormBackwardKernel);

}  // namespace
}  // namespace cpu
}  // namespace oneflow
