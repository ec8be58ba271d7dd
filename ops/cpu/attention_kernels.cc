// CPU kernels of _scaled_dot_product_flash_attention_for_cpu and its gradient
// (ops/defs/attention.cc).
//
// Forward, per (batch entry, block of kBlockQ query rows), the unit of work
// split over threads: the scores of the block against kBlockK keys at a time
// (one GEMM, oneDNN's sgemm for float), the mask, then an online softmax: each
// row keeps its running max m and sum l, rescales its accumulated output when
// the max grows, and adds P @ V for the block (a second GEMM). The scores
// never exist for more than one block, and with S <= kBlockK the softmax is
// exact in one pass. Causal rows stop at their own index, so key blocks past
// the diagonal are skipped. The log-sum-exp m + log(l) of every row is kept
// for the backward.
//
// Backward, per batch entry (its key/value gradients accumulate over the
// query blocks): P is recomputed from the scores and the log-sum-exp,
// dV += P^T dO, dP = dO V^T, dS = P * (dP - rowsum(dO * O)), dQ += dS K * scale,
// dK += dS^T Q * scale (and a float mask gets dS).
//
// float16/bfloat16 compute in float; float64 uses a plain loop GEMM.

#include <dnnl.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

#include "core/runtime/tensor_ops.h"
#include "core/runtime/view_ops.h"
#include "ops/cpu/isa.h"
#include "ops/cpu/loops.h"
#include "ops/cpu/vec_types.h"
#include "ops/defs/common.h"

namespace oneflow {
namespace cpu {
namespace {

constexpr DeviceType kCPU = DeviceType::kCPU;
constexpr int64_t kBlockQ = 128;
constexpr int64_t kBlockK = 512;

// Exp<C>: VExp for float (vectorized in `omp simd` loops), std::exp for double.
#include "ops/cpu/vec_math.inc"  // NOLINT(build/include)

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

// Row-major C = alpha * op(A) @ op(B) + beta * C; op(A) is M x K, op(B) K x N.
void Gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* a,
          int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  if (M == 0 || N == 0) return;
  if (K == 0) {
    for (int64_t i = 0; i < M; ++i) {
      for (int64_t j = 0; j < N; ++j) c[i * ldc + j] = beta == 0.0f ? 0.0f : beta * c[i * ldc + j];
    }
    return;
  }
  const dnnl_status_t st =
      dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', M, N, K, alpha, a, lda, b, ldb, beta, c, ldc);
  OF_CHECK(st == dnnl_success, RuntimeError,
           "scaled_dot_product_attention: oneDNN sgemm failed (status ", static_cast<int>(st), ")");
}

void Gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, double alpha, const double* a,
          int64_t lda, const double* b, int64_t ldb, double beta, double* c, int64_t ldc) {
  for (int64_t i = 0; i < M; ++i) {
    double* crow = c + i * ldc;
    for (int64_t j = 0; j < N; ++j) crow[j] = beta == 0.0 ? 0.0 : beta * crow[j];
    for (int64_t p = 0; p < K; ++p) {
      const double av = alpha * (ta ? a[p * lda + i] : a[i * lda + p]);
      if (tb) {
        for (int64_t j = 0; j < N; ++j) crow[j] += av * b[j * ldb + p];
      } else {
        const double* brow = b + p * ldb;
        for (int64_t j = 0; j < N; ++j) crow[j] += av * brow[j];
      }
    }
  }
}

// One problem: q [batch, L, E], k [batch, S, E], v [batch, S, Ev] as strided
// views (last dim contiguous, batch entry b at offset *_off[b]), an optional
// mask readable at m_off[b] + i * m_rs + j * m_cs.
template <typename C>
struct Attn {
  const C* q;
  const C* k;
  const C* v;
  const void* mask = nullptr;
  bool mask_bool = false;
  bool causal = false;
  C scale = 1;
  int64_t batch = 0, L = 0, S = 0, E = 0, Ev = 0;
  int64_t q_rs = 0, k_rs = 0, v_rs = 0, m_rs = 0, m_cs = 0;
  std::vector<int64_t> q_off, k_off, v_off, m_off;
};

// Adds the mask (float) or -inf where it is false (bool), and -inf past the
// diagonal when causal, to a rows x bk tile at (i0, j0).
template <typename C>
OF_INLINE void MaskTile(const Attn<C>& a, int64_t b, int64_t i0, int64_t rows, int64_t j0,
                        int64_t bk, C* tile, int64_t ld) {
  const C neg_inf = static_cast<C>(kNegInf);
  if (a.mask) {
    for (int64_t r = 0; r < rows; ++r) {
      C* row = tile + r * ld;
      const int64_t base = a.m_off[b] + (i0 + r) * a.m_rs + j0 * a.m_cs;
      if (a.mask_bool) {
        const bool* m = static_cast<const bool*>(a.mask) + base;
        for (int64_t j = 0; j < bk; ++j) row[j] = m[j * a.m_cs] ? row[j] : neg_inf;
      } else {
        const C* m = static_cast<const C*>(a.mask) + base;
        for (int64_t j = 0; j < bk; ++j) row[j] += m[j * a.m_cs];
      }
    }
  }
  if (a.causal) {
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t first_masked = std::max<int64_t>(0, i0 + r + 1 - j0);
      C* row = tile + r * ld;
      for (int64_t j = first_masked; j < bk; ++j) row[j] = neg_inf;
    }
  }
}

// The keys a block of query rows [i0, i0 + rows) can see.
template <typename C>
int64_t KeyLimit(const Attn<C>& a, int64_t i0, int64_t rows) {
  return a.causal ? std::min(a.S, i0 + rows) : a.S;
}

// Forward of units [u0, u1), unit = (batch entry, query block).
template <typename C>
OF_INLINE void ForwardImpl(const Attn<C>& a, C* out, C* lse, int64_t u0, int64_t u1) {
  const int64_t qblocks = (a.L + kBlockQ - 1) / kBlockQ;
  const int64_t bk_max = std::min(kBlockK, std::max<int64_t>(a.S, 1));
  std::vector<C> tile(kBlockQ * bk_max), acc(kBlockQ * a.Ev), m(kBlockQ), l(kBlockQ);
  const C neg_inf = static_cast<C>(kNegInf);
  for (int64_t u = u0; u < u1; ++u) {
    const int64_t b = u / qblocks, i0 = (u % qblocks) * kBlockQ;
    const int64_t rows = std::min(kBlockQ, a.L - i0);
    const C* q = a.q + a.q_off[b] + i0 * a.q_rs;
    const C* k = a.k + a.k_off[b];
    const C* v = a.v + a.v_off[b];
    std::fill(m.begin(), m.end(), neg_inf);
    std::fill(l.begin(), l.end(), C(0));
    const int64_t kmax = KeyLimit(a, i0, rows);
    bool first = true;
    for (int64_t j0 = 0; j0 < kmax; j0 += bk_max) {
      const int64_t bk = std::min(bk_max, kmax - j0);
      Gemm(false, true, rows, bk, a.E, a.scale, q, a.q_rs, k + j0 * a.k_rs, a.k_rs, C(0),
           tile.data(), bk_max);
      MaskTile(a, b, i0, rows, j0, bk, tile.data(), bk_max);
      for (int64_t r = 0; r < rows; ++r) {
        C* row = tile.data() + r * bk_max;
        C mx = neg_inf;
#pragma omp simd reduction(max : mx)
        for (int64_t j = 0; j < bk; ++j) mx = row[j] > mx ? row[j] : mx;
        const C mnew = std::max(m[r], mx);
        if (mnew == neg_inf) {  // nothing to attend to yet
          std::fill(row, row + bk, C(0));
          continue;
        }
        C sum = 0;
#pragma omp simd reduction(+ : sum)
        for (int64_t j = 0; j < bk; ++j) {
          const C e = Exp<C>(row[j] - mnew);
          row[j] = e;
          sum += e;
        }
        const C corr = Exp<C>(m[r] - mnew);
        if (!first && corr != C(1)) {
          C* arow = acc.data() + r * a.Ev;
#pragma omp simd
          for (int64_t e = 0; e < a.Ev; ++e) arow[e] *= corr;
        }
        l[r] = l[r] * corr + sum;
        m[r] = mnew;
      }
      Gemm(false, false, rows, a.Ev, bk, C(1), tile.data(), bk_max, v + j0 * a.v_rs, a.v_rs,
           first ? C(0) : C(1), acc.data(), a.Ev);
      first = false;
    }
    C* o = out + (b * a.L + i0) * a.Ev;
    for (int64_t r = 0; r < rows; ++r) {
      const bool any = !first && l[r] > C(0);
      const C inv = any ? C(1) / l[r] : C(0);
      const C* arow = acc.data() + r * a.Ev;
      C* orow = o + r * a.Ev;
      if (any) {
#pragma omp simd
        for (int64_t e = 0; e < a.Ev; ++e) orow[e] = arow[e] * inv;
      } else {
        std::fill(orow, orow + a.Ev, C(0));
      }
      lse[b * a.L + i0 + r] = any ? m[r] + std::log(l[r]) : neg_inf;
    }
  }
}

// Gradients of batch entries [b0, b1). g and o are [batch, L, Ev] contiguous,
// lse [batch, L]; dq/dk/dv/dmask are contiguous [batch, ...] or null.
template <typename C>
struct AttnGrad {
  const C* g;
  const C* o;
  const C* lse;
  C* dq;
  C* dk;
  C* dv;
  C* dmask;
};

template <typename C>
OF_INLINE void BackwardImpl(const Attn<C>& a, const AttnGrad<C>& d, int64_t b0, int64_t b1) {
  const int64_t bk_max = std::min(kBlockK, std::max<int64_t>(a.S, 1));
  std::vector<C> p(kBlockQ * bk_max), ds(kBlockQ * bk_max), delta(a.L);
  std::vector<C> dq_scratch, dk_scratch;
  // dQ and dK are both needed to compute either from dS; missing ones go to scratch.
  if (!d.dq) dq_scratch.assign(a.L * a.E, C(0));
  if (!d.dk) dk_scratch.assign(a.S * a.E, C(0));
  for (int64_t b = b0; b < b1; ++b) {
    const C* q = a.q + a.q_off[b];
    const C* k = a.k + a.k_off[b];
    const C* v = a.v + a.v_off[b];
    const C* g = d.g + b * a.L * a.Ev;
    const C* o = d.o + b * a.L * a.Ev;
    const C* lse = d.lse + b * a.L;
    C* dq = d.dq ? d.dq + b * a.L * a.E : dq_scratch.data();
    C* dk = d.dk ? d.dk + b * a.S * a.E : dk_scratch.data();
    C* dv = d.dv ? d.dv + b * a.S * a.Ev : nullptr;
    const bool need_ds = d.dq || d.dk || d.dmask;
    std::fill(dq, dq + a.L * a.E, C(0));
    std::fill(dk, dk + a.S * a.E, C(0));
    if (dv) std::fill(dv, dv + a.S * a.Ev, C(0));
    for (int64_t i = 0; i < a.L; ++i) {
      C s = 0;
#pragma omp simd reduction(+ : s)
      for (int64_t e = 0; e < a.Ev; ++e) s += g[i * a.Ev + e] * o[i * a.Ev + e];
      delta[i] = s;
    }
    for (int64_t i0 = 0; i0 < a.L; i0 += kBlockQ) {
      const int64_t rows = std::min(kBlockQ, a.L - i0);
      const int64_t kmax = KeyLimit(a, i0, rows);
      for (int64_t j0 = 0; j0 < kmax; j0 += bk_max) {
        const int64_t bk = std::min(bk_max, kmax - j0);
        Gemm(false, true, rows, bk, a.E, a.scale, q + i0 * a.q_rs, a.q_rs, k + j0 * a.k_rs, a.k_rs,
             C(0), p.data(), bk_max);
        MaskTile(a, b, i0, rows, j0, bk, p.data(), bk_max);
        for (int64_t r = 0; r < rows; ++r) {
          C* row = p.data() + r * bk_max;
          const C ls = lse[i0 + r];
          if (ls == static_cast<C>(kNegInf)) {
            std::fill(row, row + bk, C(0));
            continue;
          }
#pragma omp simd
          for (int64_t j = 0; j < bk; ++j) row[j] = Exp<C>(row[j] - ls);
        }
        if (dv) {
          Gemm(true, false, bk, a.Ev, rows, C(1), p.data(), bk_max, g + i0 * a.Ev, a.Ev, C(1),
               dv + j0 * a.Ev, a.Ev);
        }
        if (!need_ds) continue;
        Gemm(false, true, rows, bk, a.Ev, C(1), g + i0 * a.Ev, a.Ev, v + j0 * a.v_rs, a.v_rs, C(0),
             ds.data(), bk_max);
        for (int64_t r = 0; r < rows; ++r) {
          C* drow = ds.data() + r * bk_max;
          const C* prow = p.data() + r * bk_max;
          const C dl = delta[i0 + r];
#pragma omp simd
          for (int64_t j = 0; j < bk; ++j) drow[j] = prow[j] * (drow[j] - dl);
          if (d.dmask) {
            C* mrow = d.dmask + (b * a.L + i0 + r) * a.S + j0;
            std::copy(drow, drow + bk, mrow);
          }
        }
        if (d.dq) {
          Gemm(false, false, rows, a.E, bk, a.scale, ds.data(), bk_max, k + j0 * a.k_rs, a.k_rs,
               C(1), dq + i0 * a.E, a.E);
        }
        if (d.dk) {
          Gemm(true, false, bk, a.E, rows, a.scale, ds.data(), bk_max, q + i0 * a.q_rs, a.q_rs,
               C(1), dk + j0 * a.E, a.E);
        }
      }
    }
  }
}

// The forward and backward units, run with the instruction set KernelIsa() picked.
template <typename C>
void Forward(const Attn<C>& a, C* out, C* lse, int64_t u0, int64_t u1) {
  RunForKernelIsa([&]() OF_INLINE_LAMBDA { ForwardImpl(a, out, lse, u0, u1); });
}
template <typename C>
void Backward(const Attn<C>& a, const AttnGrad<C>& d, int64_t b0, int64_t b1) {
  RunForKernelIsa([&]() OF_INLINE_LAMBDA { BackwardImpl(a, d, b0, b1); });
}

// ---- operands --------------------------------------------------------------------

// Element offsets of every entry of `batch` in `t` (whose leading dims
// broadcast to it).
std::vector<int64_t> BatchOffsets(const TensorImplPtr& t, const DimVector& batch) {
  const int64_t nb = static_cast<int64_t>(batch.size());
  const int64_t tb = t->ndim() - 2;
  DimVector stride(nb, 0);
  for (int64_t d = 0; d < tb; ++d) {
    const int64_t bd = nb - tb + d;
    stride[bd] = t->shape()[d] == 1 ? 0 : t->stride()[d];
  }
  std::vector<int64_t> off;
  off.reserve(Numel(batch));
  ForEachIndex<1>(batch, {stride},
                  [&](const DimVector&, const std::array<int64_t, 1>& o) { off.push_back(o[0]); });
  if (nb == 0) off = {0};
  return off;
}

// `t` in compute dtype `cd` with a contiguous last dim and row stride >= its
// length (what GEMM reads), copying only when needed.
TensorImplPtr Operand(const TensorImplPtr& t, DType cd) {
  TensorImplPtr u = ToDType(t, cd, false);
  const int64_t cols = u->shape().back(), rows = u->shape()[u->ndim() - 2];
  const bool last_ok = cols <= 1 || u->stride().back() == 1;
  const bool rows_ok = rows <= 1 || u->stride()[u->ndim() - 2] >= std::max<int64_t>(cols, 1);
  return last_ok && rows_ok ? u : Contiguous(u);
}

int64_t RowStride(const TensorImplPtr& t) {
  return t->shape()[t->ndim() - 2] <= 1 ? std::max<int64_t>(t->shape().back(), 1)
                                        : t->stride()[t->ndim() - 2];
}

DimVector BatchShape(const TensorImplPtr& q, const TensorImplPtr& k, const TensorImplPtr& v) {
  auto batch = [](const TensorImplPtr& t) {
    return DimVector(t->shape().begin(), t->shape().end() - 2);
  };
  return BroadcastShapes(BroadcastShapes(batch(q), batch(k), "attention"), batch(v), "attention");
}

// Holds the operand tensors alive while `a` points into them.
template <typename C>
struct Prepared {
  TensorImplPtr q, k, v, mask;
  Attn<C> a;
  DimVector batch;
};

template <typename C>
Prepared<C> Prepare(const TensorImplPtr& q0, const TensorImplPtr& k0, const TensorImplPtr& v0,
                    const TensorImplPtr& mask0, bool causal, const std::optional<double>& scale) {
  const DType cd = DTypeOf<C>::value;
  Prepared<C> p;
  p.q = Operand(q0, cd);
  p.k = Operand(k0, cd);
  p.v = Operand(v0, cd);
  p.batch = BatchShape(q0, k0, v0);
  Attn<C>& a = p.a;
  a.q = reinterpret_cast<const C*>(p.q->data());
  a.k = reinterpret_cast<const C*>(p.k->data());
  a.v = reinterpret_cast<const C*>(p.v->data());
  a.batch = Numel(p.batch);
  a.L = q0->shape()[q0->ndim() - 2];
  a.S = k0->shape()[k0->ndim() - 2];
  a.E = q0->shape().back();
  a.Ev = v0->shape().back();
  a.scale = static_cast<C>(scale ? *scale : 1.0 / std::sqrt(static_cast<double>(a.E)));
  a.causal = causal;
  a.q_rs = RowStride(p.q);
  a.k_rs = RowStride(p.k);
  a.v_rs = RowStride(p.v);
  a.q_off = BatchOffsets(p.q, p.batch);
  a.k_off = BatchOffsets(p.k, p.batch);
  a.v_off = BatchOffsets(p.v, p.batch);
  if (mask0) {
    a.mask_bool = mask0->dtype() == DType::kBool;
    DimVector full = p.batch;
    full.push_back(a.L);
    full.push_back(a.S);
    // Converted before the expand, so a broadcast mask is never materialized.
    p.mask = Expand(a.mask_bool ? mask0 : ToDType(mask0, cd, false), full);
    a.mask = p.mask->data();
    const int64_t nd = p.mask->ndim();
    a.m_rs = p.mask->stride()[nd - 2];
    a.m_cs = p.mask->stride()[nd - 1];
    a.m_off = BatchOffsets(p.mask, p.batch);
  }
  return p;
}

// 16-bit inputs compute in float.
DType ComputeDType(DType d) { return d == DType::kFloat64 ? DType::kFloat64 : DType::kFloat32; }

template <typename Fn>
void DispatchCompute(DType d, Fn&& fn) {
  if (ComputeDType(d) == DType::kFloat64) {
    fn(TypeTag<double>{});
  } else {
    fn(TypeTag<float>{});
  }
}

// `out` itself when it has dtype `cd` (and is contiguous), else a buffer to copy back from.
TensorImplPtr Buffer(const TensorImplPtr& out, DType cd) {
  if (out->dtype() == cd && out->is_contiguous()) return out;
  return TensorImpl::Empty(out->shape(), cd, out->device());
}

void FlashForwardKernel(OpCall& c) {
  namespace f = arg::_scaled_dot_product_flash_attention_for_cpu;
  const TensorImplPtr& q = c.tensor(f::query);
  const TensorImplPtr mask = c.get(f::attn_mask);
  const DType cd = ComputeDType(q->dtype());
  DispatchCompute(q->dtype(), [&](auto tag) {
    using C = typename decltype(tag)::type;
    Prepared<C> p = Prepare<C>(q, c.tensor(f::key), c.tensor(f::value), mask, c.get(f::is_causal),
                               c.get(f::scale));
    const Attn<C>& a = p.a;
    TensorImplPtr out = Buffer(c.outputs[0], cd), lse = Buffer(c.outputs[1], cd);
    C* po = reinterpret_cast<C*>(out->data());
    C* pl = reinterpret_cast<C*>(lse->data());
    const int64_t qblocks = (a.L + kBlockQ - 1) / kBlockQ;
    if (a.batch * a.L > 0) {
      ParallelFor(a.batch * qblocks, 1,
                  [&](int64_t u0, int64_t u1) { Forward<C>(a, po, pl, u0, u1); });
    }
    if (out != c.outputs[0]) CopyInto(out, c.outputs[0]);
    if (lse != c.outputs[1]) CopyInto(lse, c.outputs[1]);
  });
}
OF_KERNEL("_scaled_dot_product_flash_attention_for_cpu", kCPU, kFloatingDTypes,
          &FlashForwardKernel);

void FlashBackwardKernel(OpCall& c) {
  namespace f = arg::_scaled_dot_product_flash_attention_for_cpu_backward;
  const TensorImplPtr& q = c.tensor(f::query);
  const TensorImplPtr mask = c.get(f::attn_mask);
  const DType cd = ComputeDType(q->dtype());
  DispatchCompute(q->dtype(), [&](auto tag) {
    using C = typename decltype(tag)::type;
    Prepared<C> p = Prepare<C>(q, c.tensor(f::key), c.tensor(f::value), mask, c.get(f::is_causal),
                               c.get(f::scale));
    const Attn<C>& a = p.a;
    TensorImplPtr g =
        Contiguous(ToDType(Expand(c.tensor(f::grad_out), c.tensor(f::out)->shape()), cd, false));
    TensorImplPtr o = Contiguous(ToDType(c.tensor(f::out), cd, false));
    TensorImplPtr lse = Contiguous(ToDType(c.tensor(f::logsumexp), cd, false));
    TensorList bufs(4);
    for (int i = 0; i < 4; ++i) {
      if (c.outputs[i]->numel() > 0) bufs[i] = Buffer(c.outputs[i], cd);
    }
    auto ptr = [&](int i) { return bufs[i] ? reinterpret_cast<C*>(bufs[i]->data()) : nullptr; };
    AttnGrad<C> d{reinterpret_cast<const C*>(g->data()),
                  reinterpret_cast<const C*>(o->data()),
                  reinterpret_cast<const C*>(lse->data()),
                  ptr(0),
                  ptr(1),
                  ptr(2),
                  ptr(3)};
    if (d.dmask) std::fill(d.dmask, d.dmask + bufs[3]->numel(), C(0));
    ParallelFor(a.batch, 1, [&](int64_t b0, int64_t b1) { Backward<C>(a, d, b0, b1); });
    for (int i = 0; i < 4; ++i) {
      if (bufs[i] && bufs[i] != c.outputs[i]) CopyInto(bufs[i], c.outputs[i]);
    }
  });
}
OF_KERNEL("_scaled_dot_product_flash_attention_for_cpu_backward", kCPU, kFloatingDTypes,
          &FlashBackwardKernel);

}  // namespace
}  // namespace cpu
}  // namespace oneflow
