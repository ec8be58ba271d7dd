#include <cuda_runtime.h>

#include "ops/cuda/fill_kernel.h"

namespace oneflow {
namespace cuda {
namespace {

__global__ void FillKernel(float* out, int64_t n, float value) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    out[i] = value;
  }
}

}  // namespace

int DeviceCount() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) return 0;
  return count;
}

std::string FillOnDevice(float* host, int64_t n, float value) {
  float* dev = nullptr;
  cudaError_t err = cudaMalloc(&dev, n * sizeof(float));
  if (err != cudaSuccess) return cudaGetErrorString(err);
  int blocks = static_cast<int>((n + 255) / 256);
  const int grid = blocks < 1024 ? blocks : 1024;
  FillKernel<<<grid, 256>>>(dev, n, value);
  err = cudaMemcpy(host, dev, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(dev);
  return err == cudaSuccess ? "" : cudaGetErrorString(err);
}

}  // namespace cuda
}  // namespace oneflow
