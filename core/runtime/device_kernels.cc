#include "core/runtime/device_kernels.h"

#include <array>

#include "core/runtime/error.h"

namespace oneflow {
namespace {

std::array<const DeviceKernels*, 2>& Registry() {
  static std::array<const DeviceKernels*, 2> registry{};
  return registry;
}

}  // namespace

DeviceKernelsRegistrar::DeviceKernelsRegistrar(DeviceType type, const DeviceKernels* kernels) {
  Registry()[static_cast<int>(type)] = kernels;
}

const DeviceKernels& GetDeviceKernels(DeviceType type) {
  const DeviceKernels* k = Registry()[static_cast<int>(type)];
  OF_CHECK(k != nullptr, RuntimeError, "no kernels for device type ",
           type == DeviceType::kCUDA ? "cuda" : "cpu",
           " in this build of oneflow (CUDA needs a build with --config=cuda)");
  return *k;
}

}  // namespace oneflow
