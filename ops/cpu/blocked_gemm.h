#ifndef OPS_CPU_BLOCKED_GEMM_H_
#define OPS_CPU_BLOCKED_GEMM_H_

// Our own GEMM, for the types oneDNN has no product for (float64 and the
// integers; see ops/cpu/matmul_kernels.cc): a cache-blocked, register-tiled
// loop over any strides, built for AVX-512, AVX2 and baseline x86-64 and picked
// at run time, and split over threads when the product is large.

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <thread>
#include <type_traits>
#include <vector>

#include "ops/cpu/isa.h"

namespace oneflow {
namespace cpu {

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
// ones use 32-bit lanes and all use unsigned arithmetic (no overflow UB):
// int64 in uint64, the other signed integers and uint8 in uint32.
template <typename T>
using GemmAccT = std::conditional_t<std::is_integral_v<T> && std::is_signed_v<T>,
                                    std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>,
                                    std::conditional_t<std::is_same_v<T, uint8_t>, uint32_t, T>>;

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
OF_INLINE void MicroKernel(int64_t kc, const A* __restrict a, const A* __restrict b,
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
OF_INLINE void SkinnyGemm(const Gemm2D<T>& g, GemmAccT<T> alpha) {
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

// Packs `extent` lines of a kc-long block into panels of R lines, each panel kc
// x R with the line index fastest and the last one padded with zeros: line l,
// position p of the block is src[l * ls + p * ps]. B's column panels are its
// columns as lines, A's row panels its rows.
template <typename T, typename A, int R>
OF_INLINE void PackPanels(const T* src, int64_t extent, int64_t kc, int64_t ls, int64_t ps,
                          A* out) {
  for (int64_t q = 0; q < extent; q += R) {
    A* dst = out + q * kc;
    const int64_t w = std::min<int64_t>(R, extent - q);
    for (int64_t p = 0; p < kc; ++p) {
      const T* line = src + q * ls + p * ps;
      for (int64_t j = 0; j < w; ++j) dst[p * R + j] = static_cast<A>(line[j * ls]);
      for (int64_t j = w; j < R; ++j) dst[p * R + j] = A(0);
    }
  }
}

template <typename T, int MR, int VB>
OF_INLINE void BlockedGemm(const Gemm2D<T>& g, GemmAccT<T> alpha, GemmAccT<T> beta) {
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
      PackPanels<T, A, NR>(g.b + pc * g.brs + jc * g.bcs, nc, kc, g.bcs, g.brs, bpack.get());
      for (int64_t ic = 0; ic < g.n; ic += kMC) {
        const int64_t mc = std::min(kMC, g.n - ic);
        PackPanels<T, A, MR>(g.a + ic * g.ars + pc * g.acs, mc, kc, g.ars, g.acs, apack.get());
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
OF_TARGET_AVX512 void GemmAvx512(const Gemm2D<T>& g, GemmAccT<T> alpha, GemmAccT<T> beta) {
  BlockedGemm<T, 8, 64>(g, alpha, beta);
}
template <typename T>
OF_TARGET_AVX2 void GemmAvx2(const Gemm2D<T>& g, GemmAccT<T> alpha, GemmAccT<T> beta) {
  BlockedGemm<T, 8, 32>(g, alpha, beta);
}
template <typename T>
void GemmBaseline(const Gemm2D<T>& g, GemmAccT<T> alpha, GemmAccT<T> beta) {
  BlockedGemm<T, 6, 16>(g, alpha, beta);
}

// The loop built for the instruction set KernelIsa() picks.
template <typename T>
void BlockedGemmOnIsa(const Gemm2D<T>& g, GemmAccT<T> alpha, GemmAccT<T> beta) {
  switch (KernelIsa()) {
    case Isa::kAvx512:
      return GemmAvx512(g, alpha, beta);
    case Isa::kAvx2:
      return GemmAvx2(g, alpha, beta);
    case Isa::kBaseline:
      return GemmBaseline(g, alpha, beta);
  }
}

// ---- threads -----------------------------------------------------------------

// A large product on several threads (as many as OpenMP would use): each takes
// a slice of C's rows (or columns, when there are more of those) and runs the
// whole blocked loop on it.
constexpr int64_t kParallelWork = int64_t{1} << 22;  // n * m * k

template <typename T>
void ParallelBlockedGemm(const Gemm2D<T>& g, GemmAccT<T> alpha, GemmAccT<T> beta) {
  const int64_t work = g.n * g.m * g.k;
  const int64_t threads = work < kParallelWork ? 1 : std::min(omp_get_max_threads(), 16);
  if (threads <= 1) return BlockedGemmOnIsa(g, alpha, beta);
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
    workers.emplace_back([&parts, i, alpha, beta] { BlockedGemmOnIsa(parts[i], alpha, beta); });
  }
  BlockedGemmOnIsa(parts[0], alpha, beta);
  for (std::thread& w : workers) w.join();
}

}  // namespace cpu
}  // namespace oneflow

#endif  // OPS_CPU_BLOCKED_GEMM_H_
