// Batch norm over contiguous (N, C, S) tensors: per-channel sums in two levels
// (blocks over a channel and a chunk of the batch write partial sums in double,
// then one thread per channel finishes), and one elementwise pass to apply.

#include <cmath>

#include "ops/cuda/device_common.cuh"

namespace oneflow {
namespace cuda {
namespace {

// partial[(k * chunks + chunk) * c + ch] = sum over the chunk's batch rows of term_k(value),
// for K terms at once.
template <int K, typename T, typename Term>
__global__ void ChannelPartials(const T* x, const T* g, int64_t n, int64_t c, int64_t s,
                                int64_t chunks, Term term, double* partial) {
  __shared__ double shared[K][32];
  const int64_t ch = blockIdx.x, chunk = blockIdx.y;
  const int64_t per = (n + chunks - 1) / chunks;
  const int64_t n0 = chunk * per, n1 = n0 + per < n ? n0 + per : n;
  double acc[K] = {};
  for (int64_t b = n0; b < n1; ++b) {
    const int64_t base = (b * c + ch) * s;
    for (int64_t j = threadIdx.x; j < s; j += blockDim.x) {
      double t[K];
      term(Convert<double>(x[base + j]), g ? Convert<double>(g[base + j]) : 0.0, ch, t);
      for (int k = 0; k < K; ++k) acc[k] += t[k];
    }
  }
  for (int k = 0; k < K; ++k) {
    double v = acc[k];
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    if ((threadIdx.x & 31) == 0) shared[k][threadIdx.x >> 5] = v;
  }
  __syncthreads();
  if (threadIdx.x < K) {
    double v = 0;
    for (int w = 0; w < (blockDim.x + 31) / 32; ++w) v += shared[threadIdx.x][w];
    partial[(threadIdx.x * chunks + chunk) * c + ch] = v;
  }
}

__device__ __forceinline__ double SumChunks(const double* partial, int k, int64_t chunks, int64_t c,
                                            int64_t ch) {
  double v = 0;
  for (int64_t i = 0; i < chunks; ++i) v += partial[(k * chunks + i) * c + ch];
  return v;
}

struct SumTerm {
  __device__ void operator()(double x, double, int64_t, double* t) const { t[0] = x; }
};

template <typename S>
struct SquaredDeviationTerm {
  const S* mean;
  __device__ void operator()(double x, double, int64_t ch, double* t) const {
    const double d = x - Convert<double>(mean[ch]);
    t[0] = d * d;
  }
};

template <typename S>
struct GradTerms {
  const S* mean;
  const S* invstd;
  __device__ void operator()(double x, double g, int64_t ch, double* t) const {
    t[0] = g;
    t[1] = g * (x - Convert<double>(mean[ch])) * Convert<double>(invstd[ch]);
  }
};

template <typename S>
__global__ void FinishMean(const double* partial, int64_t chunks, int64_t c, double count,
                           S* mean) {
  OF_GRID_STRIDE(ch, c) { mean[ch] = Convert<S>(SumChunks(partial, 0, chunks, c, ch) / count); }
}

template <typename S>
__global__ void FinishVariance(const double* partial, int64_t chunks, int64_t c, double count,
                               double eps, double momentum, const S* mean, S* invstd,
                               S* running_mean, S* running_var) {
  OF_GRID_STRIDE(ch, c) {
    const double var = SumChunks(partial, 0, chunks, c, ch) / count;
    invstd[ch] = Convert<S>(1.0 / sqrt(var + eps));
    if (running_mean != nullptr) {
      running_mean[ch] = Convert<S>((1 - momentum) * Convert<double>(running_mean[ch]) +
                                    momentum * Convert<double>(mean[ch]));
    }
    if (running_var != nullptr) {
      const double unbiased = count > 1 ? var * count / (count - 1) : var;
      running_var[ch] =
          Convert<S>((1 - momentum) * Convert<double>(running_var[ch]) + momentum * unbiased);
    }
  }
}

template <typename T, typename S>
__global__ void ApplyKernel(const T* x, T* y, int64_t total, int64_t c, int64_t s, const S* mean,
                            const S* invstd, const T* w, const T* b) {
  using A = Acc<T>;
  OF_GRID_STRIDE(i, total) {
    const int64_t ch = (i / s) % c;
    A scale = Convert<A>(invstd[ch]);
    if (w != nullptr) scale *= Convert<A>(w[ch]);
    A v = (Convert<A>(x[i]) - Convert<A>(mean[ch])) * scale;
    if (b != nullptr) v += Convert<A>(b[ch]);
    y[i] = Convert<T>(v);
  }
}

template <typename T, typename S>
__global__ void FinishGrads(const double* partial, int64_t chunks, int64_t c, T* gw, T* gb) {
  OF_GRID_STRIDE(ch, c) {
    if (gb != nullptr) gb[ch] = Convert<T>(SumChunks(partial, 0, chunks, c, ch));
    if (gw != nullptr) gw[ch] = Convert<T>(SumChunks(partial, 1, chunks, c, ch));
  }
}

template <typename T, typename S>
__global__ void GradInputKernel(const T* g, const T* x, T* gx, int64_t total, int64_t c, int64_t s,
                                const S* mean, const S* invstd, const T* w, bool training,
                                const double* partial, int64_t chunks, double count) {
  using A = Acc<T>;
  OF_GRID_STRIDE(i, total) {
    const int64_t ch = (i / s) % c;
    const A is = Convert<A>(invstd[ch]);
    const A k = w != nullptr ? is * Convert<A>(w[ch]) : is;
    A v = Convert<A>(g[i]);
    if (training) {
      const A mg = static_cast<A>(SumChunks(partial, 0, chunks, c, ch) / count);
      const A mgx = static_cast<A>(SumChunks(partial, 1, chunks, c, ch) / count);
      const A xhat = (Convert<A>(x[i]) - Convert<A>(mean[ch])) * is;
      v = v - mg - xhat * mgx;
    }
    gx[i] = Convert<T>(v * k);
  }
}

template <typename Fn>
void WithStat(DType dtype, DType stat_dtype, Fn&& fn) {
  SwitchFloating(dtype, [&](auto tag) {
    using T = decltype(tag);
    if (stat_dtype == dtype) {
      fn(T{}, T{});
    } else {
      fn(T{}, float{});
    }
  });
}

}  // namespace

void LaunchBatchNormStats(const void* x, DType dtype, DType stat_dtype, int64_t n, int64_t c,
                          int64_t s, double eps, double momentum, void* mean, void* invstd,
                          void* running_mean, void* running_var, double* workspace) {
  if (c == 0) return;
  const int64_t chunks = ChannelChunks(n);
  const double count = static_cast<double>(n * s);
  const dim3 grid(static_cast<unsigned>(c), static_cast<unsigned>(chunks));
  WithStat(dtype, stat_dtype, [&](auto xt, auto st) {
    using T = decltype(xt);
    using S = decltype(st);
    const T* xp = static_cast<const T*>(x);
    ChannelPartials<1, T><<<grid, kThreads, 0, CurrentStream()>>>(xp, nullptr, n, c, s, chunks,
                                                                  SumTerm{}, workspace);
    FinishMean<S><<<Blocks(c), kThreads, 0, CurrentStream()>>>(workspace, chunks, c, count,
                                                               static_cast<S*>(mean));
    ChannelPartials<1, T><<<grid, kThreads, 0, CurrentStream()>>>(
        xp, nullptr, n, c, s, chunks, SquaredDeviationTerm<S>{static_cast<const S*>(mean)},
        workspace);
    FinishVariance<S><<<Blocks(c), kThreads, 0, CurrentStream()>>>(
        workspace, chunks, c, count, eps, momentum, static_cast<const S*>(mean),
        static_cast<S*>(invstd), static_cast<S*>(running_mean), static_cast<S*>(running_var));
  });
  OF_CUDA_LAUNCHED();
}

void LaunchBatchNormApply(const void* x, void* y, DType dtype, DType stat_dtype, int64_t n,
                          int64_t c, int64_t s, const void* mean, const void* invstd, const void* w,
                          const void* b) {
  const int64_t total = n * c * s;
  if (total == 0) return;
  WithStat(dtype, stat_dtype, [&](auto xt, auto st) {
    using T = decltype(xt);
    using S = decltype(st);
    ApplyKernel<T, S><<<Blocks(total), kThreads, 0, CurrentStream()>>>(
        static_cast<const T*>(x), static_cast<T*>(y), total, c, s, static_cast<const S*>(mean),
        static_cast<const S*>(invstd), static_cast<const T*>(w), static_cast<const T*>(b));
  });
  OF_CUDA_LAUNCHED();
}

void LaunchBatchNormBackward(const void* g, const void* x, DType dtype, DType stat_dtype, int64_t n,
                             int64_t c, int64_t s, const void* mean, const void* invstd,
                             const void* w, bool training, void* gx, void* gw, void* gb,
                             double* workspace) {
  if (c == 0) return;
  const int64_t chunks = ChannelChunks(n);
  const int64_t total = n * c * s;
  const dim3 grid(static_cast<unsigned>(c), static_cast<unsigned>(chunks));
  WithStat(dtype, stat_dtype, [&](auto xt, auto st) {
    using T = decltype(xt);
    using S = decltype(st);
    const S* mp = static_cast<const S*>(mean);
    const S* ip = static_cast<const S*>(invstd);
    if (gw != nullptr || gb != nullptr || (gx != nullptr && training)) {
      ChannelPartials<2, T><<<grid, kThreads, 0, CurrentStream()>>>(
          static_cast<const T*>(x), static_cast<const T*>(g), n, c, s, chunks, GradTerms<S>{mp, ip},
          workspace);
      FinishGrads<T, S><<<Blocks(c), kThreads, 0, CurrentStream()>>>(
          workspace, chunks, c, static_cast<T*>(gw), static_cast<T*>(gb));
    }
    if (gx != nullptr && total > 0) {
      GradInputKernel<T, S><<<Blocks(total), kThreads, 0, CurrentStream()>>>(
          static_cast<const T*>(g), static_cast<const T*>(x), static_cast<T*>(gx), total, c, s, mp,
          ip, static_cast<const T*>(w), training, workspace, chunks, static_cast<double>(n * s));
    }
  });
  OF_CUDA_LAUNCHED();
}

}  // namespace cuda
}  // namespace oneflow
