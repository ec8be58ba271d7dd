// The memory kernels the core needs on CUDA (copy with cast, fill, ramps).

#include "ops/cuda/device_common.cuh"

namespace oneflow {
namespace cuda {
namespace {

template <typename To, typename From>
__global__ void CopyKernel(ElemArgs a) {
  To* out = static_cast<To*>(a.op[0].data);
  const From* in = static_cast<const From*>(a.op[1].data);
  OF_GRID_STRIDE(i, a.numel) {
    const Offsets o = ComputeOffsets(a, i);
    out[o.o[0]] = Convert<To>(in[o.o[1]]);
  }
}

template <typename To, typename From>
__global__ void CopyDenseKernel(To* out, const From* in, int64_t n) {
  OF_GRID_STRIDE(i, n) { out[i] = Convert<To>(in[i]); }
}

bool IsContiguous(const ElemArgs& a, int k) {
  int64_t expected = 1;
  for (int d = a.ndim - 1; d >= 0; --d) {
    if (a.size[d] != 1 && a.op[k].stride[d] != expected) return false;
    expected *= a.size[d];
  }
  return true;
}

template <typename T>
__global__ void FillKernel(ElemArgs a, T value) {
  T* out = static_cast<T*>(a.op[0].data);
  OF_GRID_STRIDE(i, a.numel) { out[ComputeOffsets(a, i).o[0]] = value; }
}

template <typename T>
__global__ void FillDenseKernel(T* out, int64_t n, T value) {
  OF_GRID_STRIDE(i, n) { out[i] = value; }
}

template <typename T>
__global__ void ArangeKernel(T* out, int64_t n, double start, double step, int64_t istart,
                             int64_t istep, bool is_int) {
  OF_GRID_STRIDE(i, n) {
    if (is_int) {
      out[i] = Convert<T>(istart + i * istep);
    } else {
      out[i] = Convert<T>(start + static_cast<double>(i) * step);
    }
  }
}

// PyTorch's linspace: the first half counts up from start, the second down from end.
template <typename T>
__global__ void LinspaceKernel(T* out, int64_t n, double start, double end) {
  const double step = n > 1 ? (end - start) / static_cast<double>(n - 1) : 0.0;
  const int64_t half = n / 2;
  OF_GRID_STRIDE(i, n) {
    const double v = i < half ? start + step * static_cast<double>(i)
                              : end - step * static_cast<double>(n - 1 - i);
    out[i] = Convert<T>(v);
  }
}

}  // namespace

void LaunchCopy(const ElemArgs& a) {
  if (a.numel == 0) return;
  const bool dense = IsContiguous(a, 0) && IsContiguous(a, 1);
  SwitchDType(a.op[0].dtype, [&](auto to) {
    using To = decltype(to);
    SwitchDType(a.op[1].dtype, [&](auto from) {
      using From = decltype(from);
      if (dense) {
        CopyDenseKernel<To, From><<<Blocks(a.numel), kThreads, 0, CurrentStream()>>>(
            static_cast<To*>(a.op[0].data), static_cast<const From*>(a.op[1].data), a.numel);
      } else {
        CopyKernel<To, From><<<Blocks(a.numel), kThreads, 0, CurrentStream()>>>(a);
      }
    });
  });
  OF_CUDA_LAUNCHED();
}

void LaunchFill(const ElemArgs& a, double value, int64_t ivalue, bool is_int) {
  if (a.numel == 0) return;
  SwitchDType(a.op[0].dtype, [&](auto tag) {
    using T = decltype(tag);
    T v;
    if constexpr (std::is_same_v<T, bool>) {
      v = is_int ? ivalue != 0 : value != 0;
    } else if constexpr (kIsHalf<T>) {
      v = T(static_cast<float>(is_int ? static_cast<double>(ivalue) : value));
    } else {
      v = is_int ? static_cast<T>(ivalue) : static_cast<T>(value);
    }
    if (IsContiguous(a, 0)) {
      FillDenseKernel<T><<<Blocks(a.numel), kThreads, 0, CurrentStream()>>>(
          static_cast<T*>(a.op[0].data), a.numel, v);
    } else {
      FillKernel<T><<<Blocks(a.numel), kThreads, 0, CurrentStream()>>>(a, v);
    }
  });
  OF_CUDA_LAUNCHED();
}

void LaunchArange(void* out, DType dtype, int64_t n, double start, double step, int64_t istart,
                  int64_t istep, bool is_int) {
  if (n == 0) return;
  SwitchDType(dtype, [&](auto tag) {
    using T = decltype(tag);
    ArangeKernel<T><<<Blocks(n), kThreads, 0, CurrentStream()>>>(static_cast<T*>(out), n, start,
                                                                 step, istart, istep, is_int);
  });
  OF_CUDA_LAUNCHED();
}

void LaunchLinspace(void* out, DType dtype, int64_t n, double start, double end) {
  if (n == 0) return;
  SwitchDType(dtype, [&](auto tag) {
    using T = decltype(tag);
    LinspaceKernel<T>
        <<<Blocks(n), kThreads, 0, CurrentStream()>>>(static_cast<T*>(out), n, start, end);
  });
  OF_CUDA_LAUNCHED();
}

void LaunchCatPiece(const void* in, void* out, int64_t itemsize, int64_t outer, int64_t n_i,
                    int64_t total, int64_t at, int64_t inner) {
  // A 2-d copy: outer rows of n_i * inner elements into rows of total * inner.
  const size_t width = static_cast<size_t>(n_i * inner * itemsize);
  if (width == 0 || outer == 0) return;
  OF_CUDA_CHECK(cudaMemcpy2DAsync(static_cast<char*>(out) + at * inner * itemsize,
                                  static_cast<size_t>(total * inner * itemsize), in, width, width,
                                  static_cast<size_t>(outer), cudaMemcpyDeviceToDevice,
                                  CurrentStream()));
}

}  // namespace cuda
}  // namespace oneflow
