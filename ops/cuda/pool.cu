// Pooling on CUDA: max pooling with indices and adaptive average pooling, with
// their gradients (scattered with float atomics, then cast by the host side).

#include "ops/cuda/device_common.cuh"

namespace oneflow {
namespace cuda {
namespace {

struct Cell {
  int64_t plane, od, oh, ow;
};

__device__ __forceinline__ Cell CellOf(const PoolShape& s, int64_t i) {
  Cell c;
  c.ow = i % s.out[2];
  i /= s.out[2];
  c.oh = i % s.out[1];
  i /= s.out[1];
  c.od = i % s.out[0];
  c.plane = i / s.out[0];
  return c;
}

__device__ __forceinline__ int64_t OutCount(const PoolShape& s) {
  return s.planes * s.out[0] * s.out[1] * s.out[2];
}

template <typename T>
__global__ void MaxPoolKernel(const T* x, T* y, int64_t* indices, PoolShape s) {
  using A = Acc<T>;
  const int64_t in_plane = s.in[0] * s.in[1] * s.in[2];
  OF_GRID_STRIDE(i, OutCount(s)) {
    const Cell c = CellOf(s, i);
    const T* xp = x + c.plane * in_plane;
    A best = -INFINITY;
    int64_t best_at = -1;
    for (int64_t kd = 0; kd < s.kernel[0]; ++kd) {
      const int64_t d = c.od * s.stride[0] - s.pad[0] + kd * s.dilation[0];
      if (d < 0 || d >= s.in[0]) continue;
      for (int64_t kh = 0; kh < s.kernel[1]; ++kh) {
        const int64_t h = c.oh * s.stride[1] - s.pad[1] + kh * s.dilation[1];
        if (h < 0 || h >= s.in[1]) continue;
        for (int64_t kw = 0; kw < s.kernel[2]; ++kw) {
          const int64_t w = c.ow * s.stride[2] - s.pad[2] + kw * s.dilation[2];
          if (w < 0 || w >= s.in[2]) continue;
          const int64_t at = (d * s.in[1] + h) * s.in[2] + w;
          const A v = Convert<A>(xp[at]);
          if (best_at < 0 || v > best || v != v) {
            best = v;
            best_at = at;
            if (v != v) goto done;  // NaN wins, as in PyTorch
          }
        }
      }
    }
  done:
    y[i] = Convert<T>(best);
    indices[i] = best_at;
  }
}

template <typename T>
__global__ void MaxPoolBackwardKernel(const T* g, const int64_t* indices, float* acc, PoolShape s) {
  const int64_t in_plane = s.in[0] * s.in[1] * s.in[2];
  OF_GRID_STRIDE(i, OutCount(s)) {
    const int64_t plane = i / (s.out[0] * s.out[1] * s.out[2]);
    const int64_t at = indices[i];
    if (at >= 0) atomicAdd(acc + plane * in_plane + at, Convert<float>(g[i]));
  }
}

__device__ __forceinline__ void Window(int64_t o, int64_t in, int64_t out, int64_t* b, int64_t* e) {
  *b = (o * in) / out;
  *e = ((o + 1) * in + out - 1) / out;
}

template <typename T>
__global__ void AdaptiveAvgKernel(const T* x, T* y, PoolShape s) {
  using A = Acc<T>;
  const int64_t in_plane = s.in[0] * s.in[1] * s.in[2];
  OF_GRID_STRIDE(i, OutCount(s)) {
    const Cell c = CellOf(s, i);
    int64_t d0, d1, h0, h1, w0, w1;
    Window(c.od, s.in[0], s.out[0], &d0, &d1);
    Window(c.oh, s.in[1], s.out[1], &h0, &h1);
    Window(c.ow, s.in[2], s.out[2], &w0, &w1);
    const T* xp = x + c.plane * in_plane;
    A sum = 0;
    for (int64_t d = d0; d < d1; ++d) {
      for (int64_t h = h0; h < h1; ++h) {
        for (int64_t w = w0; w < w1; ++w) sum += Convert<A>(xp[(d * s.in[1] + h) * s.in[2] + w]);
      }
    }
    y[i] = Convert<T>(sum / static_cast<A>((d1 - d0) * (h1 - h0) * (w1 - w0)));
  }
}

template <typename T>
__global__ void AdaptiveAvgBackwardKernel(const T* g, float* acc, PoolShape s) {
  const int64_t in_plane = s.in[0] * s.in[1] * s.in[2];
  OF_GRID_STRIDE(i, OutCount(s)) {
    const Cell c = CellOf(s, i);
    int64_t d0, d1, h0, h1, w0, w1;
    Window(c.od, s.in[0], s.out[0], &d0, &d1);
    Window(c.oh, s.in[1], s.out[1], &h0, &h1);
    Window(c.ow, s.in[2], s.out[2], &w0, &w1);
    const float v = Convert<float>(g[i]) / static_cast<float>((d1 - d0) * (h1 - h0) * (w1 - w0));
    float* ap = acc + c.plane * in_plane;
    for (int64_t d = d0; d < d1; ++d) {
      for (int64_t h = h0; h < h1; ++h) {
        for (int64_t w = w0; w < w1; ++w) atomicAdd(ap + (d * s.in[1] + h) * s.in[2] + w, v);
      }
    }
  }
}

int64_t Outputs(const PoolShape& s) { return s.planes * s.out[0] * s.out[1] * s.out[2]; }

}  // namespace

void LaunchMaxPool(const void* x, void* y, int64_t* indices, DType dtype, const PoolShape& s) {
  if (Outputs(s) == 0) return;
  SwitchFloating(dtype, [&](auto tag) {
    using T = decltype(tag);
    MaxPoolKernel<T><<<Blocks(Outputs(s)), kThreads, 0, CurrentStream()>>>(
        static_cast<const T*>(x), static_cast<T*>(y), indices, s);
  });
  OF_CUDA_LAUNCHED();
}

void LaunchMaxPoolBackward(const void* g, const int64_t* indices, float* acc, DType dtype,
                           const PoolShape& s) {
  if (Outputs(s) == 0) return;
  SwitchFloating(dtype, [&](auto tag) {
    using T = decltype(tag);
    MaxPoolBackwardKernel<T><<<Blocks(Outputs(s)), kThreads, 0, CurrentStream()>>>(
        static_cast<const T*>(g), indices, acc, s);
  });
  OF_CUDA_LAUNCHED();
}

void LaunchAdaptiveAvgPool(const void* x, void* y, DType dtype, const PoolShape& s) {
  if (Outputs(s) == 0) return;
  SwitchFloating(dtype, [&](auto tag) {
    using T = decltype(tag);
    AdaptiveAvgKernel<T><<<Blocks(Outputs(s)), kThreads, 0, CurrentStream()>>>(
        static_cast<const T*>(x), static_cast<T*>(y), s);
  });
  OF_CUDA_LAUNCHED();
}

void LaunchAdaptiveAvgPoolBackward(const void* g, float* acc, DType dtype, const PoolShape& s) {
  if (Outputs(s) == 0) return;
  SwitchFloating(dtype, [&](auto tag) {
    using T = decltype(tag);
    AdaptiveAvgBackwardKernel<T>
        <<<Blocks(Outputs(s)), kThreads, 0, CurrentStream()>>>(static_cast<const T*>(g), acc, s);
  });
  OF_CUDA_LAUNCHED();
}

}  // namespace cuda
}  // namespace oneflow
