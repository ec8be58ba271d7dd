// Row-wise CUDA kernels: reductions, softmax, layer norm, embedding, cross
// entropy, random numbers (Philox4x32-10) and the Adam step.

#include <cmath>
#include <limits>

#include "ops/cuda/device_common.cuh"

namespace oneflow {
namespace cuda {
namespace {

// ---- reductions --------------------------------------------------------------

enum class Red { kSum, kMean, kMax, kMin, kProd, kNorm, kAny, kAll };

// The type a reduction accumulates in.
template <typename T>
using RedAcc = std::conditional_t<std::is_floating_point_v<Acc<T>>, Acc<T>, int64_t>;

template <typename R>
__device__ __forceinline__ R Identity(Red op) {
  switch (op) {
    case Red::kMax:
      return std::numeric_limits<R>::lowest();
    case Red::kMin:
      return std::numeric_limits<R>::max();
    case Red::kProd:
    case Red::kAll:
      return R(1);
    default:
      return R(0);
  }
}

template <typename R>
__device__ __forceinline__ R Combine(Red op, R a, R b) {
  switch (op) {
    case Red::kMax:
      if constexpr (std::is_floating_point_v<R>) {
        if (a != a || b != b) return a != a ? a : b;
      }
      return a > b ? a : b;
    case Red::kMin:
      if constexpr (std::is_floating_point_v<R>) {
        if (a != a || b != b) return a != a ? a : b;
      }
      return a < b ? a : b;
    case Red::kProd:
      return a * b;
    case Red::kAny:
      return (a != R(0) || b != R(0)) ? R(1) : R(0);
    case Red::kAll:
      return (a != R(0) && b != R(0)) ? R(1) : R(0);
    default:
      return a + b;
  }
}

// The per-element term: |x|^p for norms (p = inf: |x| with max), x otherwise.
template <typename R>
__device__ __forceinline__ R Term(Red op, R x, double p) {
  if (op != Red::kNorm) return x;
  if constexpr (std::is_floating_point_v<R>) {
    const R a = x < R(0) ? -x : x;
    if (p == 2) return a * a;
    if (p == 1 || isinf(p)) return a;
    if (p == 0) return a != R(0) ? R(1) : R(0);
    return pow(a, R(p));
  } else {
    return x;
  }
}

template <typename R>
__device__ __forceinline__ R Finish(Red op, R v, int64_t n, double p) {
  if constexpr (std::is_floating_point_v<R>) {
    if (op == Red::kMean) return v / R(n);
    if (op == Red::kNorm) {
      if (p == 2) return sqrt(v);
      if (p == 1 || p == 0 || isinf(p)) return v;
      return pow(v, R(1.0 / p));
    }
  }
  return v;
}

template <typename R>
__device__ __forceinline__ R WarpCombine(Red op, R v) {
  for (int off = 16; off > 0; off >>= 1) v = Combine(op, v, __shfl_down_sync(0xffffffffu, v, off));
  return v;
}

// One block per row (strided over rows).
template <typename T, typename Out>
__global__ void ReduceRowsBlock(const T* in, Out* out, int64_t outer, int64_t inner, Red op,
                                double p) {
  using R = RedAcc<T>;
  __shared__ R shared[32];
  const bool norm_inf = op == Red::kNorm && isinf(p);
  const Red comb = norm_inf ? (p > 0 ? Red::kMax : Red::kMin)
                            : (op == Red::kNorm || op == Red::kMean ? Red::kSum : op);
  for (int64_t row = blockIdx.x; row < outer; row += gridDim.x) {
    R acc = Identity<R>(comb);
    for (int64_t j = threadIdx.x; j < inner; j += blockDim.x) {
      acc = Combine(comb, acc, Term(op, Convert<R>(in[row * inner + j]), p));
    }
    acc = WarpCombine(comb, acc);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) shared[warp] = acc;
    __syncthreads();
    if (warp == 0) {
      const int warps = (blockDim.x + 31) >> 5;
      acc = lane < warps ? shared[lane] : Identity<R>(comb);
      acc = WarpCombine(comb, acc);
      if (lane == 0) out[row] = Convert<Out>(Finish(op, acc, inner, p));
    }
    __syncthreads();
  }
}

// One thread per row, for short rows.
template <typename T, typename Out>
__global__ void ReduceRowsThread(const T* in, Out* out, int64_t outer, int64_t inner, Red op,
                                 double p) {
  using R = RedAcc<T>;
  const bool norm_inf = op == Red::kNorm && isinf(p);
  const Red comb = norm_inf ? (p > 0 ? Red::kMax : Red::kMin)
                            : (op == Red::kNorm || op == Red::kMean ? Red::kSum : op);
  OF_GRID_STRIDE(row, outer) {
    R acc = Identity<R>(comb);
    for (int64_t j = 0; j < inner; ++j) {
      acc = Combine(comb, acc, Term(op, Convert<R>(in[row * inner + j]), p));
    }
    out[row] = Convert<Out>(Finish(op, acc, inner, p));
  }
}

bool ParseRed(const char* name, Red* op) {
  static const struct {
    const char* name;
    Red op;
  } kOps[] = {{"sum", Red::kSum},   {"mean", Red::kMean}, {"amax", Red::kMax}, {"amin", Red::kMin},
              {"prod", Red::kProd}, {"norm", Red::kNorm}, {"any", Red::kAny},  {"all", Red::kAll}};
  for (const auto& k : kOps) {
    const char* a = k.name;
    const char* b = name;
    while (*a && *a == *b) ++a, ++b;
    if (*a == 0 && *b == 0) {
      *op = k.op;
      return true;
    }
  }
  return false;
}

// ---- softmax -----------------------------------------------------------------

template <typename T>
__global__ void SoftmaxRows(const T* x, T* y, int64_t rows, int64_t n, bool is_log) {
  using A = Acc<T>;
  __shared__ A shared[32];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* xr = x + r * n;
    T* yr = y + r * n;
    A m = -INFINITY;
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
      const A v = Convert<A>(xr[j]);
      m = (v > m || v != v) ? v : m;
    }
    m = BlockMax(m, shared);
    A s = 0;
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) s += exp(Convert<A>(xr[j]) - m);
    s = BlockSum(s, shared);
    const A lse = m + log(s);
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
      const A v = Convert<A>(xr[j]);
      yr[j] = Convert<T>(is_log ? v - lse : exp(v - m) / s);
    }
  }
}

template <typename T>
__global__ void SoftmaxColumns(const T* x, T* y, int64_t outer, int64_t n, int64_t inner,
                               bool is_log) {
  using A = Acc<T>;
  OF_GRID_STRIDE(k, outer * inner) {
    const int64_t o = k / inner, i = k % inner;
    const T* xr = x + o * n * inner + i;
    T* yr = y + o * n * inner + i;
    A m = -INFINITY;
    for (int64_t j = 0; j < n; ++j) {
      const A v = Convert<A>(xr[j * inner]);
      m = (v > m || v != v) ? v : m;
    }
    A s = 0;
    for (int64_t j = 0; j < n; ++j) s += exp(Convert<A>(xr[j * inner]) - m);
    const A lse = m + log(s);
    for (int64_t j = 0; j < n; ++j) {
      const A v = Convert<A>(xr[j * inner]);
      yr[j * inner] = Convert<T>(is_log ? v - lse : exp(v - m) / s);
    }
  }
}

template <typename T>
__global__ void SoftmaxBackwardRows(const T* g, const T* y, T* gx, int64_t rows, int64_t n,
                                    bool is_log) {
  using A = Acc<T>;
  __shared__ A shared[32];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* gr = g + r * n;
    const T* yr = y + r * n;
    A s = 0;
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
      s += is_log ? Convert<A>(gr[j]) : Convert<A>(gr[j]) * Convert<A>(yr[j]);
    }
    s = BlockSum(s, shared);
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
      const A gv = Convert<A>(gr[j]), yv = Convert<A>(yr[j]);
      gx[r * n + j] = Convert<T>(is_log ? gv - exp(yv) * s : yv * (gv - s));
    }
  }
}

template <typename T>
__global__ void SoftmaxBackwardColumns(const T* g, const T* y, T* gx, int64_t outer, int64_t n,
                                       int64_t inner, bool is_log) {
  using A = Acc<T>;
  OF_GRID_STRIDE(k, outer * inner) {
    const int64_t base = (k / inner) * n * inner + k % inner;
    A s = 0;
    for (int64_t j = 0; j < n; ++j) {
      const int64_t at = base + j * inner;
      s += is_log ? Convert<A>(g[at]) : Convert<A>(g[at]) * Convert<A>(y[at]);
    }
    for (int64_t j = 0; j < n; ++j) {
      const int64_t at = base + j * inner;
      const A gv = Convert<A>(g[at]), yv = Convert<A>(y[at]);
      gx[at] = Convert<T>(is_log ? gv - exp(yv) * s : yv * (gv - s));
    }
  }
}

// ---- layer norm ----------------------------------------------------------------

template <typename T, typename S>
__global__ void LayerNormRows(const T* x, const T* w, const T* b, T* y, S* mean_out, S* rstd_out,
                              int64_t rows, int64_t n, double eps) {
  using A = Acc<T>;
  __shared__ A shared[32];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* xr = x + r * n;
    A s = 0;
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) s += Convert<A>(xr[j]);
    const A mean = BlockSum(s, shared) / A(n);
    A q = 0;
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
      const A d = Convert<A>(xr[j]) - mean;
      q += d * d;
    }
    const A var = BlockSum(q, shared) / A(n);
    const A rstd = A(1) / sqrt(var + A(eps));
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
      A v = (Convert<A>(xr[j]) - mean) * rstd;
      if (w != nullptr) v *= Convert<A>(w[j]);
      if (b != nullptr) v += Convert<A>(b[j]);
      y[r * n + j] = Convert<T>(v);
    }
    if (threadIdx.x == 0) {
      mean_out[r] = Convert<S>(mean);
      rstd_out[r] = Convert<S>(rstd);
    }
  }
}

template <typename T, typename S>
__global__ void LayerNormBackwardRows(const T* g, const T* x, const S* mean, const S* rstd,
                                      const T* w, T* gx, int64_t rows, int64_t n) {
  using A = Acc<T>;
  __shared__ A shared[32];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const A mu = Convert<A>(mean[r]), rs = Convert<A>(rstd[r]);
    A s1 = 0, s2 = 0;
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
      const A wg = Convert<A>(g[r * n + j]) * (w != nullptr ? Convert<A>(w[j]) : A(1));
      const A xh = (Convert<A>(x[r * n + j]) - mu) * rs;
      s1 += wg;
      s2 += wg * xh;
    }
    s1 = BlockSum(s1, shared) / A(n);
    s2 = BlockSum(s2, shared) / A(n);
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
      const A wg = Convert<A>(g[r * n + j]) * (w != nullptr ? Convert<A>(w[j]) : A(1));
      const A xh = (Convert<A>(x[r * n + j]) - mu) * rs;
      gx[r * n + j] = Convert<T>(rs * (wg - s1 - xh * s2));
    }
  }
}

// Column sums in two passes: blocks of 32 columns x a chunk of rows write
// partial sums (8 row lanes reduced in shared memory), then a thread per
// column adds the chunks. Term(r, j) is the summand.
template <typename Term>
__global__ void ColumnPartials(Term term, int64_t rows, int64_t cols, int64_t chunks,
                               float* partial) {
  __shared__ float shared[8][33];
  const int64_t j = blockIdx.x * 32 + threadIdx.x;
  const int64_t per = (rows + chunks - 1) / chunks;
  const int64_t r0 = blockIdx.y * per, r1 = r0 + per < rows ? r0 + per : rows;
  float s = 0;
  if (j < cols) {
    for (int64_t r = r0 + threadIdx.y; r < r1; r += 8) s += term(r, j);
  }
  shared[threadIdx.y][threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.y == 0 && j < cols) {
    float t = 0;
    for (int k = 0; k < 8; ++k) t += shared[k][threadIdx.x];
    partial[blockIdx.y * cols + j] = t;
  }
}

template <typename T>
__global__ void ColumnFinish(const float* partial, int64_t chunks, int64_t cols, float scale,
                             T* out) {
  OF_GRID_STRIDE(j, cols) {
    float s = 0;
    for (int64_t c = 0; c < chunks; ++c) s += partial[c * cols + j];
    out[j] = Convert<T>(s * scale);
  }
}

template <typename Term>
void SumColumnsOf(Term term, int64_t rows, int64_t cols, float* partial) {
  const int64_t chunks = ColumnChunks(rows);
  dim3 grid(static_cast<unsigned>((cols + 31) / 32), static_cast<unsigned>(chunks));
  ColumnPartials<<<grid, dim3(32, 8), 0, CurrentStream()>>>(term, rows, cols, chunks, partial);
}

// float64: one thread per column, summed in double (exact, for the few fp64 users).
template <typename T, typename S>
__global__ void LayerNormParamGradsExact(const T* g, const T* x, const S* mean, const S* rstd,
                                         T* gw, T* gb, int64_t rows, int64_t n) {
  OF_GRID_STRIDE(j, n) {
    double sw = 0, sb = 0;
    for (int64_t r = 0; r < rows; ++r) {
      const double gv = Convert<double>(g[r * n + j]);
      sw += gv * (Convert<double>(x[r * n + j]) - Convert<double>(mean[r])) *
            Convert<double>(rstd[r]);
      sb += gv;
    }
    if (gw != nullptr) gw[j] = Convert<T>(sw);
    if (gb != nullptr) gb[j] = Convert<T>(sb);
  }
}

template <typename T, typename S>
struct LnWeightTerm {
  const T* g;
  const T* x;
  const S* mean;
  const S* rstd;
  int64_t n;
  __device__ float operator()(int64_t r, int64_t j) const {
    return Convert<float>(g[r * n + j]) * (Convert<float>(x[r * n + j]) - Convert<float>(mean[r])) *
           Convert<float>(rstd[r]);
  }
};

template <typename T>
struct PlainTerm {
  const T* g;
  int64_t n;
  __device__ float operator()(int64_t r, int64_t j) const { return Convert<float>(g[r * n + j]); }
};

// ---- embedding -----------------------------------------------------------------

template <typename I>
__device__ __forceinline__ int64_t IndexAt(const void* idx, int64_t i) {
  return static_cast<int64_t>(static_cast<const I*>(idx)[i]);
}

template <typename T, typename I>
__global__ void EmbeddingKernel(const T* weight, const void* idx, T* out, int64_t num,
                                int64_t dim) {
  OF_GRID_STRIDE(k, num * dim) {
    const int64_t i = k / dim, j = k % dim;
    out[k] = weight[IndexAt<I>(idx, i) * dim + j];
  }
}

template <typename T, typename I>
__global__ void EmbeddingBackwardKernel(const T* grad, const void* idx, float* acc, int64_t num,
                                        int64_t dim, int64_t padding_idx, const int32_t* counts) {
  OF_GRID_STRIDE(k, num * dim) {
    const int64_t i = k / dim, j = k % dim;
    const int64_t row = IndexAt<I>(idx, i);
    if (row == padding_idx) continue;
    float v = Convert<float>(grad[k]);
    if (counts != nullptr) v /= static_cast<float>(counts[row]);
    atomicAdd(acc + row * dim + j, v);
  }
}

template <typename I>
__global__ void CountKernel(const void* idx, int32_t* counts, int64_t num) {
  OF_GRID_STRIDE(i, num) { atomicAdd(counts + IndexAt<I>(idx, i), 1); }
}

// ---- cross entropy ---------------------------------------------------------------

template <typename T>
__global__ void CrossEntropyRows(const T* x, const int64_t* target, const T* weight, int64_t rows,
                                 int64_t classes, int64_t ignore, double smoothing, double* loss,
                                 double* lse_out, double* wrow) {
  using A = Acc<T>;
  __shared__ A shared[32];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* xr = x + r * classes;
    A m = -INFINITY;
    for (int64_t c = threadIdx.x; c < classes; c += blockDim.x) {
      const A v = Convert<A>(xr[c]);
      m = (v > m || v != v) ? v : m;
    }
    m = BlockMax(m, shared);
    A s = 0, wx = 0, wsum = 0;
    for (int64_t c = threadIdx.x; c < classes; c += blockDim.x) {
      const A v = Convert<A>(xr[c]);
      const A wc = weight != nullptr ? Convert<A>(weight[c]) : A(1);
      s += exp(v - m);
      wx += wc * v;
      wsum += wc;
    }
    s = BlockSum(s, shared);
    if (smoothing != 0) {
      wx = BlockSum(wx, shared);
      wsum = BlockSum(wsum, shared);
    }
    if (threadIdx.x == 0) {
      const A lse = m + log(s);
      const int64_t t = target[r];
      lse_out[r] = static_cast<double>(lse);
      if (t == ignore) {
        loss[r] = 0;
        wrow[r] = 0;
      } else {
        const A wt = weight != nullptr ? Convert<A>(weight[t]) : A(1);
        const A nll = wt * (lse - Convert<A>(xr[t]));
        const A eps = static_cast<A>(smoothing);
        const A smooth = (wsum * lse - wx) / static_cast<A>(classes);
        loss[r] = static_cast<double>((A(1) - eps) * nll + eps * smooth);
        wrow[r] = static_cast<double>(wt);
      }
    }
  }
}

template <typename T>
__global__ void CrossEntropyBackwardKernel(const double* g, const T* x, const int64_t* target,
                                           const T* weight, const double* lse, int64_t rows,
                                           int64_t classes, int64_t ignore, double smoothing,
                                           double wsum, T* gx) {
  using A = Acc<T>;
  const A eps = static_cast<A>(smoothing);
  OF_GRID_STRIDE(k, rows * classes) {
    const int64_t r = k / classes, c = k % classes;
    const int64_t t = target[r];
    if (t == ignore) {
      gx[k] = Convert<T>(A(0));
      continue;
    }
    const A p = exp(Convert<A>(x[k]) - static_cast<A>(lse[r]));
    const A wt = weight != nullptr ? Convert<A>(weight[t]) : A(1);
    const A wc = weight != nullptr ? Convert<A>(weight[c]) : A(1);
    A v = (A(1) - eps) * wt * (p - (c == t ? A(1) : A(0)));
    if (eps != A(0)) v += eps / static_cast<A>(classes) * (static_cast<A>(wsum) * p - wc);
    gx[k] = Convert<T>(static_cast<A>(g[r]) * v);
  }
}

// ---- Philox4x32-10 ---------------------------------------------------------------

__device__ __forceinline__ uint4 Philox(uint64_t counter, uint64_t seed) {
  uint32_t c0 = static_cast<uint32_t>(counter), c1 = static_cast<uint32_t>(counter >> 32);
  uint32_t c2 = 0, c3 = 0;
  uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    const uint64_t p0 = static_cast<uint64_t>(0xD2511F53u) * c0;
    const uint64_t p1 = static_cast<uint64_t>(0xCD9E8D57u) * c2;
    const uint32_t n0 = static_cast<uint32_t>(p1 >> 32) ^ c1 ^ k0;
    const uint32_t n1 = static_cast<uint32_t>(p1);
    const uint32_t n2 = static_cast<uint32_t>(p0 >> 32) ^ c3 ^ k1;
    const uint32_t n3 = static_cast<uint32_t>(p0);
    c0 = n0;
    c1 = n1;
    c2 = n2;
    c3 = n3;
  }
  return make_uint4(c0, c1, c2, c3);
}

__device__ __forceinline__ uint32_t Word(const uint4& b, int k) {
  return k == 0 ? b.x : (k == 1 ? b.y : (k == 2 ? b.z : b.w));
}

// A uniform in [0, 1) with 24 random bits.
__device__ __forceinline__ float Unit(uint32_t w) { return static_cast<float>(w >> 8) * 0x1p-24f; }

template <typename T>
__global__ void UniformKernel(T* out, int64_t n, uint64_t seed, uint64_t offset, double lo,
                              double hi) {
  OF_GRID_STRIDE(i, n) {
    const uint4 b = Philox(offset + static_cast<uint64_t>(i / 4), seed);
    const double u = static_cast<double>(Unit(Word(b, static_cast<int>(i % 4))));
    T v = Convert<T>(lo + (hi - lo) * u);
    // Rounding can reach hi in a narrow type: keep the interval half-open.
    if (Convert<double>(v) >= hi && hi > lo) v = Convert<T>(lo);
    out[i] = v;
  }
}

template <typename T>
__global__ void NormalKernel(T* out, int64_t n, uint64_t seed, uint64_t offset, double mean,
                             double std) {
  OF_GRID_STRIDE(i, n) {
    // Box-Muller on two words of the block; element pairs (2k, 2k+1) share them.
    const uint4 b = Philox(offset + static_cast<uint64_t>(i / 2), seed);
    const float u1 = Unit(b.x), u2 = Unit(b.y);
    const float r = sqrtf(-2.f * logf(1.f - u1));
    const float theta = 6.283185307179586f * u2;
    const float z = (i % 2 == 0) ? r * cosf(theta) : r * sinf(theta);
    out[i] = Convert<T>(mean + std * static_cast<double>(z));
  }
}

template <typename T>
__global__ void DropoutKernel(const T* x, T* y, bool* mask, int64_t n, double p, uint64_t seed,
                              uint64_t offset) {
  using A = Acc<T>;
  const A scale = p < 1 ? A(1.0 / (1.0 - p)) : A(0);
  OF_GRID_STRIDE(i, n) {
    const uint4 b = Philox(offset + static_cast<uint64_t>(i / 4), seed);
    const bool keep = static_cast<double>(Unit(Word(b, static_cast<int>(i % 4)))) >= p;
    mask[i] = keep;
    y[i] = Convert<T>(keep ? Convert<A>(x[i]) * scale : A(0));
  }
}

template <typename T>
__global__ void MaskScaleKernel(const T* g, const bool* mask, T* gx, int64_t n, double scale) {
  using A = Acc<T>;
  OF_GRID_STRIDE(i, n) { gx[i] = Convert<T>(mask[i] ? Convert<A>(g[i]) * A(scale) : A(0)); }
}

// ---- Adam -------------------------------------------------------------------------

// Computed in Acc<T>: float for float32 and the 16-bit floats, double for float64.
template <typename T>
__global__ void AdamKernel(T* param, const T* grad, T* m, T* v, T* vmax, int64_t n, double lr_d,
                           double beta1_d, double beta2_d, double wd_d, double eps_d, bool amsgrad,
                           bool maximize, bool decoupled, double bc1_d, double bc2_sqrt_d) {
  using A = Acc<T>;
  const A lr = static_cast<A>(lr_d), beta1 = static_cast<A>(beta1_d),
          beta2 = static_cast<A>(beta2_d);
  const A wd = static_cast<A>(wd_d), eps = static_cast<A>(eps_d);
  const A bc1 = static_cast<A>(bc1_d), bc2_sqrt = static_cast<A>(bc2_sqrt_d);
  OF_GRID_STRIDE(i, n) {
    A g = Convert<A>(grad[i]);
    A p = Convert<A>(param[i]);
    if (maximize) g = -g;
    if (wd != A(0)) {
      if (decoupled) {
        p *= A(1) - lr * wd;
      } else {
        g += wd * p;
      }
    }
    const A m0 = Convert<A>(m[i]);
    const A mi = m0 + (A(1) - beta1) * (g - m0);
    const A vi = Convert<A>(v[i]) * beta2 + (A(1) - beta2) * g * g;
    m[i] = Convert<T>(mi);
    v[i] = Convert<T>(vi);
    A vh = Convert<A>(v[i]);
    if (amsgrad) {
      const A vm = Convert<A>(vmax[i]);
      vh = (vm != vm) ? vm : (vh != vh || vh > vm ? vh : vm);
      vmax[i] = Convert<T>(vh);
    }
    const A denom = sqrt(vh) / bc2_sqrt + eps;
    param[i] = Convert<T>(p - (lr / bc1) * Convert<A>(m[i]) / denom);
  }
}

}  // namespace

bool LaunchReduceRows(const char* name, const void* in, DType in_dtype, void* out, DType out_dtype,
                      int64_t outer, int64_t inner, double p) {
  Red op;
  if (!ParseRed(name, &op)) return false;
  if (outer == 0) return true;
  bool ok = true;
  SwitchDType(in_dtype, [&](auto tag) {
    using T = decltype(tag);
    auto run = [&](auto out_tag) {
      using Out = decltype(out_tag);
      if (inner <= 64) {
        ReduceRowsThread<T, Out><<<Blocks(outer), kThreads, 0, CurrentStream()>>>(
            static_cast<const T*>(in), static_cast<Out*>(out), outer, inner, op, p);
      } else {
        const unsigned blocks = static_cast<unsigned>(outer < 65536 * 4 ? outer : 65536 * 4);
        ReduceRowsBlock<T, Out><<<blocks, kThreads, 0, CurrentStream()>>>(
            static_cast<const T*>(in), static_cast<Out*>(out), outer, inner, op, p);
      }
    };
    if (out_dtype == in_dtype) {
      run(T{});
    } else if (out_dtype == DType::kBool) {
      run(bool{});
    } else if (out_dtype == DType::kInt64) {
      run(int64_t{});
    } else {
      ok = false;
    }
  });
  OF_CUDA_LAUNCHED();
  return ok;
}

void LaunchSoftmax(const void* x, void* y, DType dtype, int64_t outer, int64_t n, int64_t inner,
                   bool is_log) {
  if (outer * n * inner == 0) return;
  SwitchFloating(dtype, [&](auto tag) {
    using T = decltype(tag);
    if (inner == 1) {
      const unsigned blocks = static_cast<unsigned>(outer < 65536 * 4 ? outer : 65536 * 4);
      SoftmaxRows<T><<<blocks, n >= 1024 ? 1024 : kThreads, 0, CurrentStream()>>>(
          static_cast<const T*>(x), static_cast<T*>(y), outer, n, is_log);
    } else {
      SoftmaxColumns<T><<<Blocks(outer * inner), kThreads, 0, CurrentStream()>>>(
          static_cast<const T*>(x), static_cast<T*>(y), outer, n, inner, is_log);
    }
  });
  OF_CUDA_LAUNCHED();
}

void LaunchSoftmaxBackward(const void* g, const void* y, void* gx, DType dtype, int64_t outer,
                           int64_t n, int64_t inner, bool is_log) {
  if (outer * n * inner == 0) return;
  SwitchFloating(dtype, [&](auto tag) {
    using T = decltype(tag);
    if (inner == 1) {
      const unsigned blocks = static_cast<unsigned>(outer < 65536 * 4 ? outer : 65536 * 4);
      SoftmaxBackwardRows<T><<<blocks, kThreads, 0, CurrentStream()>>>(
          static_cast<const T*>(g), static_cast<const T*>(y), static_cast<T*>(gx), outer, n,
          is_log);
    } else {
      SoftmaxBackwardColumns<T><<<Blocks(outer * inner), kThreads, 0, CurrentStream()>>>(
          static_cast<const T*>(g), static_cast<const T*>(y), static_cast<T*>(gx), outer, n, inner,
          is_log);
    }
  });
  OF_CUDA_LAUNCHED();
}

void LaunchLayerNorm(const void* x, const void* w, const void* b, void* y, void* mean, void* rstd,
                     DType dtype, DType stat_dtype, int64_t rows, int64_t n, double eps) {
  if (rows == 0) return;
  const unsigned blocks = static_cast<unsigned>(rows < 65536 * 4 ? rows : 65536 * 4);
  SwitchFloating(dtype, [&](auto tag) {
    using T = decltype(tag);
    auto run = [&](auto stat_tag) {
      using S = decltype(stat_tag);
      LayerNormRows<T, S><<<blocks, kThreads, 0, CurrentStream()>>>(
          static_cast<const T*>(x), static_cast<const T*>(w), static_cast<const T*>(b),
          static_cast<T*>(y), static_cast<S*>(mean), static_cast<S*>(rstd), rows, n, eps);
    };
    if (stat_dtype == dtype) {
      run(T{});
    } else {
      run(float{});
    }
  });
  OF_CUDA_LAUNCHED();
}

void LaunchLayerNormBackward(const void* g, const void* x, const void* mean, const void* rstd,
                             const void* w, void* gx, void* gw, void* gb, DType dtype,
                             DType stat_dtype, int64_t rows, int64_t n, float* workspace) {
  if (rows == 0) return;
  const unsigned blocks = static_cast<unsigned>(rows < 65536 * 4 ? rows : 65536 * 4);
  const int64_t chunks = ColumnChunks(rows);
  SwitchFloating(dtype, [&](auto tag) {
    using T = decltype(tag);
    auto run = [&](auto stat_tag) {
      using S = decltype(stat_tag);
      const T* gt = static_cast<const T*>(g);
      if (gx != nullptr) {
        LayerNormBackwardRows<T, S><<<blocks, kThreads, 0, CurrentStream()>>>(
            gt, static_cast<const T*>(x), static_cast<const S*>(mean), static_cast<const S*>(rstd),
            static_cast<const T*>(w), static_cast<T*>(gx), rows, n);
      }
      if constexpr (std::is_same_v<T, double>) {
        if (gw != nullptr || gb != nullptr) {
          LayerNormParamGradsExact<T, S><<<Blocks(n), kThreads, 0, CurrentStream()>>>(
              gt, static_cast<const T*>(x), static_cast<const S*>(mean),
              static_cast<const S*>(rstd), static_cast<T*>(gw), static_cast<T*>(gb), rows, n);
        }
        return;
      }
      if (gw != nullptr) {
        SumColumnsOf(LnWeightTerm<T, S>{gt, static_cast<const T*>(x), static_cast<const S*>(mean),
                                        static_cast<const S*>(rstd), n},
                     rows, n, workspace);
        ColumnFinish<T><<<Blocks(n), kThreads, 0, CurrentStream()>>>(workspace, chunks, n, 1.f,
                                                                     static_cast<T*>(gw));
      }
      if (gb != nullptr) {
        float* part = workspace + chunks * n;
        SumColumnsOf(PlainTerm<T>{gt, n}, rows, n, part);
        ColumnFinish<T><<<Blocks(n), kThreads, 0, CurrentStream()>>>(part, chunks, n, 1.f,
                                                                     static_cast<T*>(gb));
      }
    };
    if (stat_dtype == dtype) {
      run(T{});
    } else {
      run(float{});
    }
  });
  OF_CUDA_LAUNCHED();
}

bool LaunchSumColumns(const void* in, void* out, DType dtype, int64_t rows, int64_t cols, bool mean,
                      float* workspace) {
  if (dtype != DType::kFloat32 && dtype != DType::kFloat16 && dtype != DType::kBFloat16) {
    return false;
  }
  if (cols == 0) return true;
  const int64_t chunks = ColumnChunks(rows);
  SwitchFloating(dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, double>) {
      SumColumnsOf(PlainTerm<T>{static_cast<const T*>(in), cols}, rows, cols, workspace);
      ColumnFinish<T><<<Blocks(cols), kThreads, 0, CurrentStream()>>>(
          workspace, chunks, cols, mean ? 1.f / static_cast<float>(rows) : 1.f,
          static_cast<T*>(out));
    }
  });
  OF_CUDA_LAUNCHED();
  return true;
}

void LaunchEmbedding(const void* weight, const void* idx, DType idx_dtype, void* out, DType dtype,
                     int64_t num, int64_t dim, int64_t num_weights) {
  if (num * dim == 0) return;
  SwitchDType(dtype, [&](auto tag) {
    using T = decltype(tag);
    if (idx_dtype == DType::kInt32) {
      EmbeddingKernel<T, int32_t><<<Blocks(num * dim), kThreads, 0, CurrentStream()>>>(
          static_cast<const T*>(weight), idx, static_cast<T*>(out), num, dim);
    } else {
      EmbeddingKernel<T, int64_t><<<Blocks(num * dim), kThreads, 0, CurrentStream()>>>(
          static_cast<const T*>(weight), idx, static_cast<T*>(out), num, dim);
    }
  });
  OF_CUDA_LAUNCHED();
}

void LaunchEmbeddingBackward(const void* grad, DType dtype, const void* idx, DType idx_dtype,
                             float* acc, int64_t num, int64_t dim, int64_t padding_idx,
                             const int32_t* counts) {
  if (num * dim == 0) return;
  SwitchFloating(dtype, [&](auto tag) {
    using T = decltype(tag);
    if (idx_dtype == DType::kInt32) {
      EmbeddingBackwardKernel<T, int32_t><<<Blocks(num * dim), kThreads, 0, CurrentStream()>>>(
          static_cast<const T*>(grad), idx, acc, num, dim, padding_idx, counts);
    } else {
      EmbeddingBackwardKernel<T, int64_t><<<Blocks(num * dim), kThreads, 0, CurrentStream()>>>(
          static_cast<const T*>(grad), idx, acc, num, dim, padding_idx, counts);
    }
  });
  OF_CUDA_LAUNCHED();
}

void LaunchCountIndices(const void* idx, DType idx_dtype, int32_t* counts, int64_t num) {
  if (num == 0) return;
  if (idx_dtype == DType::kInt32) {
    CountKernel<int32_t><<<Blocks(num), kThreads, 0, CurrentStream()>>>(idx, counts, num);
  } else {
    CountKernel<int64_t><<<Blocks(num), kThreads, 0, CurrentStream()>>>(idx, counts, num);
  }
  OF_CUDA_LAUNCHED();
}

void LaunchSoftmaxCrossEntropy(const void* x, const int64_t* target, const void* weight,
                               DType dtype, int64_t rows, int64_t classes, int64_t ignore_index,
                               double label_smoothing, double* loss, double* lse, double* wrow) {
  if (rows == 0) return;
  const unsigned blocks = static_cast<unsigned>(rows < 65536 * 4 ? rows : 65536 * 4);
  SwitchFloating(dtype, [&](auto tag) {
    using T = decltype(tag);
    CrossEntropyRows<T><<<blocks, kThreads, 0, CurrentStream()>>>(
        static_cast<const T*>(x), target, static_cast<const T*>(weight), rows, classes,
        ignore_index, label_smoothing, loss, lse, wrow);
  });
  OF_CUDA_LAUNCHED();
}

void LaunchSoftmaxCrossEntropyBackward(const double* g, const void* x, const int64_t* target,
                                       const void* weight, const double* lse, DType dtype,
                                       int64_t rows, int64_t classes, int64_t ignore_index,
                                       double label_smoothing, double wsum, void* gx) {
  if (rows * classes == 0) return;
  SwitchFloating(dtype, [&](auto tag) {
    using T = decltype(tag);
    CrossEntropyBackwardKernel<T><<<Blocks(rows * classes), kThreads, 0, CurrentStream()>>>(
        g, static_cast<const T*>(x), target, static_cast<const T*>(weight), lse, rows, classes,
        ignore_index, label_smoothing, wsum, static_cast<T*>(gx));
  });
  OF_CUDA_LAUNCHED();
}

void LaunchUniform(void* out, DType dtype, int64_t n, uint64_t seed, uint64_t offset, double lo,
                   double hi) {
  if (n == 0) return;
  SwitchFloating(dtype, [&](auto tag) {
    using T = decltype(tag);
    UniformKernel<T><<<Blocks(n), kThreads, 0, CurrentStream()>>>(static_cast<T*>(out), n, seed,
                                                                  offset, lo, hi);
  });
  OF_CUDA_LAUNCHED();
}

void LaunchNormal(void* out, DType dtype, int64_t n, uint64_t seed, uint64_t offset, double mean,
                  double std) {
  if (n == 0) return;
  SwitchFloating(dtype, [&](auto tag) {
    using T = decltype(tag);
    NormalKernel<T><<<Blocks(n), kThreads, 0, CurrentStream()>>>(static_cast<T*>(out), n, seed,
                                                                 offset, mean, std);
  });
  OF_CUDA_LAUNCHED();
}

void LaunchDropout(const void* x, void* y, bool* mask, DType dtype, int64_t n, double p,
                   uint64_t seed, uint64_t offset) {
  if (n == 0) return;
  SwitchFloating(dtype, [&](auto tag) {
    using T = decltype(tag);
    DropoutKernel<T><<<Blocks(n), kThreads, 0, CurrentStream()>>>(
        static_cast<const T*>(x), static_cast<T*>(y), mask, n, p, seed, offset);
  });
  OF_CUDA_LAUNCHED();
}

void LaunchMaskScale(const void* g, const bool* mask, void* gx, DType dtype, int64_t n,
                     double scale) {
  if (n == 0) return;
  SwitchFloating(dtype, [&](auto tag) {
    using T = decltype(tag);
    MaskScaleKernel<T><<<Blocks(n), kThreads, 0, CurrentStream()>>>(static_cast<const T*>(g), mask,
                                                                    static_cast<T*>(gx), n, scale);
  });
  OF_CUDA_LAUNCHED();
}

void LaunchAdam(void* param, const void* grad, void* exp_avg, void* exp_avg_sq,
                void* max_exp_avg_sq, DType dtype, int64_t n, double lr, double beta1, double beta2,
                double weight_decay, double eps, bool amsgrad, bool maximize, bool decoupled,
                double step) {
  if (n == 0) return;
  const double bc1 = 1 - std::pow(beta1, step);
  const double bc2_sqrt = std::sqrt(1 - std::pow(beta2, step));
  SwitchFloating(dtype, [&](auto tag) {
    using T = decltype(tag);
    AdamKernel<T><<<Blocks(n), kThreads, 0, CurrentStream()>>>(
        static_cast<T*>(param), static_cast<const T*>(grad), static_cast<T*>(exp_avg),
        static_cast<T*>(exp_avg_sq), static_cast<T*>(max_exp_avg_sq), n, lr, beta1, beta2,
        weight_decay, eps, amsgrad, maximize, decoupled, bc1, bc2_sqrt);
  });
  OF_CUDA_LAUNCHED();
}

}  // namespace cuda
}  // namespace oneflow
