#ifndef OPS_CUDA_FILL_KERNEL_H_
#define OPS_CUDA_FILL_KERNEL_H_

#include <cstdint>
#include <string>

namespace oneflow {
namespace cuda {

// Number of visible CUDA devices (0 when there is no driver or no GPU).
int DeviceCount();

// Fills n floats on the GPU with `value` and copies them to `host`.
// Returns an empty string on success, else the CUDA error text.
std::string FillOnDevice(float* host, int64_t n, float value);

}  // namespace cuda
}  // namespace oneflow

#endif  // OPS_CUDA_FILL_KERNEL_H_
