// CPU kernels of batch_norm (ops/defs/norm.cc), forward and backward.
//
// The input is read as [N, C, HxW] (or, channels_last, as [N x HxW, C]) once
// for the per-channel statistics and once to normalize: the statistics come
// from blocks of up to kBlock values, each summed for its mean and then for
// its squared deviations while it is in cache (two-pass, so no cancellation),
// and blocks merge pairwise in double (norm_common.h). Blocks are split over
// threads (ParallelFor); per-chunk channel partials are merged at the end.
// Inner loops are `omp simd` loops. 16-bit floats compute in float.

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
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

// ---- batch_norm ----------------------------------------------------------------------
//
// The input is [N, C, HxW]; channel c owns the N blocks (n, c) of HxW values.
// Channel sums run over the blocks in parallel, each chunk summing into its own
// per-channel partials (double), merged at the end. Channels_last inputs are
// [N x HxW, C] instead (see RowsAffine below).

struct BnShape {
  int64_t N, C, HW;
  int64_t count() const { return N * HW; }
};

BnShape BnShapeOf(const TensorImplPtr& x) {
  BnShape s{x->shape()[0], x->shape()[1], 1};
  for (int64_t d = 2; d < x->ndim(); ++d) s.HW *= x->shape()[d];
  return s;
}

// out1[c] += f1 and out2[c] += f2 for the sums block_fn(block, c, &f1, &f2)
// returns for each block.
template <typename F>
void ChannelSums(const BnShape& s, std::vector<double>& out1, std::vector<double>& out2,
                 F&& block_fn) {
  out1.assign(s.C, 0.0);
  out2.assign(s.C, 0.0);
  std::mutex mu;
  ParallelFor(s.N * s.C, std::max<int64_t>(1, 16384 / std::max<int64_t>(s.HW, 1)),
              [&](int64_t b, int64_t e) {
                std::vector<double> p1(s.C, 0.0), p2(s.C, 0.0);
                for (int64_t blk = b; blk < e; ++blk) {
                  const int64_t ch = blk % s.C;
                  double f1 = 0, f2 = 0;
                  block_fn(blk, ch, &f1, &f2);
                  p1[ch] += f1;
                  p2[ch] += f2;
                }
                Merge(mu, out1, p1);
                Merge(mu, out2, p2);
              });
}

// Per-channel mean and biased variance, reading the input once: the moments of
// each (n, c) block (of a group of rows when HxW == 1) merge into per-chunk
// per-channel moments, and those into the totals.
template <typename T>
void ChannelMoments(const BnShape& s, const T* x, std::vector<double>& mean,
                    std::vector<double>& var) {
  using A = AccT<T>;
  std::vector<Moments> total(s.C);
  std::mutex mu;
  auto merge = [&](const std::vector<Moments>& part) {
    std::lock_guard<std::mutex> lock(mu);
    for (int64_t ch = 0; ch < s.C; ++ch) total[ch].Merge(part[ch]);
  };
  if (s.HW == 1) {
    // [N, C]: groups of rows, summed across channels (vectorized along C).
    const int64_t rows = std::max<int64_t>(1, 4096 / std::max<int64_t>(s.C, 1));
    const int64_t groups = (s.N + rows - 1) / rows;
    ParallelFor(groups, 1, [&](int64_t g0, int64_t g1) {
      std::vector<Moments> part(s.C);
      std::vector<A> sum(s.C), sq(s.C);
      for (int64_t g = g0; g < g1; ++g) {
        const int64_t r0 = g * rows, r1 = std::min(s.N, r0 + rows);
        std::fill(sum.begin(), sum.end(), A(0));
        std::fill(sq.begin(), sq.end(), A(0));
        for (int64_t r = r0; r < r1; ++r) {
          const T* xr = x + r * s.C;
#pragma omp simd
          for (int64_t ch = 0; ch < s.C; ++ch) sum[ch] += static_cast<A>(xr[ch]);
        }
        const A inv = A(1) / static_cast<A>(r1 - r0);
        for (int64_t ch = 0; ch < s.C; ++ch) sum[ch] *= inv;
        for (int64_t r = r0; r < r1; ++r) {
          const T* xr = x + r * s.C;
#pragma omp simd
          for (int64_t ch = 0; ch < s.C; ++ch) {
            const A d = static_cast<A>(xr[ch]) - sum[ch];
            sq[ch] += d * d;
          }
        }
        for (int64_t ch = 0; ch < s.C; ++ch) {
          part[ch].Merge(static_cast<double>(r1 - r0), sum[ch], sq[ch]);
        }
      }
      merge(part);
    });
  } else {
    ParallelFor(s.N * s.C, std::max<int64_t>(1, 16384 / s.HW), [&](int64_t b, int64_t e) {
      std::vector<Moments> part(s.C);
      for (int64_t blk = b; blk < e; ++blk)
        part[blk % s.C].Merge(SpanMoments(x + blk * s.HW, s.HW));
      merge(part);
    });
  }
  mean.resize(s.C);
  var.resize(s.C);
  for (int64_t ch = 0; ch < s.C; ++ch) {
    mean[ch] = total[ch].mean;
    var[ch] =
        total[ch].n > 0 ? total[ch].m2 / total[ch].n : std::numeric_limits<double>::quiet_NaN();
  }
}

// y = (x - mean[c]) * scale[c] + shift[c] over every block (centered first, so
// a constant channel gives exactly shift).
template <typename T>
void ChannelAffine(const BnShape& s, const T* x, T* y, const std::vector<double>& mean,
                   const std::vector<double>& scale, const std::vector<double>& shift) {
  using A = AccT<T>;
  ParallelFor(s.N * s.C, std::max<int64_t>(1, 32768 / std::max<int64_t>(s.HW, 1)),
              [&](int64_t b, int64_t e) {
                for (int64_t blk = b; blk < e; ++blk) {
                  const int64_t ch = blk % s.C;
                  const A m = static_cast<A>(mean[ch]), a = static_cast<A>(scale[ch]),
                          k = static_cast<A>(shift[ch]);
                  const T* xr = x + blk * s.HW;
                  T* yr = y + blk * s.HW;
#pragma omp simd
                  for (int64_t i = 0; i < s.HW; ++i) {
                    yr[i] = static_cast<T>((static_cast<A>(xr[i]) - m) * a + k);
                  }
                }
              });
}

// ---- batch_norm on channels_last inputs ---------------------------------------------
//
// An NHWC (NDHWC) input is a [rows = N x HxW, C] matrix: the per-channel sums
// are column sums, vectorized along C, and the normalization a row-wise map.

// True when batch_norm runs on `x` in its channels_last layout: the output
// (allocated channels_last by the op's Infer) and the input made dense in it.
bool ChannelsLastBn(const TensorImplPtr& x, const TensorImplPtr& out, TensorImplPtr* dense) {
  if (out->is_contiguous()) return false;
  const MemoryFormat f =
      x->ndim() == 4 ? MemoryFormat::kChannelsLast : MemoryFormat::kChannelsLast3d;
  if (!IsContiguousAs(out->shape(), out->stride(), f)) return false;
  *dense = ContiguousAs(x, f);
  return true;
}

// Rows summed in A before the sums move to double.
int64_t RowGroup(int64_t C) { return std::max<int64_t>(1, 4096 / std::max<int64_t>(C, 1)); }

// y[r, c] = (x[r, c] - mean[c]) * scale[c] + shift[c].
template <typename T>
void RowsAffine(int64_t rows, int64_t C, const T* x, T* y, const std::vector<double>& mean,
                const std::vector<double>& scale, const std::vector<double>& shift) {
  using A = AccT<T>;
  std::vector<A> m(mean.begin(), mean.end()), a(scale.begin(), scale.end()),
      k(shift.begin(), shift.end());
  const A* pm = m.data();
  const A* pa = a.data();
  const A* pk = k.data();
  ParallelFor(rows, std::max<int64_t>(1, 32768 / std::max<int64_t>(C, 1)),
              [&](int64_t r0, int64_t r1) {
                for (int64_t r = r0; r < r1; ++r) {
                  const T* xr = x + r * C;
                  T* yr = y + r * C;
#pragma omp simd
                  for (int64_t ch = 0; ch < C; ++ch) {
                    yr[ch] = static_cast<T>((static_cast<A>(xr[ch]) - pm[ch]) * pa[ch] + pk[ch]);
                  }
                }
              });
}

// sg[c] = sum of g[:, c], sgc[c] = sum of g[:, c] * (x[:, c] - mean[c]).
template <typename T>
void RowsGradSums(int64_t rows, int64_t C, const T* g, const T* x, const std::vector<double>& mean,
                  std::vector<double>& sg, std::vector<double>& sgc) {
  using A = AccT<T>;
  sg.assign(C, 0.0);
  sgc.assign(C, 0.0);
  const std::vector<A> m(mean.begin(), mean.end());
  const int64_t group = RowGroup(C);
  const int64_t groups = (rows + group - 1) / group;
  std::mutex mu;
  ParallelFor(groups, 1, [&](int64_t g0, int64_t g1) {
    std::vector<double> p1(C, 0.0), p2(C, 0.0);
    std::vector<A> s1(C), s2(C);
    A* q1 = s1.data();
    A* q2 = s2.data();
    const A* pm = m.data();
    for (int64_t gi = g0; gi < g1; ++gi) {
      std::fill(s1.begin(), s1.end(), A(0));
      std::fill(s2.begin(), s2.end(), A(0));
      const int64_t r1 = std::min(rows, (gi + 1) * group);
      for (int64_t r = gi * group; r < r1; ++r) {
        const T* gr = g + r * C;
        const T* xr = x + r * C;
#pragma omp simd
        for (int64_t ch = 0; ch < C; ++ch) {
          const A gv = static_cast<A>(gr[ch]);
          q1[ch] += gv;
          q2[ch] += gv * (static_cast<A>(xr[ch]) - pm[ch]);
        }
      }
      for (int64_t ch = 0; ch < C; ++ch) {
        p1[ch] += q1[ch];
        p2[ch] += q2[ch];
      }
    }
    Merge(mu, sg, p1);
    Merge(mu, sgc, p2);
  });
}

// dx[r, c] = k2[c] * g[r, c] + k1[c] * x[r, c] + k0[c].
template <typename T>
void RowsGradInput(int64_t rows, int64_t C, const T* g, const T* x, T* dx,
                   const std::vector<double>& k2, const std::vector<double>& k1,
                   const std::vector<double>& k0) {
  using A = AccT<T>;
  std::vector<A> a2(k2.begin(), k2.end()), a1(k1.begin(), k1.end()), a0(k0.begin(), k0.end());
  const A* p2 = a2.data();
  const A* p1 = a1.data();
  const A* p0 = a0.data();
  ParallelFor(rows, std::max<int64_t>(1, 16384 / std::max<int64_t>(C, 1)),
              [&](int64_t r0, int64_t r1) {
                for (int64_t r = r0; r < r1; ++r) {
                  const T* gr = g + r * C;
                  const T* xr = x + r * C;
                  T* dr = dx + r * C;
#pragma omp simd
                  for (int64_t ch = 0; ch < C; ++ch) {
                    dr[ch] = static_cast<T>(p2[ch] * static_cast<A>(gr[ch]) +
                                            p1[ch] * static_cast<A>(xr[ch]) + p0[ch]);
                  }
                }
              });
}

// Writes (1 - momentum) * running + momentum * batch into `running`.
void UpdateRunning(const TensorImplPtr& running, const std::vector<double>& batch,
                   double momentum) {
  std::vector<double> r = ToVector<double>(running);
  for (size_t i = 0; i < r.size(); ++i) r[i] = (1.0 - momentum) * r[i] + momentum * batch[i];
  StoreVector(r, running);
}

void NativeBatchNormKernel(OpCall& c) {
  namespace P = arg::native_batch_norm;
  const TensorImplPtr& input = c.tensor(P::input);
  const TensorImplPtr weight = c.get(P::weight), bias = c.get(P::bias);
  const TensorImplPtr running_mean = c.get(P::running_mean), running_var = c.get(P::running_var);
  TensorImplPtr x;
  const bool nhwc = ChannelsLastBn(input, c.outputs[0], &x);
  if (!nhwc) x = Contiguous(input);
  const BnShape s = BnShapeOf(x);
  // Channels_last: [N x HxW, C] rows, which the statistics read like [N, C] with HxW == 1.
  const BnShape rows{s.N * s.HW, s.C, 1};
  const bool training = c.get(P::training);
  const double momentum = c.get(P::momentum), eps = c.get(P::eps);
  DispatchFloating(x->dtype(), "batch_norm", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* px = reinterpret_cast<const T*>(x->data());
    std::vector<double> mean, var;  // var: biased
    if (training) {
      ChannelMoments(nhwc ? rows : s, px, mean, var);
    } else {
      mean = ToVector<double>(running_mean);
      var = ToVector<double>(running_var);
    }
    std::vector<double> w = ToVector<double>(weight), b = ToVector<double>(bias);
    std::vector<double> invstd(s.C), scale(s.C), shift(s.C);
    for (int64_t ch = 0; ch < s.C; ++ch) {
      invstd[ch] = 1.0 / std::sqrt(var[ch] + eps);
      scale[ch] = (weight ? w[ch] : 1.0) * invstd[ch];
      shift[ch] = bias ? b[ch] : 0.0;
    }
    T* py = reinterpret_cast<T*>(c.outputs[0]->data());
    if (nhwc) {
      RowsAffine(rows.N, s.C, px, py, mean, scale, shift);
    } else if (c.outputs[0]->is_contiguous()) {
      ChannelAffine(s, px, py, mean, scale, shift);
    } else {
      // Another output layout (not produced by the op's Infer): computed aside.
      TensorImplPtr y = TensorImpl::Empty(x->shape(), x->dtype(), x->device());
      ChannelAffine(s, px, reinterpret_cast<T*>(y->data()), mean, scale, shift);
      CopyInto(y, c.outputs[0]);
    }
    if (!training) return;
    StoreVector(mean, c.outputs[1]);
    StoreVector(invstd, c.outputs[2]);
    // The running variance moves towards the unbiased batch variance.
    if (running_mean) UpdateRunning(running_mean, mean, momentum);
    if (running_var) {
      const double n = static_cast<double>(s.count());
      std::vector<double> unbiased(s.C);
      for (int64_t ch = 0; ch < s.C; ++ch) unbiased[ch] = var[ch] * n / (n - 1.0);
      UpdateRunning(running_var, unbiased, momentum);
    }
  });
}
OF_KERNEL("native_batch_norm", kCPU, kFloatingDTypes, &NativeBatchNormKernel);

// Training: dx = w * invstd * (g - mean(g) - xc * invstd^2 * mean(g * xc)),
// evaluation: dx = w * invstd * g (invstd from the running variance);
// dweight = invstd * sum(g * xc), dbias = sum(g) per channel.
void NativeBatchNormBackwardKernel(OpCall& c) {
  namespace P = arg::native_batch_norm_backward;
  const TensorImplPtr &grad_out = c.tensor(P::grad_out), &input = c.tensor(P::input);
  const TensorImplPtr weight = c.get(P::weight);
  const DimVector mask = c.get(P::output_mask);
  TensorImplPtr dx_out = mask[0] ? Wanted(c, 0) : nullptr;
  // Channels_last when the op's Infer gave dx that layout (or, without dx, when
  // both inputs already have it): rows of C values.
  TensorImplPtr x, g;
  bool nhwc = false;
  const MemoryFormat cf =
      input->ndim() == 4 ? MemoryFormat::kChannelsLast : MemoryFormat::kChannelsLast3d;
  if (dx_out) {
    nhwc = ChannelsLastBn(input, dx_out, &x);
  } else if (input->ndim() >= 4 && input->ndim() <= 5) {
    nhwc = !input->is_contiguous() && IsContiguousAs(input->shape(), input->stride(), cf);
    if (nhwc) x = input;
  }
  if (nhwc) {
    g = ContiguousAs(grad_out, cf);
  } else {
    g = Contiguous(grad_out);
    x = Contiguous(input);
  }
  TensorImplPtr dx_dense = dx_out;
  if (dx_out && !nhwc && !dx_out->is_contiguous()) {
    dx_dense = TensorImpl::Empty(dx_out->shape(), dx_out->dtype(), dx_out->device());
  }
  const BnShape s = BnShapeOf(x);
  const bool training = c.get(P::train);
  const double eps = c.get(P::eps);
  TensorImplPtr dw_out = mask[1] ? Wanted(c, 1) : nullptr;
  TensorImplPtr db_out = mask[2] ? Wanted(c, 2) : nullptr;
  DispatchFloating(x->dtype(), "batch_norm_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = AccT<T>;
    std::vector<double> mean, invstd;
    if (training) {
      mean = ToVector<double>(c.tensor(P::save_mean));
      invstd = ToVector<double>(c.tensor(P::save_invstd));
    } else {
      mean = ToVector<double>(c.tensor(P::running_mean));
      invstd = ToVector<double>(c.tensor(P::running_var));
      for (double& v : invstd) v = 1.0 / std::sqrt(v + eps);
    }
    std::vector<double> w = ToVector<double>(weight);
    const T* pg = reinterpret_cast<const T*>(g->data());
    const T* px = reinterpret_cast<const T*>(x->data());
    std::vector<double> sg, sgc;
    if (nhwc && (dw_out || db_out || training)) {
      RowsGradSums(s.N * s.HW, s.C, pg, px, mean, sg, sgc);
    } else if (dw_out || db_out || training) {
      ChannelSums(s, sg, sgc, [&](int64_t blk, int64_t ch, double* f1, double* f2) {
        const T* gr = pg + blk * s.HW;
        const T* xr = px + blk * s.HW;
        const A m = static_cast<A>(mean[ch]);
        for (int64_t b0 = 0; b0 < s.HW; b0 += kBlock) {
          const int64_t e = std::min(s.HW, b0 + kBlock);
          A p1 = 0, p2 = 0;
#pragma omp simd reduction(+ : p1, p2)
          for (int64_t i = b0; i < e; ++i) {
            const A gv = static_cast<A>(gr[i]);
            p1 += gv;
            p2 += gv * (static_cast<A>(xr[i]) - m);
          }
          *f1 += p1;
          *f2 += p2;
        }
      });
    }
    if (dx_out) {
      std::vector<double> k2(s.C), k1(s.C), k0(s.C);
      const double n = static_cast<double>(s.count());
      for (int64_t ch = 0; ch < s.C; ++ch) {
        const double wi = (weight ? w[ch] : 1.0) * invstd[ch];
        k2[ch] = wi;
        if (training) {
          k1[ch] = -wi * invstd[ch] * invstd[ch] * sgc[ch] / n;
          k0[ch] = -k1[ch] * mean[ch] - wi * sg[ch] / n;
        }
      }
      T* pdx = reinterpret_cast<T*>(dx_dense->data());
      if (nhwc) {
        RowsGradInput(s.N * s.HW, s.C, pg, px, pdx, k2, k1, k0);
      } else {
        ParallelFor(s.N * s.C, std::max<int64_t>(1, 16384 / std::max<int64_t>(s.HW, 1)),
                    [&](int64_t b, int64_t e) {
                      for (int64_t blk = b; blk < e; ++blk) {
                        const int64_t ch = blk % s.C;
                        const A a2 = static_cast<A>(k2[ch]), a1 = static_cast<A>(k1[ch]),
                                a0 = static_cast<A>(k0[ch]);
                        const T* gr = pg + blk * s.HW;
                        const T* xr = px + blk * s.HW;
                        T* dxr = pdx + blk * s.HW;
#pragma omp simd
                        for (int64_t i = 0; i < s.HW; ++i) {
                          dxr[i] = static_cast<T>(a2 * static_cast<A>(gr[i]) +
                                                  a1 * static_cast<A>(xr[i]) + a0);
                        }
                      }
                    });
      }
      if (dx_dense != dx_out) CopyInto(dx_dense, dx_out);
    }
    if (dw_out) {
      std::vector<double> dw(s.C);
      for (int64_t ch = 0; ch < s.C; ++ch) dw[ch] = sgc[ch] * invstd[ch];
      StoreVector(dw, dw_out);
    }
    if (db_out) StoreVector(sg, db_out);
  });
}
OF_KERNEL("native_batch_norm_backward", kCPU, kFloatingDTypes, &NativeBatchNormBackwardKernel);

}  // namespace
}  // namespace cpu
}  // namespace oneflow
