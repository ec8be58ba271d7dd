#ifndef OPS_CUDA_CUDA_RUNTIME_H_
#define OPS_CUDA_CUDA_RUNTIME_H_

// Host-side CUDA helpers for the kernels' C++ code: the current device (per
// thread) and its stream, a device guard, and the building of elementwise
// launch arguments from tensors.

#include <cuda_runtime.h>

#include <string>

#include "core/framework/op_registry.h"
#include "core/runtime/tensor_impl.h"
#include "ops/cuda/cuda_check.h"
#include "ops/cuda/launch.h"

namespace oneflow {
namespace cuda {

int CurrentDevice();
void SetDevice(int index);
cudaStream_t StreamOf(int index);
cudaStream_t CurrentStream();

// Makes `index` the current device for the scope (-1: keep the current one).
class DeviceGuard {
 public:
  explicit DeviceGuard(int index);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_;
};

// The iteration space `shape` (the output's); throws, naming `op`, beyond kMaxDims.
ElemArgs MakeElemArgs(const DimVector& shape, const char* op);
// Operand k: t broadcast to the iteration space (a 0-d CPU tensor becomes a scalar).
void SetOperand(ElemArgs& args, int k, const TensorImpl& t);
// Drops size-1 dims and merges dims every operand walks through as one.
void Coalesce(ElemArgs& args);

// Registers `fn` as op's CUDA kernel (and its in-place twin op + "_" when `inplace`).
inline void Register(const std::string& op, DTypeSet dtypes, KernelFn fn, bool inplace) {
  OpRegistry::GetOrCreate(op).SetKernel(DeviceType::kCUDA, dtypes, fn);
  if (inplace) OpRegistry::GetOrCreate(op + "_").SetKernel(DeviceType::kCUDA, dtypes, fn);
}

}  // namespace cuda
}  // namespace oneflow

#endif  // OPS_CUDA_CUDA_RUNTIME_H_
