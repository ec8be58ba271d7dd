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
//                       over threads.
//   float16, bfloat16:  converted to float32, computed there and rounded once.

#include <dnnl.h>
#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "core/runtime/view_ops.h"
#include "ops/cpu/isa.h"
#include "ops/cpu/loops.h"
#include "ops/defs/common.h"

namespace oneflow {
namespace cpu {
namespace {

constexpr DeviceType kCPU = DeviceType::kCPU;

#define OF_ALWAYS_INLINE __attribute__((always_inline)) inline

// One matrix product C = alpha * A @ B + beta * C: A is n x k, B is k x m, C is
// n x m; element (i, j) of X is at X + i * Xrs + j * Xcs (strides in elements).
template <typename T>
struct Gemm2D {
  int64_t n, m, k;
  const T* a;
  int64_t ars, acs;
  const T* b;
  int64_t brs, bcs;
  T* c;
  int64_t crs, ccs;
};

// The type products are accumulated in. Integers wrap like PyTorch's (the low
// bits of a sum do not depend on the width it was computed in), so the narrow
// ones use 32-bit lanes and all use unsigned arithmetic (no overflow UB).
template <typename T>
struct GemmAcc {
  using type = T;
};
template <>
struct GemmAcc<int64_t> {
  using type = uint64_t;
};
template <>
struct GemmAcc<int32_t> {
  using type = uint32_t;
};
template <>
struct GemmAcc<int16_t> {
  using type = uint32_t;
};
template <>
struct GemmAcc<int8_t> {
  using type = uint32_t;
};
template <>
struct GemmAcc<uint8_t> {
  using type = uint32_t;
};
template <typename T>
using GemmAccT = typename GemmAcc<T>::type;

// C = beta * C (beta == 0 writes zeros, so NaN in C does not survive).
template <typename T>
void ScaleC(const Gemm2D<T>& g, GemmAccT<T> beta) {
  using A = GemmAccT<T>;
  if (beta == A(1)) return;
  for (int64_t i = 0; i < g.n; ++i) {
    T* row = g.c + i * g.crs;
    for (int64_t j = 0; j < g.m; ++j) {
      T& v = row[j * g.ccs];
      v = beta == A(0) ? T(0) : static_cast<T>(beta * static_cast<A>(v));
    }
  }
}

// ---- blocked GEMM (float64 and integers) ------------------------------------
//
// B is packed into panels of NR columns (kc x NR, row by row) and A into
// panels of MR rows (kc x MR, column by column); the micro-kernel keeps an
// MR x NR tile of C in MR vector registers of NR lanes. Cache blocks: KC rows
// of B (a panel stays in L1), MC rows of A (the packed block stays in L2), NC
// columns of B.

constexpr int64_t kKC = 256;
constexpr int64_t kMC = 96;
constexpr int64_t kNC = 1024;

template <typename A, int MR, int VB>
OF_ALWAYS_INLINE void MicroKernel(int64_t kc, const A* __restrict a, const A* __restrict b,
                                  A* __restrict tile) {
  constexpr int NR = VB / sizeof(A);
  typedef A V __attribute__((vector_size(VB)));
  V acc[MR];
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i) acc[i] = V{};
  for (int64_t p = 0; p < kc; ++p) {
    V bv;
    std::memcpy(&bv, b + p * NR, sizeof(V));
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i) acc[i] += a[p * MR + i] * bv;
  }
  std::memcpy(tile, acc, sizeof(acc));
}

// Few rows (a vector-matrix product, or a handful of them): no packing; B is
// streamed once per row, along whichever of its dims is contiguous.
template <typename T, int VB>
OF_ALWAYS_INLINE void SkinnyGemm(const Gemm2D<T>& g, GemmAccT<T> alpha) {
  using A = GemmAccT<T>;
  constexpr int NR = VB / sizeof(A);
  typedef A V __attribute__((vector_size(VB)));
  constexpr bool kSameWidth = sizeof(T) == sizeof(A);
  if (g.bcs == 1) {
    // Row i of C accumulates a[i, p] * B[p, :] over p.
    std::unique_ptr<A[]> acc(new A[g.m]);
    for (int64_t i = 0; i < g.n; ++i) {
      std::fill(acc.get(), acc.get() + g.m, A(0));
      for (int64_t p = 0; p < g.k; ++p) {
        const A av = static_cast<A>(g.a[i * g.ars + p * g.acs]);
        const T* brow = g.b + p * g.brs;
        int64_t j = 0;
        if constexpr (kSameWidth) {
          for (; j + NR <= g.m; j += NR) {
            V bv, cv;
            std::memcpy(&bv, brow + j, sizeof(V));
            std::memcpy(&cv, acc.get() + j, sizeof(V));
            cv += av * bv;
            std::memcpy(acc.get() + j, &cv, sizeof(V));
          }
        }
        for (; j < g.m; ++j) acc[j] += av * static_cast<A>(brow[j]);
      }
      T* crow = g.c + i * g.crs;
      for (int64_t j = 0; j < g.m; ++j) {
        T& dst = crow[j * g.ccs];
        dst = static_cast<T>(static_cast<A>(dst) + alpha * acc[j]);
      }
    }
    return;
  }
  // B's columns are contiguous: C[i, j] is a dot product of row i of A (copied
  // to be contiguous) and column j of B.
  std::unique_ptr<A[]> arow(new A[g.k]);
  for (int64_t i = 0; i < g.n; ++i) {
    for (int64_t p = 0; p < g.k; ++p) arow[p] = static_cast<A>(g.a[i * g.ars + p * g.acs]);
    T* crow = g.c + i * g.crs;
    for (int64_t j = 0; j < g.m; ++j) {
      const T* bcol = g.b + j * g.bcs;
      A sum = 0;
      int64_t p = 0;
      if constexpr (kSameWidth) {
        V vs{};
        for (; p + NR <= g.k; p += NR) {
          V av, bv;
          std::memcpy(&av, arow.get() + p, sizeof(V));
          std::memcpy(&bv, bcol + p, sizeof(V));
          vs += av * bv;
        }
        for (int l = 0; l < NR; ++l) sum += vs[l];
      }
      for (; p < g.k; ++p) sum += arow[p] * static_cast<A>(bcol[p]);
      T& dst = crow[j * g.ccs];
      dst = static_cast<T>(static_cast<A>(dst) + alpha * sum);
    }
  }
}

template <typename T, int MR, int VB>
OF_ALWAYS_INLINE void BlockedGemm(const Gemm2D<T>& g, GemmAccT<T> alpha, GemmAccT<T> beta) {
  using A = GemmAccT<T>;
  constexpr int NR = VB / sizeof(A);
  ScaleC(g, beta);
  if (g.n < MR && (g.bcs == 1 || g.brs == 1)) {
    SkinnyGemm<T, VB>(g, alpha);
    return;
  }
  const int64_t kc_max = std::min(kKC, g.k);
  std::unique_ptr<A[]> bpack(new A[(std::min(kNC, g.m) + NR - 1) / NR * NR * kc_max]);
  std::unique_ptr<A[]> apack(new A[(std::min(kMC, g.n) + MR - 1) / MR * MR * kc_max]);
  alignas(64) A tile[MR * NR];
  for (int64_t jc = 0; jc < g.m; jc += kNC) {
    const int64_t nc = std::min(kNC, g.m - jc);
    for (int64_t pc = 0; pc < g.k; pc += kKC) {
      const int64_t kc = std::min(kKC, g.k - pc);
      for (int64_t jr = 0; jr < nc; jr += NR) {
        A* dst = bpack.get() + jr * kc;
        const int64_t w = std::min<int64_t>(NR, nc - jr);
        for (int64_t p = 0; p < kc; ++p) {
          const T* src = g.b + (pc + p) * g.brs + (jc + jr) * g.bcs;
          for (int64_t j = 0; j < w; ++j) dst[p * NR + j] = static_cast<A>(src[j * g.bcs]);
          for (int64_t j = w; j < NR; ++j) dst[p * NR + j] = A(0);
        }
      }
      for (int64_t ic = 0; ic < g.n; ic += kMC) {
        const int64_t mc = std::min(kMC, g.n - ic);
        for (int64_t ir = 0; ir < mc; ir += MR) {
          A* dst = apack.get() + ir * kc;
          const int64_t h = std::min<int64_t>(MR, mc - ir);
          for (int64_t p = 0; p < kc; ++p) {
            const T* src = g.a + (ic + ir) * g.ars + (pc + p) * g.acs;
            for (int64_t i = 0; i < h; ++i) dst[p * MR + i] = static_cast<A>(src[i * g.ars]);
            for (int64_t i = h; i < MR; ++i) dst[p * MR + i] = A(0);
          }
        }
        for (int64_t jr = 0; jr < nc; jr += NR) {
          const int64_t w = std::min<int64_t>(NR, nc - jr);
          for (int64_t ir = 0; ir < mc; ir += MR) {
            const int64_t h = std::min<int64_t>(MR, mc - ir);
            MicroKernel<A, MR, VB>(kc, apack.get() + ir * kc, bpack.get() + jr * kc, tile);
            T* cp = g.c + (ic + ir) * g.crs + (jc + jr) * g.ccs;
            for (int64_t i = 0; i < h; ++i) {
              for (int64_t j = 0; j < w; ++j) {
                T& dst = cp[i * g.crs + j * g.ccs];
                dst = static_cast<T>(static_cast<A>(dst) + alpha * tile[i * NR + j]);
              }
            }
          }
        }
      }
    }
  }
}

// One build of the loop per instruction set; the vector width is the
// register's, and MR registers of C stay live.
template <typename T>
__attribute__((target("avx512f,avx512dq"))) void GemmAvx512(const Gemm2D<T>& g, GemmAccT<T> alpha,
                                                            GemmAccT<T> beta) {
  BlockedGemm<T, 8, 64>(g, alpha, beta);
}
template <typename T>
__attribute__((target("avx2,fma"))) void GemmAvx2(const Gemm2D<T>& g, GemmAccT<T> alpha,
                                                  GemmAccT<T> beta) {
  BlockedGemm<T, 8, 32>(g, alpha, beta);
}
template <typename T>
void GemmBaseline(const Gemm2D<T>& g, GemmAccT<T> alpha, GemmAccT<T> beta) {
  BlockedGemm<T, 6, 16>(g, alpha, beta);
}

Isa CpuIsa() {
  static const Isa isa = DetectIsa("ONEFLOW_GEMM_ISA");
  return isa;
}

template <typename T>
void Gemm(const Gemm2D<T>& g, GemmAccT<T> alpha, GemmAccT<T> beta) {
  switch (CpuIsa()) {
    case Isa::kAvx512:
      return GemmAvx512(g, alpha, beta);
    case Isa::kAvx2:
      return GemmAvx2(g, alpha, beta);
    case Isa::kBaseline:
      return GemmBaseline(g, alpha, beta);
  }
}

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

template <>
void Gemm<float>(const Gemm2D<float>& g, float alpha, float beta) {
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

// ---- threads -----------------------------------------------------------------

// A large product on several threads (as many as OpenMP would use): each takes
// a slice of C's rows (or columns, when there are more of those) and runs the
// whole blocked loop on it. float32 is left to oneDNN's own threading.
constexpr int64_t kParallelWork = int64_t{1} << 22;  // n * m * k

template <typename T>
void ParallelGemm(const Gemm2D<T>& g, GemmAccT<T> alpha, GemmAccT<T> beta) {
  if constexpr (std::is_same_v<T, float>) return Gemm(g, alpha, beta);
  const int64_t work = g.n * g.m * g.k;
  const int64_t threads = work < kParallelWork ? 1 : std::min(omp_get_max_threads(), 16);
  if (threads <= 1) return Gemm(g, alpha, beta);
  const bool by_rows = g.n >= g.m;
  const int64_t extent = by_rows ? g.n : g.m;
  const int64_t chunk = ((extent + threads - 1) / threads + 15) & ~int64_t{15};
  std::vector<Gemm2D<T>> parts;
  for (int64_t start = 0; start < extent; start += chunk) {
    Gemm2D<T> part = g;
    const int64_t size = std::min(chunk, extent - start);
    if (by_rows) {
      part.n = size;
      part.a += start * g.ars;
      part.c += start * g.crs;
    } else {
      part.m = size;
      part.b += start * g.bcs;
      part.c += start * g.ccs;
    }
    parts.push_back(part);
  }
  std::vector<std::thread> workers;
  for (size_t i = 1; i < parts.size(); ++i) {
    workers.emplace_back([&parts, i, alpha, beta] { Gemm(parts[i], alpha, beta); });
  }
  Gemm(parts[0], alpha, beta);
  for (std::thread& w : workers) w.join();
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

template <typename T>
void RunBatchedGemm(const BatchedGemm& p, GemmAccT<T> alpha, GemmAccT<T> beta) {
  const int64_t nb = static_cast<int64_t>(p.batch.size());
  DimVector idx(nb, 0);
  const int64_t count = Numel(p.batch);
  int64_t ao = 0, bo = 0, co = 0;  // element offsets of the current matrices
  for (int64_t e = 0; e < count; ++e) {
    Gemm2D<T> g{p.n,
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
    if (p.k == 0) {
      ScaleC(g, beta);
    } else {
      ParallelGemm(g, alpha, beta);
    }
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

// outputs[0] = beta * bias + alpha * (a @ b); bias (null for none) expands to
// the output's shape.
void RunMatmul(OpCall& c, TensorImplPtr a, TensorImplPtr b, const TensorImplPtr& bias,
               const Scalar& alpha, const Scalar& beta) {
  const TensorImplPtr& out = c.outputs[0];
  if (out->numel() == 0) return;
  DType dtype = c.compute_dtype;
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
  const bool use_bias = bias && !IsZero(beta);
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
      RunBatchedGemm<T>(p, alpha_v, beta_v);
    }
  });
  if (target != out) CopyInto(target, out);
}

const Scalar kOne = Scalar::Int(1);
const Scalar kZero = Scalar::Int(0);

void MatmulKernel(OpCall& c) { RunMatmul(c, c.tensor(0), c.tensor(1), nullptr, kOne, kZero); }
void AddProductKernel(OpCall& c) {
  RunMatmul(c, c.tensor(1), c.tensor(2), c.tensor(0), c.args[4].scalar(), c.args[3].scalar());
}

constexpr DTypeSet kMatmulDTypes = kNumericDTypes;
OF_KERNEL("matmul", kCPU, kMatmulDTypes, &MatmulKernel);
OF_KERNEL("mm", kCPU, kMatmulDTypes, &MatmulKernel);
OF_KERNEL("bmm", kCPU, kMatmulDTypes, &MatmulKernel);
OF_KERNEL("mv", kCPU, kMatmulDTypes, &MatmulKernel);
OF_KERNEL("dot", kCPU, kMatmulDTypes, &MatmulKernel);
OF_KERNEL_WITH_INPLACE("addmm", kCPU, kMatmulDTypes, &AddProductKernel);
OF_KERNEL_WITH_INPLACE("baddbmm", kCPU, kMatmulDTypes, &AddProductKernel);

}  // namespace
}  // namespace cpu
}  // namespace oneflow
