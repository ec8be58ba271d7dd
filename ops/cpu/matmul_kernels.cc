// CPU kernels of the matrix products declared in ops/defs/linalg.cc.
//
// Every op reduces to one strided, batched product
//   C[b] = alpha * A[b] @ B[b] + beta * C[b]        (beta == 0: C is not read)
// over views of the operands (a 1-D operand is a 1 x k or k x 1 matrix, and
// broadcast batch dims have stride 0), so transposed inputs are never copied
// when the backend can read them as they are.
//   float32:            oneDNN's sgemm (either operand may be transposed; other
//                       layouts are packed first).
//   float64, integers:  a cache-blocked, register-tiled loop of our own, built
//                       for AVX-512, AVX2 and baseline x86-64 and picked at run
//                       time; it reads any strides; large products are split
//                       over threads (blocked_gemm.h).
//   bfloat16:           oneDNN's matmul primitive on the bfloat16 operands
//                       (AVX512-BF16 dot products where the CPU has them),
//                       accumulated and written in float32, rounded once.
//   float16:            converted to float32, computed there and rounded once.
//
// Packed weights (float32, see packed_weights.h): a B operand that is a whole
// matrix of a tensor (Linear's weight, say) and is multiplied again with no
// write to its storage in between runs oneDNN's matmul primitive on a copy
// reordered into the layout the primitive prefers: inference with the same
// weights over and over skips sgemm's per-call packing (1.1x on 512-row
// products here, up to 2x on few rows).
//
// Epilogues: a Linear-style addmm (2-D, one bias row, alpha = beta = 1) runs
// oneDNN's matmul primitive, which adds the bias as it writes C, instead of
// sgemm on C holding a copy of the bias (one pass over C fewer, and the
// primitive is as fast as sgemm here); _fused_linear_act also applies an
// activation there (eltwise post-ops).

#include <dnnl.h>
#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "core/framework/grad_mode.h"
#include "core/runtime/view_ops.h"
#include "ops/api/ops.h"
#include "ops/cpu/blocked_gemm.h"
#include "ops/cpu/loops.h"
#include "ops/cpu/onednn_cache.h"
#include "ops/cpu/packed_weights.h"
#include "ops/defs/common.h"

namespace oneflow {
namespace cpu {
namespace {

constexpr DeviceType kCPU = DeviceType::kCPU;

// ---- float32 through oneDNN -------------------------------------------------

// How BLAS can read a rows x cols matrix with these strides: 'N' (row-major,
// leading dimension *ld) or 'T' (column-major); false when neither works.
bool BlasLayout(int64_t rows, int64_t cols, int64_t rs, int64_t cs, char* trans, int64_t* ld) {
  if ((cs == 1 || cols == 1) && (rows == 1 || rs >= std::max<int64_t>(1, cols))) {
    *trans = 'N';
    *ld = rows == 1 ? std::max<int64_t>(1, cols) : rs;
    return true;
  }
  if ((rs == 1 || rows == 1) && (cols == 1 || cs >= std::max<int64_t>(1, rows))) {
    *trans = 'T';
    *ld = cols == 1 ? std::max<int64_t>(1, rows) : cs;
    return true;
  }
  return false;
}

// A strided rows x cols matrix copied to row-major memory.
std::unique_ptr<float[]> PackRowMajor(const float* src, int64_t rows, int64_t cols, int64_t rs,
                                      int64_t cs) {
  std::unique_ptr<float[]> out(new float[rows * cols]);
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) out[i * cols + j] = src[i * rs + j * cs];
  }
  return out;
}

// oneDNN's sgemm runs on OpenMP threads. For small products starting the team
// costs more than it saves (and much more when the cores are busy), so those
// run on the calling thread.
class OmpThreadLimit {
 public:
  explicit OmpThreadLimit(bool single) : saved_(single ? omp_get_max_threads() : 0) {
    if (saved_ > 1) omp_set_num_threads(1);
  }
  ~OmpThreadLimit() {
    if (saved_ > 1) omp_set_num_threads(saved_);
  }
  OmpThreadLimit(const OmpThreadLimit&) = delete;
  OmpThreadLimit& operator=(const OmpThreadLimit&) = delete;

 private:
  int saved_;
};

constexpr int64_t kSingleThreadWork = int64_t{1} << 21;  // n * m * k (about 128^3)

void Sgemm(char ta, char tb, int64_t n, int64_t m, int64_t k, float alpha, const float* a,
           int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  OmpThreadLimit limit(n * m * k < kSingleThreadWork);
  dnnl_status_t st = dnnl_sgemm(ta, tb, n, m, k, alpha, a, lda, b, ldb, beta, c, ldc);
  OF_CHECK(st == dnnl_success, RuntimeError, "matmul: oneDNN sgemm failed (status ",
           static_cast<int>(st), ") for sizes ", n, "x", k, " and ", k, "x", m);
}

char Flip(char t) { return t == 'N' ? 'T' : 'N'; }

// C = alpha A @ B + beta C in float32 through oneDNN's sgemm (threaded there).
void Gemm(const Gemm2D<float>& g, float alpha, float beta) {
  char ta, tb, tc;
  int64_t lda, ldb, ldc;
  std::unique_ptr<float[]> apack, bpack;
  const float* a = g.a;
  const float* b = g.b;
  if (!BlasLayout(g.n, g.k, g.ars, g.acs, &ta, &lda)) {
    apack = PackRowMajor(g.a, g.n, g.k, g.ars, g.acs);
    a = apack.get();
    ta = 'N';
    lda = std::max<int64_t>(1, g.k);
  }
  if (!BlasLayout(g.k, g.m, g.brs, g.bcs, &tb, &ldb)) {
    bpack = PackRowMajor(g.b, g.k, g.m, g.brs, g.bcs);
    b = bpack.get();
    tb = 'N';
    ldb = std::max<int64_t>(1, g.m);
  }
  if (BlasLayout(g.n, g.m, g.crs, g.ccs, &tc, &ldc)) {
    if (tc == 'N') {
      Sgemm(ta, tb, g.n, g.m, g.k, alpha, a, lda, b, ldb, beta, g.c, ldc);
    } else {
      // A column-major C is C^T = B^T @ A^T in row-major terms.
      Sgemm(Flip(tb), Flip(ta), g.m, g.n, g.k, alpha, b, ldb, a, lda, beta, g.c, ldc);
    }
    return;
  }
  std::unique_ptr<float[]> tmp(new float[g.n * g.m]);
  if (beta != 0.0f) {
    for (int64_t i = 0; i < g.n; ++i) {
      for (int64_t j = 0; j < g.m; ++j) tmp[i * g.m + j] = g.c[i * g.crs + j * g.ccs];
    }
  }
  Sgemm(ta, tb, g.n, g.m, g.k, alpha, a, lda, b, ldb, beta, tmp.get(), std::max<int64_t>(1, g.m));
  for (int64_t i = 0; i < g.n; ++i) {
    for (int64_t j = 0; j < g.m; ++j) g.c[i * g.crs + j * g.ccs] = tmp[i * g.m + j];
  }
}

// ---- oneDNN matmul primitives ----------------------------------------------------

// C (n x m, of type `out`) = alpha * A (n x k) @ B (k x m) + beta * C, A and B
// of type `in` in the user's strides; B in the primitive's preferred layout
// when `packed_b`.
struct MatmulPrim {
  dnnl::matmul prim;
  dnnl::memory::desc a, b, c, bias, scratchpad;
};

// What the primitive does to the product before writing C: add a bias row
// (a contiguous [m] vector of type `bias`; undef for none) to every row, then
// apply an activation (`act`, undef for none; `act_alpha` its parameter).
// This is oneDNN's bias argument and eltwise post-op, applied in float32 while
// the tile is still in registers, so C is written once.
struct Epilogue {
  dnnl::memory::data_type bias = dnnl::memory::data_type::undef;
  dnnl::algorithm act = dnnl::algorithm::undef;
  float act_alpha = 0.0f;
};

onednn::PrimitiveCache<MatmulPrim>& MatmulPrims() {
  static onednn::PrimitiveCache<MatmulPrim> cache;
  return cache;
}

dnnl::memory::desc MatrixDesc(int64_t rows, int64_t cols, int64_t rs, int64_t cs,
                              dnnl::memory::data_type dt) {
  return onednn::UserDesc({rows, cols}, {rs, cs}, dt);
}

// The primitive for one problem, or null when oneDNN has no implementation
// for it (unsupported strides, say).
std::shared_ptr<const MatmulPrim> GetMatmulPrim(dnnl::memory::data_type in, int64_t n, int64_t m,
                                                int64_t k, int64_t ars, int64_t acs, int64_t brs,
                                                int64_t bcs, int64_t crs, int64_t ccs,
                                                bool packed_b, float alpha, float beta,
                                                dnnl::memory::data_type out,
                                                const Epilogue& ep = Epilogue{}) {
  onednn::CacheKey key;
  key.Add(static_cast<int64_t>(in))
      .Add(static_cast<int64_t>(out))
      .Add(n)
      .Add(m)
      .Add(k)
      .Add(ars)
      .Add(acs)
      .Add(crs)
      .Add(ccs);
  key.Add(packed_b ? -1 : brs).Add(packed_b ? -1 : bcs);
  int32_t ab, bb;
  std::memcpy(&ab, &alpha, 4);
  std::memcpy(&bb, &beta, 4);
  key.Add(ab).Add(bb);
  int32_t act_alpha;
  std::memcpy(&act_alpha, &ep.act_alpha, 4);
  key.Add(static_cast<int64_t>(ep.bias)).Add(static_cast<int64_t>(ep.act)).Add(act_alpha);
  auto entry = MatmulPrims().GetOrCreate(key, [&]() -> MatmulPrim {
    MatmulPrim e;
    try {
      dnnl::memory::desc a = MatrixDesc(n, k, ars, acs, in);
      dnnl::memory::desc b = packed_b
                                 ? dnnl::memory::desc({k, m}, in, dnnl::memory::format_tag::any)
                                 : MatrixDesc(k, m, brs, bcs, in);
      dnnl::memory::desc c = MatrixDesc(n, m, crs, ccs, out);
      dnnl::primitive_attr attr = onednn::UserScratchpad();
      if (alpha != 1.0f) attr.set_output_scales(0, {alpha});
      dnnl::post_ops ops;
      if (beta != 0.0f) ops.append_sum(beta);
      if (ep.act != dnnl::algorithm::undef) ops.append_eltwise(1.0f, ep.act, ep.act_alpha, 0.0f);
      if (ops.len() > 0) attr.set_post_ops(ops);
      const bool bias = ep.bias != dnnl::memory::data_type::undef;
      const dnnl::memory::desc bias_desc =
          bias ? dnnl::memory::desc({1, m}, ep.bias, dnnl::memory::format_tag::ab)
               : dnnl::memory::desc();
      dnnl::matmul::primitive_desc pd(
          bias ? dnnl::matmul::desc(a, b, bias_desc, c) : dnnl::matmul::desc(a, b, c), attr,
          onednn::Engine());
      e.prim = dnnl::matmul(pd);
      e.a = pd.src_desc();
      e.b = pd.weights_desc();
      e.c = pd.dst_desc();
      e.bias = bias_desc;
      e.scratchpad = pd.scratchpad_desc();
    } catch (const dnnl::error&) {
      e = MatmulPrim{};  // no implementation: the caller falls back
    }
    return e;
  });
  if (!entry->prim) return nullptr;
  return entry;
}

void RunMatmulPrim(const MatmulPrim& p, const void* a, const void* b, void* c,
                   const void* bias = nullptr) {
  const auto& eng = onednn::Engine();
  std::unordered_map<int, dnnl::memory> args{
      {DNNL_ARG_SRC, dnnl::memory(p.a, eng, const_cast<void*>(a))},
      {DNNL_ARG_WEIGHTS, dnnl::memory(p.b, eng, const_cast<void*>(b))},
      {DNNL_ARG_DST, dnnl::memory(p.c, eng, c)}};
  if (bias) args.emplace(DNNL_ARG_BIAS, dnnl::memory(p.bias, eng, const_cast<void*>(bias)));
  onednn::Execute(p.prim, p.scratchpad, std::move(args));
}

// One product with bfloat16 operands into a C of type `out` (float32 or
// bfloat16); false when oneDNN has no implementation for these strides.
bool Bf16Gemm(const Gemm2D<BFloat16>& g, void* c, int64_t crs, int64_t ccs, float alpha, float beta,
              dnnl::memory::data_type out) {
  auto prim = GetMatmulPrim(dnnl::memory::data_type::bf16, g.n, g.m, g.k, g.ars, g.acs, g.brs,
                            g.bcs, crs, ccs, /*packed_b=*/false, alpha, beta, out);
  if (!prim) return false;
  RunMatmulPrim(*prim, g.a, g.b, c);
  return true;
}

// ---- packed weights (float32; see packed_weights.h) -------------------------------

// Packing pays for weights of at least this many elements, in products of at
// least this many multiply-adds (below, running a primitive costs more than
// sgemm's whole call: 3.5 us against 1.8 for 1 x 64 @ 64 x 64).
constexpr int64_t kMinPackedWeight = 64 * 64;
constexpr int64_t kMinPackedWork = int64_t{1} << 18;

// The packed copy of a k x m float32 B with strides (rs, cs) in layout `want`
// (null: use B as it is).
std::shared_ptr<const PackedWeights::Packed> PackedB(const std::shared_ptr<Storage>& storage,
                                                     const float* b, int64_t k, int64_t m,
                                                     int64_t rs, int64_t cs,
                                                     const dnnl::memory::desc& want) {
  onednn::CacheKey layout;
  layout.Add(k).Add(m).Add(rs).Add(cs);
  return PackedWeightCache().Get(storage, b, layout,
                                 MatrixDesc(k, m, rs, cs, dnnl::memory::data_type::f32), want);
}

// C = alpha A @ B + beta C through the packed copy of B when B has one (see
// PackedWeights); false when the caller should run sgemm instead.
bool PackedGemm(const Gemm2D<float>& g, const std::shared_ptr<Storage>& b_storage, float alpha,
                float beta) {
  if (g.k * g.m < kMinPackedWeight || g.n * g.k * g.m < kMinPackedWork) return false;
  auto prim = GetMatmulPrim(dnnl::memory::data_type::f32, g.n, g.m, g.k, g.ars, g.acs, 0, 0, g.crs,
                            g.ccs, /*packed_b=*/true, alpha, beta, dnnl::memory::data_type::f32);
  if (!prim) return false;
  auto packed = PackedB(b_storage, g.b, g.k, g.m, g.brs, g.bcs, prim->b);
  if (!packed) return false;
  RunMatmulPrim(*prim, g.a, packed->buffer->data(), g.c);
  return true;
}

// ---- products with an epilogue (bias row, activation) -----------------------------

// out = act(a @ b + bias) in one matmul primitive: a (n x k) and b (k x m) are
// 2-D of one type, float32 or bfloat16; bias (or null) a contiguous [m] vector
// and out an n x m matrix of the same type; n, m, k > 0. A float32 B that is
// a reused weight runs packed when `pack` (see PackedWeights); when it has no
// packed copy (yet) the primitive reads B as it is if `unpacked`, else false
// is returned and the caller runs sgemm. False too when oneDNN has no
// implementation for these strides.
bool EpilogueGemm(const TensorImpl& a, const TensorImpl& b, const TensorImpl* bias, Epilogue ep,
                  const TensorImpl& out, bool pack, bool unpacked) {
  const dnnl::memory::data_type dt = onednn::ToDnnl(a.dtype());
  const int64_t n = a.shape()[0], k = a.shape()[1], m = b.shape()[1];
  const int64_t ars = a.stride()[0], acs = a.stride()[1], crs = out.stride()[0],
                ccs = out.stride()[1];
  ep.bias = bias ? dt : dnnl::memory::data_type::undef;
  const void* bias_data = bias ? bias->data() : nullptr;
  if (pack && a.dtype() == DType::kFloat32 && k * m >= kMinPackedWeight &&
      n * k * m >= kMinPackedWork) {
    auto prim =
        GetMatmulPrim(dt, n, m, k, ars, acs, 0, 0, crs, ccs, /*packed_b=*/true, 1.0f, 0.0f, dt, ep);
    if (prim) {
      auto packed = PackedB(b.storage(), reinterpret_cast<const float*>(b.data()), k, m,
                            b.stride()[0], b.stride()[1], prim->b);
      if (packed) {
        RunMatmulPrim(*prim, a.data(), packed->buffer->data(), out.data(), bias_data);
        return true;
      }
    }
  }
  if (!unpacked) return false;
  auto prim = GetMatmulPrim(dt, n, m, k, ars, acs, b.stride()[0], b.stride()[1], crs, ccs,
                            /*packed_b=*/false, 1.0f, 0.0f, dt, ep);
  if (!prim) return false;
  RunMatmulPrim(*prim, a.data(), b.data(), out.data(), bias_data);
  return true;
}

// ---- batched products over tensors ------------------------------------------

// A batch of matrices inside a tensor: matrix b starts at data + sum(b_d *
// batch_stride_d) (elements), its element (i, j) i * rs + j * cs further.
struct MatrixBatch {
  char* data = nullptr;
  DimVector batch_stride;
  int64_t rs = 0, cs = 0;
};

struct BatchedGemm {
  DimVector batch;
  int64_t n = 1, m = 1, k = 1;
  MatrixBatch a, b, c;
};

// Batch strides of `t`'s leading dims (all but its last `matrix_dims`) broadcast
// to `batch`.
DimVector BatchStrides(const TensorImpl& t, int64_t matrix_dims, const DimVector& batch) {
  const int64_t tb = t.ndim() - matrix_dims;
  const int64_t off = static_cast<int64_t>(batch.size()) - tb;
  DimVector s(batch.size(), 0);
  for (int64_t d = 0; d < tb; ++d) {
    if (t.shape()[d] != 1) s[off + d] = t.stride()[d];
  }
  return s;
}

// out = a @ b with torch.matmul's rules: a 1-D a is a 1 x k row, a 1-D b a
// k x 1 column (the result has no such dim), other leading dims broadcast.
BatchedGemm MakeBatchedGemm(const TensorImpl& a, const TensorImpl& b, const TensorImpl& out) {
  BatchedGemm p;
  const int64_t an = a.ndim(), bn = b.ndim();
  const int64_t matrix_dims = (an >= 2) + (bn >= 2);
  p.batch.assign(out.shape().begin(), out.shape().end() - matrix_dims);
  p.k = a.shape()[an - 1];
  p.a.data = a.data();
  p.a.cs = a.stride()[an - 1];
  if (an >= 2) {
    p.n = a.shape()[an - 2];
    p.a.rs = a.stride()[an - 2];
  }
  p.a.batch_stride = BatchStrides(a, std::min<int64_t>(an, 2), p.batch);
  p.b.data = b.data();
  if (bn >= 2) {
    p.m = b.shape()[bn - 1];
    p.b.rs = b.stride()[bn - 2];
    p.b.cs = b.stride()[bn - 1];
  } else {
    p.b.rs = b.stride()[0];
  }
  p.b.batch_stride = BatchStrides(b, std::min<int64_t>(bn, 2), p.batch);
  p.c.data = out.data();
  const int64_t nb = static_cast<int64_t>(p.batch.size());
  if (an >= 2) p.c.rs = out.stride()[nb];
  if (bn >= 2) p.c.cs = out.stride()[out.ndim() - 1];
  p.c.batch_stride.assign(out.stride().begin(), out.stride().begin() + nb);
  return p;
}

// When B is the same matrix for every batch entry and A's and C's batch dims
// continue their rows, the batch is one product with more rows: (b, n, k) @
// (k, m) becomes (b * n, k) @ (k, m).
void FoldBatchIntoRows(BatchedGemm& p) {
  for (int64_t s : p.b.batch_stride) {
    if (s != 0) return;
  }
  while (!p.batch.empty()) {
    const int64_t size = p.batch.back();
    const int64_t as = p.a.batch_stride.back(), cs = p.c.batch_stride.back();
    if (size != 1) {
      if (p.n == 1) {
        p.a.rs = as;
        p.c.rs = cs;
      } else if (as != p.n * p.a.rs || cs != p.n * p.c.rs) {
        return;
      }
      p.n *= size;
    }
    p.batch.pop_back();
    p.a.batch_stride.pop_back();
    p.b.batch_stride.pop_back();
    p.c.batch_stride.pop_back();
  }
}

// Calls fn(a_offset, b_offset, c_offset) (in elements) for each matrix of the
// batch, in order.
template <typename Fn>
void ForEachMatrix(const BatchedGemm& p, Fn&& fn) {
  const int64_t nb = static_cast<int64_t>(p.batch.size());
  DimVector idx(nb, 0);
  const int64_t count = Numel(p.batch);
  int64_t ao = 0, bo = 0, co = 0;  // element offsets of the current matrices
  for (int64_t e = 0; e < count; ++e) {
    fn(ao, bo, co);
    for (int64_t d = nb - 1; d >= 0; --d) {
      ao += p.a.batch_stride[d];
      bo += p.b.batch_stride[d];
      co += p.c.batch_stride[d];
      if (++idx[d] < p.batch[d]) break;
      ao -= p.a.batch_stride[d] * p.batch[d];
      bo -= p.b.batch_stride[d] * p.batch[d];
      co -= p.c.batch_stride[d] * p.batch[d];
      idx[d] = 0;
    }
  }
}

// The product of the matrices at these offsets (in elements of T).
template <typename T>
Gemm2D<T> MatrixAt(const BatchedGemm& p, int64_t ao, int64_t bo, int64_t co) {
  return Gemm2D<T>{p.n,
                   p.m,
                   p.k,
                   reinterpret_cast<const T*>(p.a.data) + ao,
                   p.a.rs,
                   p.a.cs,
                   reinterpret_cast<const T*>(p.b.data) + bo,
                   p.b.rs,
                   p.b.cs,
                   reinterpret_cast<T*>(p.c.data) + co,
                   p.c.rs,
                   p.c.cs};
}

// `b_storage`: B's storage when B is one matrix that may have a packed copy
// (float32 only), else null.
template <typename T>
void RunBatchedGemm(const BatchedGemm& p, GemmAccT<T> alpha, GemmAccT<T> beta,
                    const std::shared_ptr<Storage>* b_storage = nullptr) {
  ForEachMatrix(p, [&](int64_t ao, int64_t bo, int64_t co) {
    Gemm2D<T> g = MatrixAt<T>(p, ao, bo, co);
    if (p.k == 0) return ScaleC(g, beta);
    if constexpr (std::is_same_v<T, float>) {
      if (b_storage && PackedGemm(g, *b_storage, alpha, beta)) return;
      Gemm(g, alpha, beta);
    } else {
      ParallelBlockedGemm(g, alpha, beta);
    }
  });
}

// bfloat16 operands into C (float32 or bfloat16) through oneDNN; false
// (nothing written) when oneDNN cannot run these strides.
bool RunBf16BatchedGemm(const BatchedGemm& p, float alpha, float beta, DType c_dtype) {
  if (p.k == 0) return false;
  const int64_t c_item = ItemSize(c_dtype);
  bool ok = true;
  ForEachMatrix(p, [&](int64_t ao, int64_t bo, int64_t co) {
    if (!ok) return;
    Gemm2D<BFloat16> g = MatrixAt<BFloat16>(p, ao, bo, 0);  // g.c unused: C may be float32
    ok = Bf16Gemm(g, static_cast<char*>(p.c.data) + co * c_item, p.c.rs, p.c.cs, alpha, beta,
                  onednn::ToDnnl(c_dtype));
  });
  return ok;  // every matrix has the same strides: the first fails or none does
}

bool IsZero(const Scalar& s) {
  switch (s.kind) {
    case Scalar::Kind::kBool:
      return !s.b;
    case Scalar::Kind::kInt:
      return s.i == 0;
    case Scalar::Kind::kFloat:
      return s.d == 0.0;
  }
  return false;
}

bool SameView(const TensorImpl& x, const TensorImpl& y) {
  return x.storage() == y.storage() && x.data() == y.data() && x.shape() == y.shape() &&
         x.stride() == y.stride() && x.dtype() == y.dtype();
}

// B's storage when B may have a packed copy: one float32 matrix of a storage
// that oneflow alone writes.
const std::shared_ptr<Storage>* PackableB(const BatchedGemm& p, const TensorImpl& b, DType dtype) {
  if (dtype != DType::kFloat32 || !p.batch.empty() || b.ndim() != 2) return nullptr;
  return &b.storage();
}

bool IsOne(const Scalar& s) {
  switch (s.kind) {
    case Scalar::Kind::kBool:
      return s.b;
    case Scalar::Kind::kInt:
      return s.i == 1;
    case Scalar::Kind::kFloat:
      return s.d == 1.0;
  }
  return false;
}

// The bias as one contiguous [m] row when out = bias + a @ b is a Linear-style
// product oneDNN can add it in (2-D operands of `dtype`, alpha = beta = 1, a
// bias of m elements broadcast over the rows, no operand sharing out's
// memory); else null.
TensorImplPtr RowBias(const TensorImplPtr& bias, const TensorImpl& a, const TensorImpl& b,
                      const TensorImpl& out, DType dtype, const Scalar& alpha, const Scalar& beta) {
  if (!IsOne(alpha) || !IsOne(beta) || a.ndim() != 2 || b.ndim() != 2 || out.ndim() != 2) {
    return nullptr;
  }
  const int64_t m = out.shape()[1];
  const bool row = bias->ndim() == 1 || (bias->ndim() == 2 && bias->shape()[0] == 1);
  if (!row || bias->numel() != m || a.shape()[1] == 0 || bias->dtype() != dtype ||
      out.dtype() != dtype || a.dtype() != dtype || b.dtype() != dtype) {
    return nullptr;
  }
  const auto& s = out.storage();
  if (bias->storage() == s || a.storage() == s || b.storage() == s) return nullptr;
  return Contiguous(Reshape(bias, {m}));
}

// outputs[0] = beta * bias + alpha * (a @ b); bias (null for none) expands to
// the output's shape.
void RunMatmul(OpCall& c, TensorImplPtr a, TensorImplPtr b, const TensorImplPtr& bias,
               const Scalar& alpha, const Scalar& beta) {
  const TensorImplPtr& out = c.outputs[0];
  if (out->numel() == 0) return;
  DType dtype = c.compute_dtype;
  const bool use_bias = bias && !IsZero(beta);
  if (dtype == DType::kBFloat16) {
    // oneDNN on the bfloat16 operands, accumulated in float32 and rounded once:
    // straight into a bfloat16 output when there is no bias or a row bias that
    // the primitive adds, else through a float32 scratch holding the bias.
    a = ToDType(a, dtype, false);
    b = ToDType(b, dtype, false);
    if (TensorImplPtr row = use_bias ? RowBias(bias, *a, *b, *out, dtype, alpha, beta) : nullptr) {
      if (EpilogueGemm(*a, *b, row.get(), Epilogue{}, *out, /*pack=*/false, /*unpacked=*/true)) {
        return;
      }
    }
    const bool direct = !use_bias && out->dtype() == DType::kBFloat16 &&
                        out->storage() != a->storage() && out->storage() != b->storage();
    TensorImplPtr acc =
        direct ? out : TensorImpl::Empty(out->shape(), DType::kFloat32, out->device());
    if (use_bias) CopyInto(Expand(bias, acc->shape()), acc);
    BatchedGemm p = MakeBatchedGemm(*a, *b, *acc);
    FoldBatchIntoRows(p);
    const float alpha_v = static_cast<float>(alpha.To<double>());
    const float beta_v = use_bias ? static_cast<float>(beta.To<double>()) : 0.0f;
    if (RunBf16BatchedGemm(p, alpha_v, beta_v, acc->dtype())) {
      if (acc != out) CopyInto(acc, out);
      return;
    }
  }
  if (dtype == DType::kFloat16 || dtype == DType::kBFloat16) {
    dtype = DType::kFloat32;
    a = ToDType(a, dtype, false);
    b = ToDType(b, dtype, false);
  }
  // Compute into a scratch tensor when the output has another dtype (16-bit
  // floats) or shares memory with an operand (x.addmm_(x, y)).
  TensorImplPtr target = out;
  if (out->dtype() != dtype || out->storage() == a->storage() || out->storage() == b->storage()) {
    target = TensorImpl::Empty(out->shape(), dtype, out->device());
  }
  bool pack = true;
  if (dtype == DType::kFloat32 && use_bias && target == out) {
    // A row bias is added by the primitive as it writes C (the weight packed
    // when reused), which also beats sgemm on C holding a copy of the bias
    // except on small products, where a primitive call costs more.
    const bool large = out->ndim() == 2 && out->numel() * a->shape().back() >= kMinPackedWork;
    if (TensorImplPtr row = large ? RowBias(bias, *a, *b, *out, dtype, alpha, beta) : nullptr) {
      if (EpilogueGemm(*a, *b, row.get(), Epilogue{}, *out, /*pack=*/true, /*unpacked=*/true)) {
        return;
      }
      pack = false;  // Get() may have seen B already
    }
  }
  if (use_bias && !SameView(*bias, *target)) CopyInto(Expand(bias, target->shape()), target);
  BatchedGemm p = MakeBatchedGemm(*a, *b, *target);
  FoldBatchIntoRows(p);
  DispatchNumeric(dtype, c.name().c_str(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16> ||
                  std::is_same_v<T, bool>) {
      OF_THROW(RuntimeError, c.name(), "(): no product kernel for ", DTypeName(dtype));
    } else {
      using A = GemmAccT<T>;
      const A alpha_v = static_cast<A>(alpha.To<T>());
      const A beta_v = use_bias ? static_cast<A>(beta.To<T>()) : A(0);
      RunBatchedGemm<T>(p, alpha_v, beta_v, pack ? PackableB(p, *b, dtype) : nullptr);
    }
  });
  if (target != out) CopyInto(target, out);
}

const Scalar kOne = Scalar::Int(1);
const Scalar kZero = Scalar::Int(0);

// matmul, mm, bmm, mv and dot: the two factors come first in each (mm's names).
void MatmulKernel(OpCall& c) {
  RunMatmul(c, c.tensor(arg::mm::self), c.tensor(arg::mm::mat2), nullptr, kOne, kZero);
}
// addmm and baddbmm (the same indices; addmm's names).
void AddProductKernel(OpCall& c) {
  namespace a = arg::addmm;
  RunMatmul(c, c.tensor(a::mat1), c.tensor(a::mat2), c.tensor(a::self), c.get(a::alpha),
            c.get(a::beta));
}

// The oneDNN post-op of each activation a fused linear may end in (the names
// of ops/defs/linear_nn.cc's fused_linear).
Epilogue ActivationEpilogue(const std::string& act) {
  Epilogue ep;
  if (act == "relu") {
    ep.act = dnnl::algorithm::eltwise_relu;
  } else if (act == "gelu") {
    ep.act = dnnl::algorithm::eltwise_gelu_erf;
  } else if (act == "gelu_tanh") {
    ep.act = dnnl::algorithm::eltwise_gelu_tanh;
  } else if (act == "silu") {
    ep.act = dnnl::algorithm::eltwise_swish;
    ep.act_alpha = 1.0f;
  } else if (act == "sigmoid") {
    ep.act = dnnl::algorithm::eltwise_logistic;
  } else if (act == "tanh") {
    ep.act = dnnl::algorithm::eltwise_tanh;
  }
  return ep;
}

// The activation as an op on its own, for products oneDNN cannot run.
TensorImplPtr Activate(const TensorImplPtr& h, const std::string& act) {
  if (act == "none") return h;
  if (act == "gelu") return ops::gelu(h, "none");
  if (act == "gelu_tanh") return ops::gelu(h, "tanh");
  if (act == "relu") return ops::relu(h);
  if (act == "silu") return ops::silu(h);
  if (act == "sigmoid") return ops::sigmoid(h);
  if (act == "tanh") return ops::tanh(h);
  OF_THROW(ValueError, "_fused_linear_act(): unknown activation '", act, "'");
}

// _fused_linear_act(input [n, k], weight [m, k], bias [m]?, activation) =
// act(input @ weight^T + bias): float32 and bfloat16 in one primitive whose
// epilogue adds the bias and applies the activation as it writes C (the
// weight packed when reused, as for mm), other types composed.
void FusedLinearActKernel(OpCall& c) {
  const TensorImplPtr& out = c.outputs[0];
  if (out->numel() == 0) return;
  const DType dtype = c.compute_dtype;
  namespace a = arg::_fused_linear_act;
  TensorImplPtr x = ToDType(c.tensor(a::input), dtype, false);
  TensorImplPtr wt = Transpose(ToDType(c.tensor(a::weight), dtype, false), 0, 1);
  TensorImplPtr bias =
      c.has(a::bias) ? Contiguous(ToDType(c.tensor(a::bias), dtype, false)) : nullptr;
  const std::string act = c.get(a::activation);
  const auto& s = out->storage();
  const bool fusable = (dtype == DType::kFloat32 || dtype == DType::kBFloat16) &&
                       out->dtype() == dtype && x->shape()[1] > 0 && x->storage() != s &&
                       wt->storage() != s && (!bias || bias->storage() != s);
  if (fusable && EpilogueGemm(*x, *wt, bias.get(), ActivationEpilogue(act), *out,
                              /*pack=*/dtype == DType::kFloat32, /*unpacked=*/true)) {
    return;
  }
  GradModeGuard no_grad(false);
  TensorImplPtr h = bias ? ops::addmm(bias, x, wt) : ops::mm(x, wt);
  CopyInto(Activate(h, act), out);
}

constexpr DTypeSet kMatmulDTypes = kNumericDTypes;
OF_KERNEL("matmul", kCPU, kMatmulDTypes, &MatmulKernel);
OF_KERNEL("mm", kCPU, kMatmulDTypes, &MatmulKernel);
OF_KERNEL("bmm", kCPU, kMatmulDTypes, &MatmulKernel);
OF_KERNEL("mv", kCPU, kMatmulDTypes, &MatmulKernel);
OF_KERNEL("dot", kCPU, kMatmulDTypes, &MatmulKernel);
OF_KERNEL_WITH_INPLACE("addmm", kCPU, kMatmulDTypes, &AddProductKernel);
OF_KERNEL_WITH_INPLACE("baddbmm", kCPU, kMatmulDTypes, &AddProductKernel);
OF_KERNEL("_fused_linear_act", kCPU, kFloatingDTypes, &FusedLinearActKernel);

}  // namespace
}  // namespace cpu
}  // namespace oneflow
